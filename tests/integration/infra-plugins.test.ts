import { describe, expect, it } from 'vitest';
import { LiveCallers } from '../../server/accounts/live-callers.ts';
import { ApprovalService } from '../../server/approvals/service.ts';
import { CampaignRunner } from '../../server/campaigns/runner.ts';
import { UsageTracker } from '../../server/reports/usage-tracker.ts';
import { UploadService } from '../../server/uploads/upload-service.ts';
import { TelemetryIngest } from '../../server/telemetry/ingest.ts';
import { Webhooks } from '../../server/webhooks/dispatcher.ts';
import { client } from '../support/console-api.ts';
import { injectTestServer, loginAsAdmin } from '../support/server.ts';

/** Infrastructure as plugins that decorate the app and own their start and close (server/app.ts registers them). */
describe('infrastructure plugins', () => {
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

  it('webhooks: the dispatcher decorates the app, and the webhook routes (another context) manage hooks through it', async () => {
    const ts = await injectTestServer('sqlite');
    try {
      const webhooks = ts.server.app.webhooks;
      expect(webhooks).toBeInstanceOf(Webhooks);
      const login = await loginAsAdmin(ts);
      const admin = client(ts, login.token);
      const { id } = await admin.ok<{ id: number }>('POST', '/webhook/add', { url: 'https://hooks.example.com/dcc', secret: 'a-long-enough-secret', events: ['device.online'] });
      const stored = await webhooks.repository.list(new Set([login.orgId]));
      expect(stored.map((h) => h.id)).toContain(id);
    } finally {
      await ts.stop();
    }
  });

  it('approvals, live callers, the file store and the campaign runner decorate the app; the routes of other contexts use them', async () => {
    const ts = await injectTestServer('sqlite');
    try {
      const { app } = ts.server;
      expect(app.approvals).toBeInstanceOf(ApprovalService);
      // The gateway's console sockets ask the same service as the REST routes.
      expect(ts.server.gateway.approvals).toBe(app.approvals);
      expect(app.liveCallers).toBeInstanceOf(LiveCallers);
      expect(app.uploads).toBeInstanceOf(UploadService);
      expect(app.campaignRunner).toBeInstanceOf(CampaignRunner);
      const admin = client(ts, (await loginAsAdmin(ts)).token);
      // The approval routes read the decorated service; a fresh node has nothing waiting.
      expect(await admin.ok<{ toDecide: number; mine: number }>('POST', '/approval/count')).toEqual({ toDecide: 0, mine: 0 });
    } finally {
      await ts.stop();
    }
  });
});
