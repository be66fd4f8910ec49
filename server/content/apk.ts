import { createRequire } from 'node:module';

/** What an APK's manifest says about it; read from the file, never from the form. */
export interface ApkInfo {
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
}

interface ApkReaderModule {
  open(file: string): Promise<{ readManifest(): Promise<{ package?: unknown; versionName?: unknown; versionCode?: unknown }> }>;
}

// adbkit-apkreader is CommonJS without type declarations; its surface used here is typed above.
const ApkReader = createRequire(import.meta.url)('@devicefarmer/adbkit-apkreader') as ApkReaderModule;

/** Reads package name, version name and integer version code from the APK's binary AndroidManifest.xml. */
export async function readApk(file: string): Promise<ApkInfo | undefined> {
  try {
    const manifest = await (await ApkReader.open(file)).readManifest();
    const packageName = typeof manifest.package === 'string' ? manifest.package : '';
    const versionCode = typeof manifest.versionCode === 'number' ? manifest.versionCode : Number.NaN;
    if (!/^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$/.test(packageName) || !Number.isInteger(versionCode)) return undefined;
    return { packageName, versionName: typeof manifest.versionName === 'string' ? manifest.versionName.slice(0, 128) : String(manifest.versionName ?? ''), versionCode };
  } catch {
    return undefined;
  }
}
