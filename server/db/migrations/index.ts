import type { Migration } from 'kysely/migration';
import * as m0001 from './0001-initial.ts';

/** Every migration, in order. Names sort by their numeric prefix. */
export const migrations: Record<string, Migration> = {
  '0001-initial': m0001,
};
