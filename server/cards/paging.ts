/**
 * Paging of list calls whose parameters arrive on the query string (values are strings; types are not
 * coerced). Page sizes are the spec's (platform-core section 9). Kept here rather than imported from
 * server/devices/routes.ts, whose import cycle with server/http/validation.ts breaks when it loads first.
 */
export const queryPaging = {
  pageNum: { type: 'string', pattern: '^[1-9][0-9]{0,5}$' },
  pageSize: { type: 'string', enum: ['10', '20', '30', '40', '50', '100'] },
} as const;
