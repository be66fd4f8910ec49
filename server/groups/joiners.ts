import { sql } from 'kysely';
import { MAX_CAMPAIGN_DEVICES } from '../../protocol/api/campaigns.ts';
import { DownloadState, FirmwareType, InstallResult, PushResult } from '../../protocol/index.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { DeviceRepository } from '../devices/repository.ts';
import { groupFilter, groupScope, parseGroupQuery } from './repository.ts';

/** Joiners added to one campaign per pass (the next pass takes more). */
const JOINERS_PER_PASS = 500;

/**
 * Devices that joined a running campaign's dynamic group since it started (enrolled, moved into its
 * organisations, or changed so that they match) become targets of the campaign's last stage. Only devices
 * the campaign could push to are taken: the content's system type, a firmware's model, no MCU firmware to
 * Apollo models (the checks /push/start makes). Called by the campaign runner on each sweep; returns how
 * many targets it added.
 */
export async function addGroupJoiners(db: Db, now: number): Promise<number> {
  const campaigns = await db
    .selectFrom('push_campaigns as c')
    .innerJoin('device_groups as g', 'g.id', 'c.group_id')
    .innerJoin('content_items as i', 'i.id', 'c.content_id')
    .select(['c.id', 'c.org_id', 'c.kind', 'c.total', 'c.created_at', 'c.start_at', 'c.offline_window_ms', 'i.system_type', 'i.model', 'i.item_type'])
    .select(['g.id as group_id', 'g.org_id as group_org_id', 'g.account_id as group_account_id', 'g.name as group_name', 'g.query_json', 'g.created_at as group_created_at', 'g.updated_at as group_updated_at'])
    .where('c.state', '=', 'running')
    .execute();
  if (campaigns.length === 0) return 0;
  const devices = new DeviceRepository(db);
  const tree = await currentOrgTree(db);
  let added = 0;
  for (const c of campaigns) {
    // The campaign follows its group for its offline window, from its (scheduled) start.
    if (now >= Number(c.start_at ?? c.created_at) + Number(c.offline_window_ms)) continue;
    const room = MAX_CAMPAIGN_DEVICES - Number(c.total);
    if (room <= 0) continue;
    const group = { id: c.group_id, org_id: c.group_org_id, account_id: c.group_account_id, name: c.group_name, query_json: c.query_json, created_at: c.group_created_at, updated_at: c.group_updated_at };
    const filter = await groupFilter(db, parseGroupQuery(c.query_json), await groupScope(db, group, tree.scopeOf(c.org_id)));
    if (filter.scope.size === 0) continue;
    const fresh = await devices
      .matching(filter)
      .select('devices.sn')
      .$if(!!c.system_type, (q) => q.where('devices.system_type', '=', c.system_type))
      .$if(c.kind === 'firmware' && !!c.model, (q) => q.where('devices.model', '=', c.model))
      .$if(c.kind === 'firmware' && c.item_type === FirmwareType.Mcu, (q) => q.where(sql<boolean>`lower(devices.model) not like '%apollo%'`))
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('push_targets as t').select('t.id').where('t.campaign_id', '=', c.id).whereRef('t.sn', '=', 'devices.sn'))))
      .orderBy('devices.id')
      .limit(Math.min(room, JOINERS_PER_PASS))
      .execute();
    if (fresh.length === 0) continue;
    const last = await db.selectFrom('push_targets').select((eb) => eb.fn.max('stage').as('s')).where('campaign_id', '=', c.id).executeTakeFirstOrThrow();
    const inserted = await db
      .insertInto('push_targets')
      .values(
        fresh.map((d) => ({
          campaign_id: c.id,
          sn: d.sn,
          stage: Number(last.s ?? 0),
          phase: 'queued',
          push_result: PushResult.Pushing,
          download_state: DownloadState.Waiting,
          install_result: InstallResult.Preparing,
          next_attempt_at: now,
          updated_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['campaign_id', 'sn']).doNothing())
      .returning('id')
      .execute();
    if (inserted.length === 0) continue;
    await db.updateTable('push_campaigns').set({ total: sql`total + ${inserted.length}`, updated_at: now }).where('id', '=', c.id).execute();
    added += inserted.length;
  }
  return added;
}
