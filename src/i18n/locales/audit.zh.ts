import type { auditEn } from './audit.ts';

// The Chinese texts of audit.ts; `typeof auditEn` makes the compiler check the keys. A file of its own, so
// a page loads only its language (src/i18n/index.ts).
export const auditZh: typeof auditEn = {
  anyAction: '全部操作',
  result: '结果',
  ok: '成功',
  refused: '失败（{{code}}）',
  route: '接口',
  targetId: 'ID {{id}}',
  query: '查询',
};
