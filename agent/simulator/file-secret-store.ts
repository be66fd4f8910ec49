import fs from 'node:fs';
import path from 'node:path';
import type { SecretStore } from './fleet.ts';

/** Keeps issued device secrets in a JSON file (mode 0600), written atomically. */
export function fileSecretStore(file: string): SecretStore {
  return {
    load() {
      try {
        const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
        return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
      } catch {
        return {};
      }
    },
    save(secrets) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(secrets), { mode: 0o600 });
      fs.renameSync(tmp, file);
    },
  };
}
