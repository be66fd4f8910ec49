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
