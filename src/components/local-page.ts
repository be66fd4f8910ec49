import type { Page } from '../../protocol/api/devices.ts';
import type { ListQuery } from './DataTable.tsx';

/** A sortable value of a row, by column key. */
export type SortValues<T> = Readonly<Record<string, (row: T) => string | number | null>>;

/**
 * One page of a list the server answers whole (a year's months, the caller's tokens): sorted by the
 * query's column when `sortBy` knows it (nulls last), then sliced as the server would page it, so the
 * list still shows in the one DataTable.
 */
export function localPage<T>(rows: readonly T[], q: ListQuery, sortBy: SortValues<T> = {}): Page<T> {
  const value = q.sort ? sortBy[q.sort.key] : undefined;
  let sorted = rows;
  if (q.sort && value) {
    const sign = q.sort.order === 'asc' ? 1 : -1;
    sorted = [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * sign;
    });
  }
  const from = (q.pageNum - 1) * q.pageSize;
  return { total: rows.length, list: sorted.slice(from, from + q.pageSize) };
}
