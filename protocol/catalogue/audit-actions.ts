// Names of the recorded operations (the system operation log), keyed by "METHOD route pattern", in both
// languages: the console shows them and the server's export writes them, so the two cannot disagree.

type Names = readonly [en: string, zh: string];

const ACTIONS: Readonly<Record<string, Names>> = {
  'POST /login/userLogin': ['Log in', '登录'],
  'GET /home/logout': ['Log out', '退出登录'],
  'POST /common/modify-language': ['Change language', '切换语言'],
  'POST /org/add': ['Add organisation', '新增组织'],
  'POST /org/update': ['Edit organisation', '编辑组织'],
  'DELETE /org/del': ['Delete organisation', '删除组织'],
  'POST /org/freeze': ['Freeze or unfreeze organisation', '冻结/解冻组织'],
  'POST /org/restpassword': ['Reset organisation password', '重置组织密码'],
  'GET /org/kitoutUser/:accountId': ['Kick out account', '踢出账号'],
  'POST /permit/addRole': ['Add role', '新增角色'],
  'POST /permit/updateRole': ['Edit role', '编辑角色'],
  'DELETE /permit/delRole/:id': ['Delete role', '删除角色'],
  'POST /permit/addAccount': ['Add admin account', '新增管理员'],
  'POST /permit/updateAccount': ['Edit admin account', '编辑管理员'],
  'DELETE /permit/delAccount/:id': ['Delete admin account', '删除管理员'],
  'POST /permit/update-self-password': ['Change own password', '修改本人密码'],
  'POST /notice/publish': ['Publish notice', '发布公告'],
  'POST /notice/attachment': ['Upload notice attachment', '上传公告附件'],
  'DELETE /notice/delete': ['Delete notice', '删除公告'],
  'DELETE /notice/delete-all': ['Delete all notices', '删除全部公告'],
  'DELETE /notice/withdraw/:id': ['Withdraw notice', '撤回公告'],
  'POST /notice/read': ['Mark notices read', '标记公告已读'],
  'GET /notice/read-all': ['Mark all notices read', '全部标记已读'],
  'POST /archives-category/save': ['Save document category', '保存文档分类'],
  'DELETE /archives-category/del/:id': ['Delete document category', '删除文档分类'],
  'POST /archives-document/save': ['Save document', '保存文档'],
  'DELETE /archives-document/del/:id': ['Delete document', '删除文档'],
  'POST /device/allocate': ['Move devices to organisation', '分配设备'],
  'POST /api-token/create': ['Create API token', '创建 API 令牌'],
  'POST /device/remark': ['Edit device remark', '编辑设备备注'],
  'POST /push/start': ['Start push', '开始推送'],
  'POST /push/approve': ['Approve push', '审批推送'],
  'POST /push/cancel': ['Cancel push', '取消推送'],
  'POST /order-requirements/add': ['Add order demand', '新增订单需求'],
  'POST /order-requirements/update': ['Edit order demand', '编辑订单需求'],
  'DELETE /order-requirements/delete': ['Delete order demand', '删除订单需求'],
  'POST /order-requirements/submit': ['Submit order demand', '提交订单需求'],
  'POST /order-requirements/review': ['Review order demand', '审核订单需求'],
  'POST /order-requirements/finish': ['Finish order demand', '完成订单需求'],
  'POST /linkCard/changeStatus': ['Change card status', '修改卡状态'],
  'POST /linkCard/bindGroup': ['Bind card group', '绑定卡分组'],
  'POST /linkCard/addDirectionGroup': ['Add directional group', '新增定向分组'],
  'POST /linkCard/updateDirectionGroup': ['Edit directional group', '编辑定向分组'],
  'DELETE /linkCard/delDirectionGroup': ['Delete directional group', '删除定向分组'],
  'POST /linkCard/addDirectionalAddress': ['Add directional address', '新增定向地址'],
  'DELETE /linkCard/delDirectionalAddress': ['Delete directional address', '删除定向地址'],
  'POST /pay-data/createOrder': ['Create payment order', '创建支付订单'],
  'POST /pay-data/pay': ['Pay order', '支付订单'],
  'POST /pay-data/close': ['Close payment order', '关闭支付订单'],
  'POST /link-card-order/invoice': ['Request invoice', '申请发票'],
  'POST /link-card-order/issueInvoice': ['Issue invoice', '开具发票'],
  'POST /link-card-order/confirmOffline': ['Confirm offline payment', '确认线下付款'],
  'POST /api-token/add': ['Create API token', '创建 API 令牌'],
  'DELETE /api-token/:id': ['Revoke API token', '吊销 API 令牌'],
  'POST /webhook/add': ['Add webhook', '新增 Webhook'],
  'DELETE /webhook/:id': ['Delete webhook', '删除 Webhook'],
  'POST /webhook/redeliver': ['Redeliver webhook', '重新投递 Webhook'],
  'POST /approval/:id/approve': ['Approve dangerous action', '审批通过危险操作'],
  'POST /approval/:id/reject': ['Reject dangerous action', '驳回危险操作'],
  'POST /approval/policy': ['Set four-eyes approval policy', '设置四眼审批策略'],
};

// Content areas share their routes: /<area>/save, /<area>/delete and so on.
const AREA_VERBS: Readonly<Record<string, Names>> = {
  'DELETE delete': ['Delete', '删除'],
  'POST save': ['Save', '保存'],
  'POST upload': ['Upload', '上传'],
  'POST update': ['Edit', '编辑'],
  'POST add': ['Add', '新增'],
};

/** Every named operation key ("METHOD pattern"), for the log's action filter. */
export const AUDIT_ACTION_KEYS: readonly string[] = Object.keys(ACTIONS);

/**
 * The name of a recorded operation in a language: the catalogue's, else a verb of a content area's shared
 * routes with the area ("Delete: /logo"), else the method and pattern as they are.
 */
export function auditActionName(method: string, path: string, lang: 'en' | 'zh'): string {
  const i = lang === 'zh' ? 1 : 0;
  const known = ACTIONS[`${method} ${path}`];
  if (known) return known[i];
  const m = /^\/([^/]+)\/([^/:]+)$/.exec(path);
  const verb = m ? AREA_VERBS[`${method} ${m[2]}`] : undefined;
  if (verb && m) return `${verb[i]}: ${m[1]}`;
  return `${method} ${path}`;
}
