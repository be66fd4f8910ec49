import { describe, expect, it } from 'vitest';
import { UsageTracker } from '../../server/reports/usage-tracker.ts';
import { TelemetryIngest } from '../../server/telemetry/ingest.ts';
import { client } from '../support/console-api.ts';
import { injectTestServer, loginAsAdmin } from '../support/server.ts';

/** server/telemetry/plugin.ts: infrastructure as a plugin that decorates the app and owns its close. */
describe('the telemetry plugin', () => {
  it('decorates the app with telemetry and usage, and counts requests to every area, not only the reports', async () => {
    const ts = await injectTestServer('sqlite');
    try {
      expect(ts.server.app.telemetry).toBeInstanceOf(TelemetryIngest);
      expect(ts.server.app.usage).toBeInstanceOf(UsageTracker);
      const admin = client(ts, (await loginAsAdmin(ts)).token);
      // Requests to the notices plugin: its routes live in another encapsulated context than the usage hook's.
      for (let i = 0; i < 3; i++) await admin.ok('GET', '/notice/page?pageNum=1&pageSize=10');
      const usage = await admin.ok<{ accounts: { account: string; requests: number }[] }>('GET', '/report/usage');
      expect(usage.accounts.find((a) => a.account === 'admin')?.requests).toBeGreaterThanOrEqual(3);
    } finally {
      await ts.stop();
    }
  });
});
