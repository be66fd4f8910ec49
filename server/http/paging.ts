import { MAX_PAGE_NUM, PAGE_SIZES } from '../../protocol/api/common.ts';

// One definition with the REST contract (protocol/api/common.ts).
export { MAX_PAGE_NUM, PAGE_SIZES };

/**
 * Paging of list calls whose parameters arrive on the query string: values are strings, because the
 * server does not coerce types.
 */
export const queryPaging = {
  pageNum: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
  pageSize: { type: 'string', enum: PAGE_SIZES.map(String) },
} as const;
