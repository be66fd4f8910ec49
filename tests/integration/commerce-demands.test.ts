import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowed, DEMAND_TRANSITIONS, DemandMessage } from '../../server/commerce/demand-routes.ts';
import { type Client, client, createOrg } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { api, injectTestServer, loginAs, loginAsAdmin, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface Demand {
  id: number;
  number: string;
  state: number;
  quantity: number;
  additionalQuantity: number;
  parentNumber: string | null;
  shareToken: string;
  fields: { label: string; type: string; value: string | string[] }[];
  rejectReason: string;
}

describe('order demand states', () => {
  it('allows each action only from its listed states, and nothing leaves the finished state but add-more', () => {
    for (const [action, from] of Object.entries(DEMAND_TRANSITIONS)) {
      for (const state of [0, 1, 2, 3, 4]) expect(allowed(action as keyof typeof DEMAND_TRANSITIONS, state)).toBe((from as readonly number[]).includes(state));
    }
    expect(Object.entries(DEMAND_TRANSITIONS).filter(([, from]) => (from as readonly number[]).includes(4)).map(([a]) => a)).toEqual(['addMore']);
  });
});

for (const target of targets) {
  describe.skipIf(!target.available)(`order demands (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let customer: Client;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
      await createOrg(admin, { name: 'Maker', account: 'maker', password: 'Maker_pw1' });
      customer = client(ts, (await loginAs(ts, 'maker', 'Maker_pw1')).token);
    });
    afterAll(async () => ts?.stop());

    it('runs without a socket, through app.inject(); SQLite held in memory, PostgreSQL in its own schema: no database file', () => {
      expect(ts.server.url).toMatch(/^inject:\/\//);
      expect(fs.existsSync(path.join(ts.config.dataDir, 'control-center.sqlite'))).toBe(false);
    });

    const form = {
      name: 'Rugged tablet batch',
      customer: 'Acme Farms',
      kind: 'trial',
      model: 'T20 Pro',
      template: 'Tablet v2',
      fittings: [{ sku: 'CHG-12V', number: 2 }],
      fields: [
        { label: 'Colour', type: 'select', value: 'black', options: ['black', 'grey'] },
        { label: 'Extras', type: 'checkbox', value: ['stylus'], options: ['stylus', 'strap'] },
        { label: 'Ship by', type: 'date', value: '2026-12-20' },
        { label: 'Artwork', type: 'upload', value: 'https://files.example.com/logo.png' },
        { label: 'Notes', type: 'textarea', value: ' keep it dry ' },
      ],
      quantity: 500,
      specialNeeds: 'IP67',
    };

    it('validates the form with clear messages', async () => {
      const bad = (patch: object) => customer.call('POST', '/order-requirements/add', { ...form, ...patch });
      expect((await bad({ quantity: 0 })).message).toBe(DemandMessage.PositiveInteger);
      expect((await bad({ name: ' ' })).message).toBe('Name cannot be empty!');
      expect((await bad({ fittings: [{ sku: '', number: 1 }] })).message).toBe(DemandMessage.Fitting);
      expect((await bad({ fields: [{ label: 'Artwork', type: 'upload', value: 'ftp://x' }] })).message).toBe(DemandMessage.Link);
      expect((await bad({ fields: [{ label: 'Ship by', type: 'date', value: '2026-13-01' }] })).message).toBe(DemandMessage.Date);
      expect((await bad({ fields: [{ label: 'Colour', type: 'select', value: 'red', options: ['black'] }] })).message).toBe(DemandMessage.Option);
      expect((await bad({ kind: 'pilot' })).code).toBe(40001);
      expect((await bad({ fields: [{ label: 'x', type: 'rating', value: '5' }] })).code).toBe(40001);
    });

    it('goes draft, submitted, rejected, resubmitted, approved, finished; refuses what the state forbids', async () => {
      const draft = await customer.ok<Demand>('POST', '/order-requirements/add', form);
      expect(draft).toMatchObject({ state: 0, quantity: 500 });
      expect(draft.number).toMatch(/^OD\d{8}[0-9A-F]{6}$/);
      expect(draft.fields.find((f) => f.label === 'Notes')?.value).toBe('keep it dry');
      await customer.ok('POST', '/order-requirements/submit', { id: draft.id });
      expect((await customer.call('POST', '/order-requirements/update', { ...form, id: draft.id })).message).toBe(DemandMessage.Transition);
      expect((await customer.call('DELETE', '/order-requirements/delete', { id: draft.id })).message).toBe(DemandMessage.Transition);
      expect((await customer.call('POST', '/order-requirements/finish', { id: draft.id })).message).toBe(DemandMessage.Transition);
      // Only platform staff review.
      expect((await customer.call('POST', '/order-requirements/review', { id: draft.id, approve: true })).code).toBe(40003);
      expect((await admin.call('POST', '/order-requirements/review', { id: draft.id, approve: false })).message).toBe('Reason cannot be empty!');
      await admin.ok('POST', '/order-requirements/review', { id: draft.id, approve: false, reason: 'Quantity too high for a trial' });
      const rejected = await customer.ok<Demand>('GET', `/order-requirements/detail/${draft.id}`);
      expect(rejected).toMatchObject({ state: 2, rejectReason: 'Quantity too high for a trial' });
      await customer.ok('POST', '/order-requirements/update', { ...form, id: draft.id, quantity: 50, submit: true });
      await admin.ok('POST', '/order-requirements/review', { id: draft.id, approve: true });
      expect((await admin.call('POST', '/order-requirements/review', { id: draft.id, approve: true })).message).toBe(DemandMessage.Transition);

      const more = await customer.ok<Demand>('POST', '/order-requirements/add-more', { id: draft.id, quantity: 20 });
      expect(more).toMatchObject({ state: 1, parentNumber: draft.number, additionalQuantity: 20 });
      await customer.ok('POST', '/order-requirements/finish', { id: draft.id });
      expect((await customer.ok<Demand>('GET', `/order-requirements/detail/${draft.id}`)).state).toBe(4);
      const same = await customer.ok<Demand>('POST', '/order-requirements/add-same', { id: draft.id });
      expect(same).toMatchObject({ state: 0, quantity: 50 });
      expect(same.number).not.toBe(draft.number);
      await customer.ok('DELETE', '/order-requirements/delete', { id: same.id });

      const listed = await customer.ok<{ total: number; list: Demand[] }>('GET', '/order-requirements/list?state=4');
      expect(listed.list.map((d) => d.number)).toEqual([draft.number]);

      // The public detail page needs the share token; the organisation scope keeps others out.
      const open = await api<Demand>(ts.server.url, 'GET', `/order-demand-detail/view?number=${draft.number}&token=${draft.shareToken}`);
      expect(open.data).toMatchObject({ number: draft.number, state: 4 });
      expect(open.data).not.toHaveProperty('shareToken');
      expect((await api(ts.server.url, 'GET', `/order-demand-detail/view?number=${draft.number}&token=wrong`)).code).toBe(40004);
      await createOrg(admin, { name: 'Rival', account: 'rival', password: 'Rival_pw1' });
      const rival = client(ts, (await loginAs(ts, 'rival', 'Rival_pw1')).token);
      expect((await rival.call('GET', `/order-requirements/detail/${draft.id}`)).code).toBe(40004);
      expect((await rival.ok<{ total: number }>('GET', '/order-requirements/list')).total).toBe(0);
    });
  });
}
