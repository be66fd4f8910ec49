import type { EnumMember, Label } from './labels.ts';

// Enumerations named by the two spec documents, devices-and-commerce and platform-core.
//
// Where the spec gives wire codes they are kept exactly, spelling and case included. Where it names the
// members of an enumeration without giving codes, the codes are ours and the const says so. Where it
// lists codes and labels but says the pairing is not shown, they are paired in listed order and the const
// says so.
//
// Style: a `const` object (member name -> wire value), a literal-union type `XxxCode`, and a labels array
// `xxxLabels` holding one entry per value, in the const's order. `enumCatalogue` (end of file) names
// every labels array.

/** A catalogue member whose wire value is a boolean flag (`EnumMember` covers string and number values only). */
export interface FlagMember<V extends boolean> extends Label {
  readonly value: V;
}

// ---------------------------------------------------------------------------------------------------
// Devices and realtime commands
// ---------------------------------------------------------------------------------------------------

/** Command result codes (devices-and-commerce section 4). */
export const Result = {
  Success: 0,
  Fail: 1,
  MessageError: 2,
  UnknownMessageId: 3,
  DeviceNotLoggedIn: 4,
  DeviceOffline: 5,
  Pushing: 6,
  /** Ours (issue 23): not executed yet; it waits for a second account's approval (`data.approvalId`). */
  AwaitingApproval: 7,
} as const;
export type ResultCode = (typeof Result)[keyof typeof Result];

/** Labels of {@link Result} (devices-and-commerce section 4; English texts as in devices-and-commerce section 8). */
export const resultLabels: readonly EnumMember<ResultCode>[] = [
  { value: 0, zh: '成功', en: 'Success' },
  { value: 1, zh: '失败', en: 'Fail' },
  { value: 2, zh: '消息错误', en: 'Message error' },
  { value: 3, zh: '消息ID无法识别', en: 'Message id not recognised' },
  { value: 4, zh: '设备未登录', en: 'Device not logged in' },
  { value: 5, zh: '设备离线', en: 'The equipment is offline' },
  { value: 6, zh: '推送中', en: 'Pushing' },
  { value: 7, zh: '等待审批', en: 'Awaiting approval' },
];

/** Device online state: 1 online, 2 offline (devices-and-commerce section 4). */
export const OnlineState = { Online: 1, Offline: 2 } as const;
export type OnlineStateCode = (typeof OnlineState)[keyof typeof OnlineState];

/** Labels of {@link OnlineState} (devices-and-commerce section 4). */
export const onlineStateLabels: readonly EnumMember<OnlineStateCode>[] = [
  { value: 1, zh: '在线', en: 'Online' },
  { value: 2, zh: '离线', en: 'Offline' },
];

/** Device state: 0 not active, 1 normal, 2 expired (devices-and-commerce section 4). */
export const DeviceState = { NotActive: 0, Normal: 1, Expired: 2 } as const;
export type DeviceStateCode = (typeof DeviceState)[keyof typeof DeviceState];

/** Labels of {@link DeviceState} (devices-and-commerce section 4). */
export const deviceStateLabels: readonly EnumMember<DeviceStateCode>[] = [
  { value: 0, zh: '未激活', en: 'Not active' },
  { value: 1, zh: '正常', en: 'Normal' },
  { value: 2, zh: '已过期', en: 'Expired' },
];

/** Operating system family of a device; decides which actions it supports (devices-and-commerce sections 3 and 6). */
export const SystemType = { Android: 'android', Linux: 'linux' } as const;
export type SystemTypeCode = (typeof SystemType)[keyof typeof SystemType];

/** Labels of {@link SystemType} (devices-and-commerce section 3). */
export const systemTypeLabels: readonly EnumMember<SystemTypeCode>[] = [
  { value: 'android', zh: '安卓', en: 'Android' },
  { value: 'linux', zh: 'Linux', en: 'Linux' },
];

/** Device country setting, domestic or abroad (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const Country = { Domestic: 'domestic', Abroad: 'abroad' } as const;
export type CountryCode = (typeof Country)[keyof typeof Country];

/** Labels of {@link Country} (devices-and-commerce section 3). */
export const countryLabels: readonly EnumMember<CountryCode>[] = [
  { value: 'domestic', zh: '国内', en: 'Domestic' },
  { value: 'abroad', zh: '海外', en: 'Abroad' },
];

/** Device network type: 0 unknown, 1 mobile, 2 wifi, 3 ethernet (devices-and-commerce section 4). */
export const NetworkType = { Unknown: 0, Mobile: 1, Wifi: 2, Ethernet: 3 } as const;
export type NetworkTypeCode = (typeof NetworkType)[keyof typeof NetworkType];

/** Labels of {@link NetworkType} (devices-and-commerce section 4). */
export const networkTypeLabels: readonly EnumMember<NetworkTypeCode>[] = [
  { value: 0, zh: '未知', en: 'Unknown' },
  { value: 1, zh: '移动网络', en: 'Mobile' },
  { value: 2, zh: 'WiFi', en: 'Wi-Fi' },
  { value: 3, zh: '以太网', en: 'Ethernet' },
];

// The labels are the spec's; they differ from Linux `ps` for D, T and X, and the spec's reading is kept.
/** Process state letters of the runtime process list (devices-and-commerce section 3). */
export const ProcessState = {
  Sleeping: 'S',
  Running: 'R',
  Dead: 'D',
  Idle: 'I',
  Timeout: 'T',
  Quit: 'Z',
  Ruin: 'X',
} as const;
export type ProcessStateCode = (typeof ProcessState)[keyof typeof ProcessState];

/** Labels of {@link ProcessState} (devices-and-commerce section 3). */
export const processStateLabels: readonly EnumMember<ProcessStateCode>[] = [
  { value: 'S', zh: '睡眠', en: 'Sleeping' },
  { value: 'R', zh: '运行', en: 'Running' },
  { value: 'D', zh: '死亡', en: 'Dead' },
  { value: 'I', zh: '空闲', en: 'Idle' },
  { value: 'T', zh: '超时', en: 'Timeout' },
  { value: 'Z', zh: '退出', en: 'Quit' },
  { value: 'X', zh: '销毁', en: 'Ruin' },
];

/** Selection mode of a bulk device action: false by selection, true by query (devices-and-commerce section 4). */
export const ControlType = { BySelection: false, ByQuery: true } as const;
export type ControlTypeCode = (typeof ControlType)[keyof typeof ControlType];

/** Labels of {@link ControlType} (devices-and-commerce section 4). */
export const controlTypeLabels: readonly FlagMember<ControlTypeCode>[] = [
  { value: false, zh: '按勾选', en: 'By selection' },
  { value: true, zh: '按查询条件', en: 'By query' },
];

// ---------------------------------------------------------------------------------------------------
// Organisations and platform
// ---------------------------------------------------------------------------------------------------

// The row action offered is the opposite: "freeze" on an unfrozen row, "unfreeze" on a frozen one.
/** Organisation freeze state: 1 unfrozen, 2 frozen (platform-core section 4, devices-and-commerce section 4). */
export const FreezeState = { Unfrozen: 1, Frozen: 2 } as const;
export type FreezeStateCode = (typeof FreezeState)[keyof typeof FreezeState];

/** Labels of {@link FreezeState} (platform-core section 4). */
export const freezeStateLabels: readonly EnumMember<FreezeStateCode>[] = [
  { value: 1, zh: '未冻结', en: 'Unfrozen' },
  { value: 2, zh: '已冻结', en: 'Frozen' },
];

/** Console language sent to /common/modify-language: 1 Chinese, 2 English (platform-core section 4, devices-and-commerce section 9). */
export const Language = { Chinese: 1, English: 2 } as const;
export type LanguageCode = (typeof Language)[keyof typeof Language];

/** Labels of {@link Language} (platform-core section 4). */
export const languageLabels: readonly EnumMember<LanguageCode>[] = [
  { value: 1, zh: '中文', en: 'Chinese' },
  { value: 2, zh: '英文', en: 'English' },
];

// ---------------------------------------------------------------------------------------------------
// Firmware, apps, files, logos and pushes
// ---------------------------------------------------------------------------------------------------

// The spec names the types without codes; the codes are ours and keep the spec's spelling (system, mcu, GNSS, 4G).
/** Firmware image type: system, mcu, GNSS or 4G (devices-and-commerce section 3). */
export const FirmwareType = { System: 'system', Mcu: 'mcu', Gnss: 'GNSS', Lte: '4G' } as const;
export type FirmwareTypeCode = (typeof FirmwareType)[keyof typeof FirmwareType];

/** Labels of {@link FirmwareType} (devices-and-commerce section 3). */
export const firmwareTypeLabels: readonly EnumMember<FirmwareTypeCode>[] = [
  { value: 'system', zh: '系统固件', en: 'System' },
  { value: 'mcu', zh: 'MCU固件', en: 'MCU' },
  { value: 'GNSS', zh: 'GNSS固件', en: 'GNSS' },
  { value: '4G', zh: '4G固件', en: '4G' },
];

/** Firmware image source (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const FirmwareSource = { PlatformPush: 'platform_push', SelfUpload: 'self_upload', Custom: 'custom' } as const;
export type FirmwareSourceCode = (typeof FirmwareSource)[keyof typeof FirmwareSource];

/** Labels of {@link FirmwareSource} (devices-and-commerce section 3). */
export const firmwareSourceLabels: readonly EnumMember<FirmwareSourceCode>[] = [
  { value: 'platform_push', zh: '平台推送', en: 'Platform push' },
  { value: 'self_upload', zh: '自行上传', en: 'Self upload' },
  { value: 'custom', zh: '定制', en: 'Custom' },
];

// The numbered reading is kept. The spec's second, unnumbered reading also names "awaiting confirmation"
// and "developing"; they have no code and are not members.
/** Custom firmware order state, 0 to 7 (devices-and-commerce section 4). */
export const CustomFirmwareOrderState = {
  Pending: 0,
  Cancelled: 1,
  Refused: 2,
  Paid: 3,
  DevelopmentFinished: 4,
  AllFinished: 5,
  ToPay: 6,
  PayPending: 7,
} as const;
export type CustomFirmwareOrderStateCode = (typeof CustomFirmwareOrderState)[keyof typeof CustomFirmwareOrderState];

/** Labels of {@link CustomFirmwareOrderState} (devices-and-commerce section 4). */
export const customFirmwareOrderStateLabels: readonly EnumMember<CustomFirmwareOrderStateCode>[] = [
  { value: 0, zh: '待处理', en: 'Pending' },
  { value: 1, zh: '已取消', en: 'Cancelled' },
  { value: 2, zh: '已拒绝', en: 'Refused' },
  { value: 3, zh: '已支付', en: 'Paid' },
  { value: 4, zh: '开发完成', en: 'Development finished' },
  { value: 5, zh: '全部完成', en: 'All finished' },
  { value: 6, zh: '待支付', en: 'To pay' },
  { value: 7, zh: '线下转账确认中', en: 'Pay pending (offline transfer confirming)' },
];

/** Customer opinion on a custom firmware order: 0 confirm, 1 refuse (devices-and-commerce section 4). */
export const OrderOpinion = { Confirm: 0, Refuse: 1 } as const;
export type OrderOpinionCode = (typeof OrderOpinion)[keyof typeof OrderOpinion];

/** Labels of {@link OrderOpinion} (devices-and-commerce section 4). */
export const orderOpinionLabels: readonly EnumMember<OrderOpinionCode>[] = [
  { value: 0, zh: '确认', en: 'Confirm' },
  { value: 1, zh: '拒绝', en: 'Refuse' },
];

/** App type, system or general (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const AppType = { System: 'system', General: 'general' } as const;
export type AppTypeCode = (typeof AppType)[keyof typeof AppType];

/** Labels of {@link AppType} (devices-and-commerce section 3). */
export const appTypeLabels: readonly EnumMember<AppTypeCode>[] = [
  { value: 'system', zh: '系统应用', en: 'System' },
  { value: 'general', zh: '普通应用', en: 'General' },
];

/** File-library entry type, file or folder (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const FileType = { File: 'file', Folder: 'folder' } as const;
export type FileTypeCode = (typeof FileType)[keyof typeof FileType];

/** Labels of {@link FileType} (devices-and-commerce section 3). */
export const fileTypeLabels: readonly EnumMember<FileTypeCode>[] = [
  { value: 'file', zh: '文件', en: 'File' },
  { value: 'folder', zh: '文件夹', en: 'Folder' },
];

/** Logo entry type, logo or boot animation (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const LogoType = { Logo: 'logo', BootAnimation: 'boot_animation' } as const;
export type LogoTypeCode = (typeof LogoType)[keyof typeof LogoType];

/** Labels of {@link LogoType} (devices-and-commerce section 3). */
export const logoTypeLabels: readonly EnumMember<LogoTypeCode>[] = [
  { value: 'logo', zh: '开机Logo', en: 'Logo' },
  { value: 'boot_animation', zh: '开机动画', en: 'Boot animation' },
];

/** Logo or animation production state: 0 in production, 1 complete, 2 failed (devices-and-commerce section 4). */
export const LogoState = { InProduction: 0, Complete: 1, Failed: 2 } as const;
export type LogoStateCode = (typeof LogoState)[keyof typeof LogoState];

/** Labels of {@link LogoState} (devices-and-commerce section 4). */
export const logoStateLabels: readonly EnumMember<LogoStateCode>[] = [
  { value: 0, zh: '制作中', en: 'In production' },
  { value: 1, zh: '已完成', en: 'Complete' },
  { value: 2, zh: '制作失败', en: 'Failed' },
];

/** Push result of a push log entry: 0 fail, 1 success, 2 pushing (devices-and-commerce section 4). */
export const PushResult = { Fail: 0, Success: 1, Pushing: 2 } as const;
export type PushResultCode = (typeof PushResult)[keyof typeof PushResult];

/** Labels of {@link PushResult} (devices-and-commerce section 4). */
export const pushResultLabels: readonly EnumMember<PushResultCode>[] = [
  { value: 0, zh: '推送失败', en: 'Fail' },
  { value: 1, zh: '推送成功', en: 'Success' },
  { value: 2, zh: '推送中', en: 'Pushing' },
];

// The spec also reads an empty value as preparing; callers map a missing value to `Preparing`.
/** Install result of a push log entry: 0 finished, 1 failure, 2 installing, -1 preparing (devices-and-commerce section 4). */
export const InstallResult = { Finished: 0, Failure: 1, Installing: 2, Preparing: -1 } as const;
export type InstallResultCode = (typeof InstallResult)[keyof typeof InstallResult];

/** Labels of {@link InstallResult} (devices-and-commerce section 4). */
export const installResultLabels: readonly EnumMember<InstallResultCode>[] = [
  { value: 0, zh: '安装完成', en: 'Finished' },
  { value: 1, zh: '安装失败', en: 'Failure' },
  { value: 2, zh: '安装中', en: 'Installing' },
  { value: -1, zh: '准备中', en: 'Preparing' },
];

/** Download state of a push log entry, 0 to 7 (devices-and-commerce section 4). */
export const DownloadState = {
  Downloading: 0,
  Waiting: 1,
  DownloadSuccess: 2,
  Failed: 3,
  UpgradeSuccess: 4,
  UpgradeFailed: 5,
  Upgrading: 6,
  DuplicatedDownload: 7,
} as const;
export type DownloadStateCode = (typeof DownloadState)[keyof typeof DownloadState];

/** Labels of {@link DownloadState} (devices-and-commerce section 4). */
export const downloadStateLabels: readonly EnumMember<DownloadStateCode>[] = [
  { value: 0, zh: '下载中', en: 'Downloading' },
  { value: 1, zh: '等待中', en: 'Waiting' },
  { value: 2, zh: '下载成功', en: 'Download success' },
  { value: 3, zh: '下载失败', en: 'Failed' },
  { value: 4, zh: '升级成功', en: 'Upgrade success' },
  { value: 5, zh: '升级失败', en: 'Upgrade failed' },
  { value: 6, zh: '升级中', en: 'Upgrading' },
  { value: 7, zh: '重复下载', en: 'Duplicated download' },
];

// ---------------------------------------------------------------------------------------------------
// Billing, orders and invoices
// ---------------------------------------------------------------------------------------------------

/** Payment (trade) state of an order or bill (devices-and-commerce section 4). */
export const PaymentState = { Success: 'SUCCESS', NotPay: 'NOT_PAY', Closed: 'CLOSED' } as const;
export type PaymentStateCode = (typeof PaymentState)[keyof typeof PaymentState];

/** Labels of {@link PaymentState} (devices-and-commerce section 4). */
export const paymentStateLabels: readonly EnumMember<PaymentStateCode>[] = [
  { value: 'SUCCESS', zh: '支付成功', en: 'Paid' },
  { value: 'NOT_PAY', zh: '未支付', en: 'Not paid' },
  { value: 'CLOSED', zh: '已关闭', en: 'Closed' },
];

/** Pay method: alipay or offline bank transfer (devices-and-commerce sections 4 and 9). */
export const PayMethod = { Alipay: 'alipay', Offline: 'offline' } as const;
export type PayMethodCode = (typeof PayMethod)[keyof typeof PayMethod];

/** Labels of {@link PayMethod} (devices-and-commerce sections 4 and 9). */
export const payMethodLabels: readonly EnumMember<PayMethodCode>[] = [
  { value: 'alipay', zh: '支付宝', en: 'Alipay' },
  { value: 'offline', zh: '线下转账', en: 'Offline transfer' },
];

/** Invoiced flag of an order: false to invoice, true invoiced (devices-and-commerce section 4). */
export const InvoiceState = { ToInvoice: false, Invoiced: true } as const;
export type InvoiceStateCode = (typeof InvoiceState)[keyof typeof InvoiceState];

/** Labels of {@link InvoiceState} (devices-and-commerce section 4). */
export const invoiceStateLabels: readonly FlagMember<InvoiceStateCode>[] = [
  { value: false, zh: '待开票', en: 'To invoice' },
  { value: true, zh: '已开票', en: 'Invoiced' },
];

/** Invoice type: PLAIN ordinary VAT invoice, VAT special VAT invoice (devices-and-commerce section 4). */
export const InvoiceType = { Plain: 'PLAIN', Vat: 'VAT' } as const;
export type InvoiceTypeCode = (typeof InvoiceType)[keyof typeof InvoiceType];

/** Labels of {@link InvoiceType} (devices-and-commerce section 4). */
export const invoiceTypeLabels: readonly EnumMember<InvoiceTypeCode>[] = [
  { value: 'PLAIN', zh: '增值税普通发票', en: 'Ordinary VAT invoice' },
  { value: 'VAT', zh: '增值税专用发票', en: 'Special VAT invoice' },
];

/** Purchase (order) type codes (devices-and-commerce section 9); `zxj_` codes are the juxin card family. */
export const PurchaseType = {
  Flow: 'flow',
  MonthlyFunctionFee: 'monthly_function_fee',
  UnifySim: 'unify_sim',
  Sim: 'sim',
  PushTicket: 'push_ticket',
  CustomMade: 'custom_made',
  SpringCard: 'spring_card',
  ZxjFlow: 'zxj_flow',
  ZxjMonthlyFunctionFee: 'zxj_monthly_function_fee',
  ZxjUnifySim: 'zxj_unify_sim',
  ZxjSim: 'zxj_sim',
  IsoBusActivationCode: 'iso_bus_activation_code',
} as const;
export type PurchaseTypeCode = (typeof PurchaseType)[keyof typeof PurchaseType];

/** Labels of {@link PurchaseType} (devices-and-commerce section 9). */
export const purchaseTypeLabels: readonly EnumMember<PurchaseTypeCode>[] = [
  { value: 'flow', zh: '流量充值', en: 'Traffic top-up' },
  { value: 'monthly_function_fee', zh: '月功能费', en: 'Monthly function fee' },
  { value: 'unify_sim', zh: '统一购卡', en: 'Unified card purchase' },
  { value: 'sim', zh: '购卡', en: 'Card purchase' },
  { value: 'push_ticket', zh: '推送券', en: 'Push coupon' },
  { value: 'custom_made', zh: '固件定制', en: 'Custom firmware' },
  { value: 'spring_card', zh: '春卡', en: 'Spring card' },
  { value: 'zxj_flow', zh: '聚信卡流量充值', en: 'Juxin traffic top-up' },
  { value: 'zxj_monthly_function_fee', zh: '聚信卡月功能费', en: 'Juxin monthly function fee' },
  { value: 'zxj_unify_sim', zh: '聚信卡统一购卡', en: 'Juxin unified card purchase' },
  { value: 'zxj_sim', zh: '聚信卡购卡', en: 'Juxin card purchase' },
  { value: 'iso_bus_activation_code', zh: 'ISOBUS激活码', en: 'ISOBUS activation code' },
];

/** Price units of bill and order lines (devices-and-commerce section 9). */
export const PriceUnit = { Gb: 'GB', Portion: 'portion', YuanPerGb: 'yuan/GB', YuanPerPortion: 'yuan/portion' } as const;
export type PriceUnitCode = (typeof PriceUnit)[keyof typeof PriceUnit];

/** Labels of {@link PriceUnit} (devices-and-commerce section 9). */
export const priceUnitLabels: readonly EnumMember<PriceUnitCode>[] = [
  { value: 'GB', zh: 'GB', en: 'GB' },
  { value: 'portion', zh: '份', en: 'Portion' },
  { value: 'yuan/GB', zh: '元/GB', en: 'Yuan/GB' },
  { value: 'yuan/portion', zh: '元/份', en: 'Yuan/portion' },
];

/** Order demand state: 0 temp store, 1 not approved, 2 rejected, 3 approved, 4 finished (devices-and-commerce section 4). */
export const OrderDemandState = { TempStore: 0, NotApproved: 1, Rejected: 2, Approved: 3, Finished: 4 } as const;
export type OrderDemandStateCode = (typeof OrderDemandState)[keyof typeof OrderDemandState];

/** Labels of {@link OrderDemandState} (devices-and-commerce section 4). */
export const orderDemandStateLabels: readonly EnumMember<OrderDemandStateCode>[] = [
  { value: 0, zh: '暂存', en: 'Temporarily stored' },
  { value: 1, zh: '未审核', en: 'Not approved' },
  { value: 2, zh: '已驳回', en: 'Rejected' },
  { value: 3, zh: '已审核', en: 'Approved' },
  { value: 4, zh: '已完成', en: 'Finished' },
];

/** Order demand kind: trial production, rework, official (devices-and-commerce section 4; the spec gives no codes, these are ours). */
export const DemandKind = { Trial: 'trial', Rework: 'rework', Official: 'official' } as const;
export type DemandKindCode = (typeof DemandKind)[keyof typeof DemandKind];

/** Labels of {@link DemandKind} (devices-and-commerce section 4). */
export const demandKindLabels: readonly EnumMember<DemandKindCode>[] = [
  { value: 'trial', zh: '试产', en: 'Trial production' },
  { value: 'rework', zh: '返工', en: 'Rework' },
  { value: 'official', zh: '正式生产', en: 'Official' },
];

/** Field types of an order-demand form template (devices-and-commerce section 3). */
export const FormFieldType = {
  Text: 'text',
  Textarea: 'textarea',
  Select: 'select',
  Checkbox: 'checkbox',
  Date: 'date',
  Upload: 'upload',
} as const;
export type FormFieldTypeCode = (typeof FormFieldType)[keyof typeof FormFieldType];

/** Labels of {@link FormFieldType} (devices-and-commerce section 3). */
export const formFieldTypeLabels: readonly EnumMember<FormFieldTypeCode>[] = [
  { value: 'text', zh: '单行文本', en: 'Text' },
  { value: 'textarea', zh: '多行文本', en: 'Text area' },
  { value: 'select', zh: '下拉选择', en: 'Select' },
  { value: 'checkbox', zh: '多选框', en: 'Checkbox' },
  { value: 'date', zh: '日期', en: 'Date' },
  { value: 'upload', zh: '文件上传', en: 'Upload' },
];

/** Licence (activation code) status: 0 unused, 1 used, 2 distributed (devices-and-commerce section 4). */
export const LicenceStatus = { Unused: 0, Used: 1, Distributed: 2 } as const;
export type LicenceStatusCode = (typeof LicenceStatus)[keyof typeof LicenceStatus];

/** Labels of {@link LicenceStatus} (devices-and-commerce section 4). */
export const licenceStatusLabels: readonly EnumMember<LicenceStatusCode>[] = [
  { value: 0, zh: '未使用', en: 'Unused' },
  { value: 1, zh: '已使用', en: 'Used' },
  { value: 2, zh: '已分配', en: 'Distributed' },
];

// ---------------------------------------------------------------------------------------------------
// SIM and IoT cards
// ---------------------------------------------------------------------------------------------------

/** Card status of a link card: 10 testable .. 50 account closed (devices-and-commerce section 4). */
export const CardStatus = {
  Testable: 10,
  NotUsed: 20,
  InUse: 30,
  Deactivated: 35,
  Stopped: 40,
  AccountClosed: 50,
} as const;
export type CardStatusCode = (typeof CardStatus)[keyof typeof CardStatus];

/** Labels of {@link CardStatus} (devices-and-commerce section 4). */
export const cardStatusLabels: readonly EnumMember<CardStatusCode>[] = [
  { value: 10, zh: '可测试', en: 'Testable' },
  { value: 20, zh: '未使用', en: 'Not used' },
  { value: 30, zh: '使用中', en: 'In use' },
  { value: 35, zh: '已停用', en: 'Deactivated' },
  { value: 40, zh: '已停机', en: 'Stopped' },
  { value: 50, zh: '已销户', en: 'Account closed' },
];

/** Carrier-side real status of a link card: 10 test period .. 700 abnormal stop (devices-and-commerce section 4). */
export const RealStatus = {
  TestPeriod: 10,
  QuietPeriod: 20,
  Stopped: 40,
  AccountClosed: 50,
  InUse: 100,
  PartlyInUse: 150,
  ActiveStop: 200,
  QuotaStop: 300,
  SignalControlStop: 400,
  ReplacedBindingStop: 500,
  RealNameStop: 600,
  AbnormalStop: 700,
} as const;
export type RealStatusCode = (typeof RealStatus)[keyof typeof RealStatus];

/** Labels of {@link RealStatus} (devices-and-commerce section 4). */
export const realStatusLabels: readonly EnumMember<RealStatusCode>[] = [
  { value: 10, zh: '测试期', en: 'Test period' },
  { value: 20, zh: '沉默期', en: 'Quiet period' },
  { value: 40, zh: '已停机', en: 'Stopped' },
  { value: 50, zh: '已销户', en: 'Account closed' },
  { value: 100, zh: '使用中', en: 'In use' },
  { value: 150, zh: '部分使用中', en: 'Partly in use' },
  { value: 200, zh: '主动停机', en: 'Active stop' },
  { value: 300, zh: '达量停机', en: 'Stop at data quota' },
  { value: 400, zh: '信控停机', en: 'Signal-control stop' },
  { value: 500, zh: '换绑停机', en: 'Replaced-binding stop' },
  { value: 600, zh: '实名制停机', en: 'Real-name stop' },
  { value: 700, zh: '异常停机', en: 'Abnormal stop' },
];

/** Reason of a card status change (devices-and-commerce section 4; the spec gives no codes, these string codes are ours). */
export const StatusChangeReason = {
  FirstDataRecord: 'first_data_record',
  CarrierStatusPush: 'carrier_status_push',
  SilenceExpire: 'silence_expire',
  Manage: 'manage',
  TestFlowDepleted: 'test_flow_depleted',
} as const;
export type StatusChangeReasonCode = (typeof StatusChangeReason)[keyof typeof StatusChangeReason];

/** Labels of {@link StatusChangeReason} (devices-and-commerce section 4). */
export const statusChangeReasonLabels: readonly EnumMember<StatusChangeReasonCode>[] = [
  { value: 'first_data_record', zh: '首条流量记录', en: 'First data record' },
  { value: 'carrier_status_push', zh: '运营商状态推送', en: 'Carrier status push' },
  { value: 'silence_expire', zh: '沉默期到期', en: 'Silence expired' },
  { value: 'manage', zh: '管理操作', en: 'Manage' },
  { value: 'test_flow_depleted', zh: '测试流量用尽', en: 'Test flow depleted' },
];

// The spec lists CM, CU, CT, AL beside CMCC, CUCC, CTCC, VNO (section 3) and mobile (4G only), unicom, telecom,
// virtual (section 9). The lists are paired in order, so AL is the virtual operator. Mobile cards are 4G only.
/** Carrier short code of a SIM card (devices-and-commerce sections 3 and 9). */
export const Carrier = { ChinaMobile: 'CM', ChinaUnicom: 'CU', ChinaTelecom: 'CT', Virtual: 'AL' } as const;
export type CarrierCode = (typeof Carrier)[keyof typeof Carrier];

/** Labels of {@link Carrier} (devices-and-commerce sections 3 and 9). */
export const carrierLabels: readonly EnumMember<CarrierCode>[] = [
  { value: 'CM', zh: '中国移动', en: 'China Mobile' },
  { value: 'CU', zh: '中国联通', en: 'China Unicom' },
  { value: 'CT', zh: '中国电信', en: 'China Telecom' },
  { value: 'AL', zh: '虚拟运营商', en: 'Virtual operator' },
];

/** Carrier long code of a SIM card, the other code set of {@link Carrier} paired in listed order (devices-and-commerce section 3). */
export const CarrierOperator = { ChinaMobile: 'CMCC', ChinaUnicom: 'CUCC', ChinaTelecom: 'CTCC', Virtual: 'VNO' } as const;
export type CarrierOperatorCode = (typeof CarrierOperator)[keyof typeof CarrierOperator];

/** Labels of {@link CarrierOperator} (devices-and-commerce sections 3 and 9). */
export const carrierOperatorLabels: readonly EnumMember<CarrierOperatorCode>[] = [
  { value: 'CMCC', zh: '中国移动', en: 'China Mobile' },
  { value: 'CUCC', zh: '中国联通', en: 'China Unicom' },
  { value: 'CTCC', zh: '中国电信', en: 'China Telecom' },
  { value: 'VNO', zh: '虚拟运营商', en: 'Virtual network operator' },
];

/** Combo (tariff package) type of a card (devices-and-commerce section 9). */
export const ComboType = {
  SingleCard: 'SC',
  SingleDirectional: 'SCD',
  SameTierPool: 'SF',
  PoolDirectional: 'SFD',
  UnifiedPool: 'UP',
  UnifiedDirectional: 'UPG',
} as const;
export type ComboTypeCode = (typeof ComboType)[keyof typeof ComboType];

/** Labels of {@link ComboType} (devices-and-commerce section 9). */
export const comboTypeLabels: readonly EnumMember<ComboTypeCode>[] = [
  { value: 'SC', zh: '单卡', en: 'Single card' },
  { value: 'SCD', zh: '单卡定向', en: 'Single directional' },
  { value: 'SF', zh: '同档流量池', en: 'Same-tier pool' },
  { value: 'SFD', zh: '流量池定向', en: 'Pool directional' },
  { value: 'UP', zh: '统一流量池', en: 'Unified pool' },
  { value: 'UPG', zh: '统一流量池定向', en: 'Unified directional' },
];

// Codes are ours. The spec ends its list with "industrial variants" without naming them; here they are one
// `industrial` value.
/** SIM form factor (devices-and-commerce sections 3 and 9). */
export const SimFormFactor = {
  Nano: 'nano',
  Micro: 'micro',
  Normal: 'normal',
  SimPlus56: 'simplus56',
  SimPlus22: 'simplus22',
  Industrial: 'industrial',
} as const;
export type SimFormFactorCode = (typeof SimFormFactor)[keyof typeof SimFormFactor];

/** Labels of {@link SimFormFactor} (devices-and-commerce section 9). */
export const simFormFactorLabels: readonly EnumMember<SimFormFactorCode>[] = [
  { value: 'nano', zh: 'Nano卡', en: 'Nano SIM' },
  { value: 'micro', zh: 'Micro卡', en: 'Micro SIM' },
  { value: 'normal', zh: '标准卡', en: 'Standard SIM' },
  { value: 'simplus56', zh: '贴片卡 SIMplus56', en: 'SIMplus56' },
  { value: 'simplus22', zh: '贴片卡 SIMplus22', en: 'SIMplus22' },
  { value: 'industrial', zh: '工业级卡', en: 'Industrial' },
];

// The spec lists the codes and the labels but says the pairing is not shown; they are paired here in
// listed order ('00' test, '10' in use, ... '99' inventory, '15' unknown).
/** Spring card account status code (devices-and-commerce section 4). */
export const SpringCardStatus = {
  Test: '00',
  InUse: '10',
  Stopped: '02',
  PreCancelled: '03',
  Cancelled: '04',
  SilentPeriod: '11',
  ShutdownWarranty: '12',
  Inventory: '99',
  Unknown: '15',
} as const;
export type SpringCardStatusCode = (typeof SpringCardStatus)[keyof typeof SpringCardStatus];

/** Labels of {@link SpringCardStatus} (devices-and-commerce section 4; pairing in listed order, see the const). */
export const springCardStatusLabels: readonly EnumMember<SpringCardStatusCode>[] = [
  { value: '00', zh: '测试期', en: 'Test' },
  { value: '10', zh: '在用', en: 'In use' },
  { value: '02', zh: '停机', en: 'Stopped' },
  { value: '03', zh: '预销户', en: 'Pre-cancelled' },
  { value: '04', zh: '已销户', en: 'Cancelled' },
  { value: '11', zh: '沉默期', en: 'Silent period' },
  { value: '12', zh: '停机保号', en: 'Shutdown warranty' },
  { value: '99', zh: '库存', en: 'Inventory' },
  { value: '15', zh: '未知', en: 'Unknown' },
];

/** Spring card action: '00' restart, '01' shutdown (devices-and-commerce section 4; at most 2 a day for mobile cards, section 9). */
export const SpringCardAction = { Restart: '00', Shutdown: '01' } as const;
export type SpringCardActionCode = (typeof SpringCardAction)[keyof typeof SpringCardAction];

/** Labels of {@link SpringCardAction} (devices-and-commerce section 4). */
export const springCardActionLabels: readonly EnumMember<SpringCardActionCode>[] = [
  { value: '00', zh: '复机', en: 'Restart' },
  { value: '01', zh: '停机', en: 'Shutdown' },
];

// The spec lists the labels but says the pairing is not shown; they are paired here in listed order
// (0 cancelled ... 6 to sync).
/** Juxin card status, 0 to 6 (devices-and-commerce section 4). */
export const JuxinCardStatus = {
  Cancelled: 0,
  ToActivate: 1,
  Normal: 2,
  Stopped: 3,
  Abnormal: 4,
  ShutdownWarranty: 5,
  ToSync: 6,
} as const;
export type JuxinCardStatusCode = (typeof JuxinCardStatus)[keyof typeof JuxinCardStatus];

/** Labels of {@link JuxinCardStatus} (devices-and-commerce section 4; pairing in listed order, see the const). */
export const juxinCardStatusLabels: readonly EnumMember<JuxinCardStatusCode>[] = [
  { value: 0, zh: '已销户', en: 'Cancelled' },
  { value: 1, zh: '待激活', en: 'To activate' },
  { value: 2, zh: '正常', en: 'Normal' },
  { value: 3, zh: '停机', en: 'Stopped' },
  { value: 4, zh: '异常', en: 'Abnormal' },
  { value: 5, zh: '停机保号', en: 'Shutdown warranty' },
  { value: 6, zh: '待同步', en: 'To sync' },
];

// The spec lists the labels but says the pairing is not shown; they are paired here in listed order
// (100 adding, 200 removing, 300 add failed, 400 delete failed, 500 added).
/** State of a directional group's target address, 100 to 500 (devices-and-commerce section 4). */
export const GroupAddressState = { Adding: 100, Removing: 200, AddFailed: 300, DeleteFailed: 400, Added: 500 } as const;
export type GroupAddressStateCode = (typeof GroupAddressState)[keyof typeof GroupAddressState];

/** Labels of {@link GroupAddressState} (devices-and-commerce section 4; pairing in listed order, see the const). */
export const groupAddressStateLabels: readonly EnumMember<GroupAddressStateCode>[] = [
  { value: 100, zh: '添加中', en: 'Adding' },
  { value: 200, zh: '删除中', en: 'Removing' },
  { value: 300, zh: '添加失败', en: 'Add failed' },
  { value: 400, zh: '删除失败', en: 'Delete failed' },
  { value: 500, zh: '已添加', en: 'Added' },
];

/** Kind of a directional target address, IP or domain (devices-and-commerce section 3; the spec gives no codes, these are ours). */
export const AddressType = { Ip: 'ip', Domain: 'domain' } as const;
export type AddressTypeCode = (typeof AddressType)[keyof typeof AddressType];

/** Labels of {@link AddressType} (devices-and-commerce section 3). */
export const addressTypeLabels: readonly EnumMember<AddressTypeCode>[] = [
  { value: 'ip', zh: 'IP地址', en: 'IP address' },
  { value: 'domain', zh: '域名', en: 'Domain name' },
];

/** Source of a directional target address (devices-and-commerce section 3). */
export const AddressSource = { UserDefined: 'user_defined', AliyunDefined: 'aliyun_defined' } as const;
export type AddressSourceCode = (typeof AddressSource)[keyof typeof AddressSource];

/** Labels of {@link AddressSource} (devices-and-commerce section 3). */
export const addressSourceLabels: readonly EnumMember<AddressSourceCode>[] = [
  { value: 'user_defined', zh: '用户自定义', en: 'User defined' },
  { value: 'aliyun_defined', zh: '阿里云预置', en: 'Aliyun defined' },
];

/** Import type of a directional target address (devices-and-commerce section 3). */
export const ImportType = { New: 'NEW', Transfer: 'TRANSFER' } as const;
export type ImportTypeCode = (typeof ImportType)[keyof typeof ImportType];

/** Labels of {@link ImportType} (devices-and-commerce section 3). */
export const importTypeLabels: readonly EnumMember<ImportTypeCode>[] = [
  { value: 'NEW', zh: '新增', en: 'New' },
  { value: 'TRANSFER', zh: '转入', en: 'Transfer' },
];

// ---------------------------------------------------------------------------------------------------
// True point (high-precision positioning time-pool)
// ---------------------------------------------------------------------------------------------------

/** True-point service state: 1 to be activated, 2 in service, 3 expired (devices-and-commerce section 4). */
export const TruePointServiceState = { ToBeActivated: 1, InService: 2, Expired: 3 } as const;
export type TruePointServiceStateCode = (typeof TruePointServiceState)[keyof typeof TruePointServiceState];

/** Labels of {@link TruePointServiceState} (devices-and-commerce section 4). */
export const truePointServiceStateLabels: readonly EnumMember<TruePointServiceStateCode>[] = [
  { value: 1, zh: '待激活', en: 'To be activated' },
  { value: 2, zh: '服务中', en: 'In service' },
  { value: 3, zh: '已过期', en: 'Expired' },
];

// The spec's "(also multiple)" gives no code and is not a member here.
/** True-point activation mode: 1 manual, 2 auto (devices-and-commerce section 4). */
export const ActivationMode = { Manual: 1, Auto: 2 } as const;
export type ActivationModeCode = (typeof ActivationMode)[keyof typeof ActivationMode];

/** Labels of {@link ActivationMode} (devices-and-commerce section 4). */
export const activationModeLabels: readonly EnumMember<ActivationModeCode>[] = [
  { value: 1, zh: '手动激活', en: 'Manual' },
  { value: 2, zh: '自动激活', en: 'Auto' },
];

/** True-point precision: CM centimetre, DM decimetre (devices-and-commerce section 4). */
export const Precision = { Centimetre: 'CM', Decimetre: 'DM' } as const;
export type PrecisionCode = (typeof Precision)[keyof typeof Precision];

/** Labels of {@link Precision} (devices-and-commerce section 4). */
export const precisionLabels: readonly EnumMember<PrecisionCode>[] = [
  { value: 'CM', zh: '厘米级', en: 'Centimetre' },
  { value: 'DM', zh: '分米级', en: 'Decimetre' },
];

/** True-point account state: 1 enable, 2 disable, 3 lock (devices-and-commerce section 4). */
export const TruePointAccountState = { Enabled: 1, Disabled: 2, Locked: 3 } as const;
export type TruePointAccountStateCode = (typeof TruePointAccountState)[keyof typeof TruePointAccountState];

/** Labels of {@link TruePointAccountState} (devices-and-commerce section 4). */
export const truePointAccountStateLabels: readonly EnumMember<TruePointAccountStateCode>[] = [
  { value: 1, zh: '启用', en: 'Enabled' },
  { value: 2, zh: '禁用', en: 'Disabled' },
  { value: 3, zh: '锁定', en: 'Locked' },
];

/** True-point service coverage: 0 not covered, 1 covered (devices-and-commerce section 4). */
export const Coverage = { NotCovered: 0, Covered: 1 } as const;
export type CoverageCode = (typeof Coverage)[keyof typeof Coverage];

/** Labels of {@link Coverage} (devices-and-commerce section 4). */
export const coverageLabels: readonly EnumMember<CoverageCode>[] = [
  { value: 0, zh: '未覆盖', en: 'Not covered' },
  { value: 1, zh: '已覆盖', en: 'Covered' },
];

// ---------------------------------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------------------------------

/** Statistic period of a report query (devices-and-commerce section 9). */
export const StatisticPeriod = { Date: 'DATE', Week: 'WEEK', Month: 'MONTH', Year: 'YEAR' } as const;
export type StatisticPeriodCode = (typeof StatisticPeriod)[keyof typeof StatisticPeriod];

/** Labels of {@link StatisticPeriod} (devices-and-commerce section 9). */
export const statisticPeriodLabels: readonly EnumMember<StatisticPeriodCode>[] = [
  { value: 'DATE', zh: '按日', en: 'By day' },
  { value: 'WEEK', zh: '按周', en: 'By week' },
  { value: 'MONTH', zh: '按月', en: 'By month' },
  { value: 'YEAR', zh: '按年', en: 'By year' },
];

/** Usage-duration buckets of the platform usage report (devices-and-commerce section 9; the spec gives no codes, these are ours). */
export const ReportBucket = {
  UnderOneWeek: 'under_1_week',
  AtLeastOneWeek: 'at_least_1_week',
  OneMonth: '1_month',
  ThreeMonths: '3_months',
  OneYear: '1_year',
} as const;
export type ReportBucketCode = (typeof ReportBucket)[keyof typeof ReportBucket];

/** Labels of {@link ReportBucket} (devices-and-commerce section 9). */
export const reportBucketLabels: readonly EnumMember<ReportBucketCode>[] = [
  { value: 'under_1_week', zh: '不足1周', en: 'Under 1 week' },
  { value: 'at_least_1_week', zh: '1周及以上', en: 'At least 1 week' },
  { value: '1_month', zh: '1个月', en: '1 month' },
  { value: '3_months', zh: '3个月', en: '3 months' },
  { value: '1_year', zh: '1年', en: '1 year' },
];

// ---------------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------------

// Each key is the camelCase name of its const (`Result` -> `result`, labels `resultLabels`).
/** Every labels array by enumeration name, for lookup by servers and consoles (both specs, sections 3, 4 and 9). */
export const enumCatalogue = {
  result: resultLabels,
  onlineState: onlineStateLabels,
  deviceState: deviceStateLabels,
  systemType: systemTypeLabels,
  country: countryLabels,
  networkType: networkTypeLabels,
  processState: processStateLabels,
  controlType: controlTypeLabels,
  freezeState: freezeStateLabels,
  language: languageLabels,
  firmwareType: firmwareTypeLabels,
  firmwareSource: firmwareSourceLabels,
  customFirmwareOrderState: customFirmwareOrderStateLabels,
  orderOpinion: orderOpinionLabels,
  appType: appTypeLabels,
  fileType: fileTypeLabels,
  logoType: logoTypeLabels,
  logoState: logoStateLabels,
  pushResult: pushResultLabels,
  installResult: installResultLabels,
  downloadState: downloadStateLabels,
  paymentState: paymentStateLabels,
  payMethod: payMethodLabels,
  invoiceState: invoiceStateLabels,
  invoiceType: invoiceTypeLabels,
  purchaseType: purchaseTypeLabels,
  priceUnit: priceUnitLabels,
  orderDemandState: orderDemandStateLabels,
  demandKind: demandKindLabels,
  formFieldType: formFieldTypeLabels,
  licenceStatus: licenceStatusLabels,
  cardStatus: cardStatusLabels,
  realStatus: realStatusLabels,
  statusChangeReason: statusChangeReasonLabels,
  carrier: carrierLabels,
  carrierOperator: carrierOperatorLabels,
  comboType: comboTypeLabels,
  simFormFactor: simFormFactorLabels,
  springCardStatus: springCardStatusLabels,
  springCardAction: springCardActionLabels,
  juxinCardStatus: juxinCardStatusLabels,
  groupAddressState: groupAddressStateLabels,
  addressType: addressTypeLabels,
  addressSource: addressSourceLabels,
  importType: importTypeLabels,
  truePointServiceState: truePointServiceStateLabels,
  activationMode: activationModeLabels,
  precision: precisionLabels,
  truePointAccountState: truePointAccountStateLabels,
  coverage: coverageLabels,
  statisticPeriod: statisticPeriodLabels,
  reportBucket: reportBucketLabels,
} as const;

/** Name of an enumeration in {@link enumCatalogue}. */
export type EnumName = keyof typeof enumCatalogue;
