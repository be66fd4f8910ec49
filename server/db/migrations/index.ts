import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-initial.ts';
import * as m0002 from './0002-organisations-and-accounts.ts';
import * as m0003 from './0003-notices.ts';
import * as m0004 from './0004-documents.ts';
import * as m0005 from './0005-operation-log.ts';

/** Every migration, in order. Names sort by their numeric prefix. */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-organisations-and-accounts': m0002,
  '0003-notices': m0003,
  '0004-documents': m0004,
  '0005-operation-log': m0005,
};
