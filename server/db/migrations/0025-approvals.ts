import type { Kysely } from 'kysely';
import { identityColumn } from './identity.ts';

// Four-eyes approval (issue 23): dangerous actions wait as requests until a second account approves them;
// each organisation's thresholds are its policy (docs/DECISIONS.md, "Four-eyes approval").

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('approval_requests')
    .addColumn('id', ...identityColumn(db))
    /** The requester's organisation (whose policy asked for the approval). */
    .addColumn('org_id', 'integer', (c) => c.notNull())
    .addColumn('requester_id', 'integer', (c) => c.notNull())
    .addColumn('requester', 'text', (c) => c.notNull())
    /** command (one device) | bulk (many devices) | campaign (a push campaign held in awaiting_approval). */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** The command (for a campaign: PushFile). */
    .addColumn('msg_id', 'integer', (c) => c.notNull())
    /** The command's data and options as JSON (ttlSeconds of a held command). */
    .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
    /** The target serials as a JSON array. */
    .addColumn('targets', 'text', (c) => c.notNull())
    .addColumn('target_count', 'integer', (c) => c.notNull())
    /** The distinct organisations of the targets when requested, as a JSON array (lists; approval re-reads them). */
    .addColumn('target_orgs', 'text', (c) => c.notNull().defaultTo('[]'))
    /** The route it came by: console, rest, api, bulk, campaign. */
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'integer')
    /** pending | approved | rejected | expired. */
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('decided_by_id', 'integer')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'bigint')
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    /** What the execution answered after approval, as JSON (per device results, or the campaign state). */
    .addColumn('outcome', 'text')
    .execute();
  await db.schema.createIndex('approval_requests_state_expiry').on('approval_requests').columns(['state', 'expires_at']).execute();
  await db.schema.createIndex('approval_requests_org_time').on('approval_requests').columns(['org_id', 'created_at']).execute();
  // Each organisation's policy: wipes (factory reset, clear data) need approval (1) or not (0); a bulk
  // command over `approval_bulk_over` devices and a campaign over `approval_campaign_over` devices need it
  // (0: never); requests expire after `approval_ttl_minutes`.
  await db.schema.alterTable('organisations').addColumn('approval_wipes', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db.schema.alterTable('organisations').addColumn('approval_bulk_over', 'integer', (c) => c.notNull().defaultTo(20)).execute();
  await db.schema.alterTable('organisations').addColumn('approval_campaign_over', 'integer', (c) => c.notNull().defaultTo(100)).execute();
  await db.schema.alterTable('organisations').addColumn('approval_ttl_minutes', 'integer', (c) => c.notNull().defaultTo(1440)).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const col of ['approval_ttl_minutes', 'approval_campaign_over', 'approval_bulk_over', 'approval_wipes']) {
    await db.schema.alterTable('organisations').dropColumn(col).execute();
  }
  await db.schema.dropTable('approval_requests').execute();
}
