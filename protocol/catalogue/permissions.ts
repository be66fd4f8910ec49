import type { Label } from './labels.ts';

/** One permission key with its place in the permission tree and its labels. */
export interface PermissionEntry extends Label {
  readonly key: string;
  readonly parent: string | null;
}

// Keys named by the spec are kept exactly (including their spelling, e.g. report_manganer). Action keys
// the spec describes without naming (device actions) are ours, in the spec's `area_action` style.
const p = (key: string, parent: string | null, zh: string, en: string): PermissionEntry => ({ key, parent, zh, en });

/** The permission catalogue: only these names count as permissions (platform-core section 6). */
export const permissionCatalogue: readonly PermissionEntry[] = [
  p('home_list', null, '首页', 'Dashboard'),
  p('document_list', null, '文档库', 'Document library'),
  p('document_manage', 'document_list', '文档编辑', 'Document authoring'),
  p('notice_publish', null, '通知发布', 'Notice publishing'),
  p('org_list', null, '组织管理', 'Organisation management'),
  p('img_manager', null, '固件管理', 'Firmware'),
  p('img_list', 'img_manager', '固件版本', 'Firmware versions'),
  p('custom-made-img_list', 'img_manager', '固件定制', 'Firmware customise'),
  p('custom-made-img_push-log', 'img_manager', '推送券', 'Firmware coupons'),
  p('app_list', null, '应用管理', 'Applications'),
  p('file_list', null, '文件管理', 'Files'),
  p('logo_list', null, 'Logo管理', 'Logos and boot animations'),
  p('wallpaper_list', null, '壁纸管理', 'Wallpapers'),
  // Content actions (ours): `_edit` covers add, edit and delete; `_push` starts a push campaign.
  ...(['img', 'app', 'file', 'logo', 'wallpaper'] as const).flatMap((a) => [
    p(`${a}_edit`, a === 'img' ? 'img_list' : `${a}_list`, '新增/编辑/删除', 'Add, edit, delete'),
    p(`${a}_push`, a === 'img' ? 'img_list' : `${a}_list`, '推送', 'Push'),
  ]),
  p('custom-made-img_apply', 'custom-made-img_list', '申请定制', 'Apply for custom firmware'),
  p('device_list', null, '设备管理', 'Device management'),
  p('device_reboot', 'device_list', '重启', 'Reboot'),
  p('device_base_info', 'device_list', '基础信息', 'Base info'),
  p('device_system_info', 'device_list', '系统信息', 'System info'),
  p('device_runtime', 'device_list', '运行信息', 'Runtime info'),
  p('device_shell', 'device_list', 'Shell命令', 'Shell'),
  p('device_ssh', 'device_list', 'SSH调试', 'SSH debug'),
  p('device_capture', 'device_list', '截屏与日志抓取', 'Capture'),
  p('device_file', 'device_list', '文件传输', 'File transfer'),
  p('device_file_export', 'device_list', '文件导出', 'File export'),
  p('device_file_delete', 'device_list', '文件删除', 'File delete'),
  p('device_whitelist', 'device_list', '白名单', 'Whitelist'),
  p('device_app', 'device_list', '应用管理', 'Apps on device'),
  p('device_remark', 'device_list', '备注', 'Remark'),
  p('device_allocate', 'device_list', '分配', 'Allocate'),
  p('device_country', 'device_list', '设置国家', 'Set country'),
  p('device_reset', 'device_list', '远程重置', 'Remote reset'),
  p('device_revoke', 'device_list', '吊销设备凭证', 'Revoke device credentials'),
  p('device_message', 'device_list', '发送消息', 'Send message'),
  p('device_clear', 'device_list', '清除数据', 'Clear data'),
  // Ours (issue 23): approves or rejects another account's dangerous action (four-eyes approval).
  p('approve_dangerous', 'device_list', '危险操作审批', 'Approve dangerous actions'),
  p('recording_list', 'device_list', '会话录像', 'Session recordings'),
  // Ours (issue 23): dynamic groups (create, change, delete) and the organisation's custom device fields.
  p('device_group', 'device_list', '动态分组', 'Dynamic groups'),
  p('device_field', 'device_list', '自定义字段', 'Custom device fields'),
  p('device_live_view', 'device_list', '实时画面', 'Live view'),
  p('device_live_control', 'device_list', '实时控制', 'Live control'),
  p('remote_list', null, '远程管理', 'Remote management'),
  p('push_log_list', null, '推送日志', 'Push logs'),
  p('iso-bus_list', null, '激活码管理', 'Licences'),
  p('link-card-order_list', null, '订单查询', 'Orders'),
  // Ours: completing sandbox payments (PAYMENT_SANDBOX=on) settles orders without money, so it is a key of its own.
  p('payment_admin', 'link-card-order_list', '支付管理（沙箱结算）', 'Payment administration (sandbox settlement)'),
  p('order-requirements_list', null, '订单需求', 'Order demands'),
  p('report_manganer', null, '统计报表', 'Reports'),
  p('report_multiModelAnalyse', 'report_manganer', '多型号分析', 'Multi-model analysis'),
  p('report_locationmap', 'report_manganer', '设备位置统计', 'Device locations'),
  p('report_abnormal', 'report_manganer', '异常统计', 'Abnormal statistics'),
  p('report_operation_log', 'report_manganer', '系统操作日志', 'System operation log'),
  p('report_statistics_usetime', 'report_manganer', '平台使用统计', 'Platform usage'),
  p('permit_manage', null, '权限管理', 'Authority'),
  p('admin_list', 'permit_manage', '管理员', 'Admins'),
  p('role_list', 'permit_manage', '角色管理', 'Roles'),
  // Ours (issue 23): an organisation's webhooks and their delivery log.
  p('webhook_manage', 'permit_manage', 'Webhook管理', 'Webhooks'),
  p('sim_manage', null, 'SIM卡管理', 'SIM cards'),
  p('springCard_list', 'sim_manage', '春卡管理', 'Spring cards'),
  p('linkCard_linkCardDirectionGroupList', 'sim_manage', '定向组', 'Directional groups'),
  p('linkCard_listDirectionalAddress', 'sim_manage', '定向地址', 'Directional addresses'),
  p('linkCard_listCardInfo', 'sim_manage', '卡管理', 'Cards'),
  p('linkCard_getCardDetail', 'sim_manage', '卡详情', 'Card detail'),
  p('link-card-bill_list', 'sim_manage', '账单查询', 'Bills'),
  p('link-card-bill_detail-list', 'sim_manage', '月账单', 'Monthly bills'),
  p('zxj_list', 'sim_manage', '聚信卡管理', 'Juxin cards'),
];

const catalogued: ReadonlySet<string> = new Set(permissionCatalogue.map((e) => e.key));

/** True when `name` is a catalogued permission key. */
export function isPermission(name: string): boolean {
  return catalogued.has(name);
}

/** The role that holds every permission (platform-core section 6). */
export const ADMIN_ROLE = 'admin';
