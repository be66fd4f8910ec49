import { type Expression, type SqlBool, sql } from 'kysely';
import { orgIdIn } from '../accounts/org-scope.ts';
import type { Period } from '../../protocol/api/reports.ts';
import type { Db } from '../db/database.ts';

/** What every report query is limited to: organisations (the caller's scope or a chosen subtree). */
export interface Scope {
  readonly orgIds: readonly number[];
  /** The scope is every organisation: no filter at all, which keeps the planner on the plain indexes. */
  readonly coversAll?: boolean;
}

/** `column` is one of the scope's organisations (one bound array, however large the scope). */
export function inScope(db: Db, column: string, scope: Scope): Expression<SqlBool> {
  return scope.coversAll ? sql<SqlBool>`1 = 1` : orgIdIn(db, column, scope.orgIds);
}

export interface RangeQuery {
  readonly from: number;
  readonly to: number;
  readonly period: Period;
  readonly tz: string;
  readonly now: number;
}

export const num = (v: unknown) => Number(v ?? 0);
