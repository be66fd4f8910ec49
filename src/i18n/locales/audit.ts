// Texts of the system operation log page; the action names themselves are in protocol/catalogue/audit-actions.ts.
export const auditEn = {
  anyAction: 'Any action',
  result: 'Result',
  ok: 'Success',
  refused: 'Refused ({{code}})',
  route: 'Route',
  targetId: 'ID {{id}}',
  query: 'Query',
};

export const auditZh: typeof auditEn = {
  anyAction: '全部操作',
  result: '结果',
  ok: '成功',
  refused: '失败（{{code}}）',
  route: '接口',
  targetId: 'ID {{id}}',
  query: '查询',
};
