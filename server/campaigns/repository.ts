import { type Insertable, type Selectable, sql } from 'kysely';
import { DownloadState, InstallResult, PushResult } from '../../protocol/index.ts';
import type { PushCampaignTable } from '../content/tables.ts';
import type { Db } from '../db/database.ts';
import { CampaignState, Phase } from './runner.ts';

/** A campaign's row. */
export type CampaignRow = Selectable<PushCampaignTable>;
/** A device a push may go to, as /push/start chooses them. */
export interface PushDevice {
  readonly sn: string;
  readonly model: string;
  readonly system_type: string;
  readonly org_id: number;
}

/** Rows per insert of targets (far below every database's parameter limit). */
const TARGET_BATCH = 500;

/** A queued target, as a campaign's start or an addition makes it. */
const queued = (campaignId: number, sn: string, stage: number, now: number) => ({
  campaign_id: campaignId,
  sn,
  stage,
  phase: Phase.Queued,
  push_result: PushResult.Pushing,
  download_state: DownloadState.Waiting,
  install_result: InstallResult.Preparing,
  next_attempt_at: now,
  updated_at: now,
});

/**
 * The SQL of the push routes (server/campaigns/routes.ts): campaigns and their targets as the REST paths
 * read and change them, the push log, and what a device's download checks. The runner (runner.ts) keeps its
 * own statements, written in batches.
 */
export class CampaignRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  find(id: number): Promise<CampaignRow | undefined> {
    return this.#db.selectFrom('push_campaigns').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** How many of a campaign's targets are in each phase. */
  async phaseCounts(campaignId: number): Promise<Record<string, number>> {
    const rows = await this.#db.selectFrom('push_targets').select(['phase', (eb) => eb.fn.countAll<number | string>().as('n')]).where('campaign_id', '=', campaignId).groupBy('phase').execute();
    return Object.fromEntries(rows.map((r) => [r.phase, Number(r.n)]));
  }

  /** Devices of `scope` among `sns`, oldest first, at most `limit`. */
  devicesIn(scope: ReadonlySet<number>, sns: readonly string[], limit: number): Promise<PushDevice[]> {
    if (sns.length === 0 || scope.size === 0) return Promise.resolve([]);
    return this.#db.selectFrom('devices').select(['sn', 'model', 'system_type', 'org_id']).where('org_id', 'in', [...scope]).where('sn', 'in', [...sns]).orderBy('id').limit(limit).execute();
  }

  /** Creates a campaign with its devices queued, in stages of `stageSize` in their order (0: one stage), in one transaction. */
  create(campaign: Insertable<PushCampaignTable>, devices: readonly { readonly sn: string }[], stageSize: number, now: number): Promise<CampaignRow> {
    return this.#db.transaction().execute(async (trx) => {
      const c = await trx.insertInto('push_campaigns').values(campaign).returningAll().executeTakeFirstOrThrow();
      for (let i = 0; i < devices.length; i += TARGET_BATCH) {
        await trx
          .insertInto('push_targets')
          .values(devices.slice(i, i + TARGET_BATCH).map((d, j) => queued(c.id, d.sn, stageSize ? Math.floor((i + j) / stageSize) : 0, now)))
          .execute();
      }
      return c;
    });
  }

  /** Moves a campaign from state `from` to `to` (with `also` set too); false when it was not in `from`. */
  async transition(id: number, from: string, to: string, now: number, also: { current_stage?: number; message?: string; approved_by?: number | null } = {}): Promise<boolean> {
    const r = await this.#db.updateTable('push_campaigns').set({ state: to, updated_at: now, ...also }).where('id', '=', id).where('state', '=', from).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Cancels the campaign and its queued targets (those sent already report on). */
  async cancel(id: number, now: number): Promise<void> {
    await this.#db.updateTable('push_campaigns').set({ state: CampaignState.Cancelled, updated_at: now }).where('id', '=', id).execute();
    await this.cancelQueued(id, now);
  }

  /** Cancels the queued targets of a campaign. */
  async cancelQueued(id: number, now: number): Promise<void> {
    await this.#db.updateTable('push_targets').set({ phase: Phase.Cancelled, push_result: PushResult.Fail, message: 'cancelled', updated_at: now }).where('campaign_id', '=', id).where('phase', '=', Phase.Queued).execute();
  }

  /** Which of `sns` are targets of the campaign already. */
  async knownTargets(campaignId: number, sns: readonly string[]): Promise<Set<string>> {
    if (sns.length === 0) return new Set();
    return new Set((await this.#db.selectFrom('push_targets').select('sn').where('campaign_id', '=', campaignId).where('sn', 'in', [...sns]).execute()).map((r) => r.sn));
  }

  /** Serials and system types of the devices of `orgs` among `sns`. */
  devicesOf(orgs: ReadonlySet<number>, sns: readonly string[]): Promise<{ sn: string; system_type: string }[]> {
    if (sns.length === 0 || orgs.size === 0) return Promise.resolve([]);
    return this.#db.selectFrom('devices').select(['sn', 'system_type']).where('org_id', 'in', [...orgs]).where('sn', 'in', [...sns]).execute();
  }

  /** Targets still to be pushed or reporting (queued or sent). */
  async openTargets(campaignId: number): Promise<number> {
    const r = await this.#db.selectFrom('push_targets').select((eb) => eb.fn.countAll<number | string>().as('n')).where('campaign_id', '=', campaignId).where('phase', 'in', [Phase.Queued, Phase.Sent]).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * Adds devices to the campaign's last stage and counts them in its total (a serial already there is
   * skipped), in one transaction. With `maxTotal`, nothing is added and false answered when the total would
   * pass it: the total grows first, conditionally, so two additions at once cannot both slip under it.
   */
  addTargets(campaignId: number, sns: readonly string[], now: number, maxTotal?: number): Promise<boolean> {
    if (sns.length === 0) return Promise.resolve(true);
    return this.#db.transaction().execute(async (trx) => {
      let grow = trx.updateTable('push_campaigns').set({ total: sql`total + ${sns.length}`, updated_at: now }).where('id', '=', campaignId);
      if (maxTotal !== undefined) grow = grow.where(sql<boolean>`total + ${sns.length} <= ${maxTotal}`);
      if (Number((await grow.executeTakeFirst()).numUpdatedRows) !== 1) return false;
      const last = await trx.selectFrom('push_targets').select((eb) => eb.fn.max('stage').as('s')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow();
      await trx
        .insertInto('push_targets')
        .values(sns.map((sn) => queued(campaignId, sn, Number(last.s ?? 0), now)))
        .onConflict((oc) => oc.columns(['campaign_id', 'sn']).doNothing())
        .execute();
      return true;
    });
  }

  /** Campaigns of `scope`, newest first. */
  async list(scope: ReadonlySet<number>, limit: number, offset: number): Promise<{ total: number; rows: CampaignRow[] }> {
    const q = this.#db.selectFrom('push_campaigns').where('org_id', 'in', scope.size > 0 ? [...scope] : [-1]);
    const [{ total }, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      q.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    ]);
    return { total: Number(total), rows };
  }

  /** The push log: targets of campaigns of `scope`, newest first, by content kind, serial or campaign. */
  async pushLog(f: { scope: ReadonlySet<number>; kind?: string; sn?: string; campaignId?: number; limit: number; offset: number }) {
    let q = this.#db.selectFrom('push_targets as t').innerJoin('push_campaigns as c', 'c.id', 't.campaign_id').where('c.org_id', 'in', f.scope.size > 0 ? [...f.scope] : [-1]);
    if (f.kind) q = q.where('c.kind', '=', f.kind);
    if (f.sn) q = q.where('t.sn', '=', f.sn);
    if (f.campaignId) q = q.where('t.campaign_id', '=', f.campaignId);
    const [{ total }, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      q
        .select(['t.id', 't.campaign_id', 't.sn', 't.phase', 't.push_result', 't.download_state', 't.progress', 't.install_result', 't.attempts', 't.message', 't.updated_at', 'c.kind', 'c.content_name', 'c.created_at', 'c.org_id'])
        .orderBy('t.id', 'desc')
        .limit(f.limit)
        .offset(f.offset)
        .execute(),
    ]);
    return { total: Number(total), rows };
  }

  /** A device's stored secret digest, for its download. */
  deviceSecret(sn: string) {
    return this.#db.selectFrom('devices').select(['sn', 'secret_hash']).where('sn', '=', sn).executeTakeFirst();
  }

  /** Whether the device has a push open (queued or sent) of the file with this hash. */
  async hasOpenPush(sn: string, sha256: string): Promise<boolean> {
    const open = await this.#db
      .selectFrom('push_targets as t')
      .innerJoin('push_campaigns as c', 'c.id', 't.campaign_id')
      .innerJoin('content_items as i', 'i.id', 'c.content_id')
      .select('t.id')
      .where('t.sn', '=', sn)
      .where('t.phase', 'in', [Phase.Queued, Phase.Sent])
      .where('i.sha256', '=', sha256)
      .executeTakeFirst();
    return open !== undefined;
  }
}
