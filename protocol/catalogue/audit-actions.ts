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
  'POST /file/folder': ['Create file folder', '新建文件夹'],
  'POST /custom-made-img/apply': ['Apply for custom firmware', '申请定制固件'],
  'POST /custom-made-img/transition': ['Advance custom firmware order', '推进定制固件订单'],
  'POST /push/pause': ['Pause push', '暂停推送'],
  'POST /push/resume': ['Resume push', '恢复推送'],
  'POST /push/add-devices': ['Add devices to push', '追加推送设备'],
  'POST /push-coupon/recharge': ['Buy push coupons', '购买推送券'],
  'POST /device-ops/command': ['Send device command', '下发设备指令'],
  'POST /device-ops/bulk': ['Send bulk device command', '批量下发设备指令'],
  'POST /device-ops/revoke': ['Revoke held command', '撤销待下发指令'],
  'POST /device-ops/whitelist-cancel': ['Cancel whitelist on all devices', '取消全部设备白名单'],
  'POST /device-ops/group-control': ['Group control input', '群控操作'],
  'POST /recording/policy': ['Set recording policy', '设置录像策略'],
  'POST /device-group/create': ['Create device group', '新建设备分组'],
  'DELETE /device-group/:id': ['Delete device group', '删除设备分组'],
  'DELETE /saved-view/:id': ['Delete saved view', '删除已保存视图'],
  'DELETE /device-field/:id': ['Delete custom field', '删除自定义字段'],
  'POST /device-field/set': ['Set device custom fields', '设置设备自定义字段'],
  'POST /springCard/changeStatus': ['Stop or restart spring card', '停用/复机春卡'],
  'POST /zxj/changeStatus': ['Change Juxin card status', '修改聚信卡状态'],
  'POST /linkCard/intelligentTest': ['Intelligent card test', '智能检测'],
  'POST /payment/notify': ['Payment notification', '支付回调'],
  'POST /payment/sandbox/pay': ['Pay in payment sandbox', '沙箱支付'],
  'POST /link-card-order/ship': ['Ship card order', '卡订单发货'],
  'POST /link-card-order/receive': ['Confirm card order received', '确认卡订单收货'],
  'POST /iso-bus/generate': ['Generate activation codes', '生成激活码'],
  'POST /iso-bus/distribute': ['Distribute activation codes', '分配激活码'],
  'POST /isobus-activate/activate': ['Activate licence', '激活授权'],
  'POST /order-requirements/add-same': ['Copy order demand', '复制订单需求'],
  'POST /order-requirements/add-more': ['Add quantity to order demand', '追加订单需求数量'],
  'POST /true-point/account/add': ['Add time-pool account', '新增时间池账号'],
  'POST /true-point/account/activate': ['Activate time-pool account', '激活时间池账号'],
  'POST /true-point/account/state': ['Change time-pool account state', '修改时间池账号状态'],
  'POST /true-point/equipment/disable': ['Disable time-pool equipment', '停用时间池设备'],
  'POST /totp/setup': ['Set up two-step verification', '设置两步验证'],
  'POST /totp/enable': ['Turn on two-step verification', '开启两步验证'],
  'POST /totp/disable': ['Turn off two-step verification', '关闭两步验证'],
  'POST /org/totp-policy': ['Set two-step verification policy', '设置两步验证策略'],
};

// The content areas whose shared routes (/<area>/save, /<area>/delete, ...) the log names by area.
const AREAS: Readonly<Record<string, Names>> = {
  app: ['application', '应用'],
  file: ['file', '文件'],
  logo: ['logo or boot animation', '开机Logo与动画'],
  wallpaper: ['wallpaper', '壁纸'],
  firmware: ['firmware', '固件'],
  img: ['firmware', '固件'],
  'firmware-version': ['firmware', '固件'],
  mcu: ['MCU firmware', 'MCU 固件'],
  'custom-made-img': ['custom firmware', '定制固件'],
  'device-field': ['custom field', '自定义字段'],
  'device-group': ['device group', '设备分组'],
  'saved-view': ['saved view', '已保存视图'],
};

// Content areas share their routes: /<area>/save, /<area>/delete and so on.
const AREA_VERBS: Readonly<Record<string, Names>> = {
  'DELETE delete': ['Delete', '删除'],
  'POST save': ['Save', '保存'],
  'POST upload': ['Upload', '上传'],
  'POST update': ['Edit', '编辑'],
  'POST edit': ['Edit', '编辑'],
  'POST add': ['Add', '新增'],
};

/** Every named operation key ("METHOD pattern"), for the log's action filter. */
export const AUDIT_ACTION_KEYS: readonly string[] = Object.keys(ACTIONS);

/**
 * The name of a recorded operation in a language: the catalogue's, else a verb of a content area's shared
 * routes with its area ("Delete wallpaper", "删除壁纸"), else the method and pattern as they are (a test holds
 * every recorded route to a name: tests/integration/audit-names.test.ts).
 */
export function auditActionName(method: string, path: string, lang: 'en' | 'zh'): string {
  const i = lang === 'zh' ? 1 : 0;
  const known = ACTIONS[`${method} ${path}`];
  if (known) return known[i];
  const m = /^\/([^/]+)\/([^/:]+)$/.exec(path);
  const verb = m ? AREA_VERBS[`${method} ${m[2]}`] : undefined;
  const area = m ? AREAS[m[1] ?? ''] : undefined;
  if (verb && area) return lang === 'zh' ? `${verb[i]}${area[i]}` : `${verb[i]} ${area[i]}`;
  return `${method} ${path}`;
}
