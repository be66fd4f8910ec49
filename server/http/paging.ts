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

/** LIMIT and OFFSET of a list call's page; Ajv fills the defaults, which the contract's types leave optional. */
export function pageWindow(body: { readonly pageNum?: number | undefined; readonly pageSize?: number | undefined }): { limit: number; offset: number } {
  const pageSize = body.pageSize ?? 10;
  return { limit: pageSize, offset: ((body.pageNum ?? 1) - 1) * pageSize };
}
