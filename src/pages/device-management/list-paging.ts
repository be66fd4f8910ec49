import { MAX_SNS } from '../../../protocol/api/devices.ts';
import { type DeviceFilter, deviceApi } from '../../api/devices.ts';
import type { RowsQuery } from './device-rows.ts';

/** Page sizes of the device list: the spec's 10-100, or 'all' for the one virtualised scroll (the default). */
export const DEVICE_PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;
export type DevicePageSize = (typeof DEVICE_PAGE_SIZES)[number] | 'all';

/** Which rows of the whole result a page shows: its first index and how many. */
export function pageWindow(total: number, pageSize: DevicePageSize, pageNum: number): { offset: number; count: number; pages: number } {
  if (pageSize === 'all') return { offset: 0, count: total, pages: 1 };
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const offset = (Math.min(Math.max(1, pageNum), pages) - 1) * pageSize;
  return { offset, count: Math.max(0, Math.min(pageSize, total - offset)), pages };
}

const LIST_BLOCK = 100;

/**
 * The serials of every device matching the list's filters (the "select all N matching" selection), at most
 * {@link MAX_SNS}: one `/device/select` with the remote-management key, else the list itself page by page
 * (the key the user has to see the list at all).
 */
export async function matchingSerials(query: RowsQuery, canSelect: boolean): Promise<{ sns: string[]; total: number }> {
  const { sortField, sortOrder, ...filter } = query;
  if (canSelect) {
    const found = await deviceApi.select(filter satisfies DeviceFilter);
    return { sns: [...found.sns], total: found.total };
  }
  const sns: string[] = [];
  let total = 0;
  for (let pageNum = 1; sns.length < MAX_SNS; pageNum++) {
    const page = await deviceApi.list({ ...filter, sortField, sortOrder, pageNum, pageSize: LIST_BLOCK });
    total = page.total;
    sns.push(...page.list.map((d) => d.sn));
    if (page.list.length < LIST_BLOCK || sns.length >= total) break;
  }
  return { sns: sns.slice(0, MAX_SNS), total };
}
