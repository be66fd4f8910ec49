import { describe, expect, it } from 'vitest';
import { localPage } from './local-page.ts';

const rows = [
  { id: 1, name: 'b', used: 5 },
  { id: 2, name: 'a', used: null },
  { id: 3, name: 'c', used: 9 },
];
const sortBy = { name: (r: (typeof rows)[number]) => r.name, used: (r: (typeof rows)[number]) => r.used };

describe('localPage', () => {
  it('slices the asked page and counts every row', () => {
    const page = localPage(rows, { pageNum: 2, pageSize: 10, sort: undefined });
    expect(page).toEqual({ total: 3, list: [] });
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: undefined }).list.map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('sorts by the column asked, both ways, nulls last', () => {
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: { key: 'name', order: 'asc' } }, sortBy).list.map((r) => r.id)).toEqual([2, 1, 3]);
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: { key: 'name', order: 'desc' } }, sortBy).list.map((r) => r.id)).toEqual([3, 1, 2]);
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: { key: 'used', order: 'desc' } }, sortBy).list.map((r) => r.id)).toEqual([3, 1, 2]);
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: { key: 'used', order: 'asc' } }, sortBy).list.map((r) => r.id)).toEqual([1, 3, 2]);
  });

  it('keeps the order for a column it cannot sort', () => {
    expect(localPage(rows, { pageNum: 1, pageSize: 10, sort: { key: 'other', order: 'asc' } }, sortBy).list.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3]);
  });
});
