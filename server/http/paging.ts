/** Page sizes a list may ask for (platform-core section 9). */
export const PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;

/** Highest page a list call may ask for: six digits, times the largest page size, stays a small offset. */
export const MAX_PAGE_NUM = 999_999;

/**
 * Paging of list calls whose parameters arrive on the query string: values are strings, because the
 * server does not coerce types.
 */
export const queryPaging = {
  pageNum: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
  pageSize: { type: 'string', enum: PAGE_SIZES.map(String) },
} as const;
