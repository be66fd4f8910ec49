import type { EnumMember } from './labels.ts';

/** Command result codes (devices-and-commerce section 4). */
export const Result = {
  Success: 0,
  Fail: 1,
  MessageError: 2,
  UnknownMessageId: 3,
  DeviceNotLoggedIn: 4,
  DeviceOffline: 5,
  Pushing: 6,
} as const;
export type ResultCode = (typeof Result)[keyof typeof Result];

export const resultLabels: readonly EnumMember<ResultCode>[] = [
  { value: 0, zh: '成功', en: 'Success' },
  { value: 1, zh: '失败', en: 'Fail' },
  { value: 2, zh: '消息错误', en: 'Message error' },
  { value: 3, zh: '消息ID无法识别', en: 'Message id not recognised' },
  { value: 4, zh: '设备未登录', en: 'Device not logged in' },
  { value: 5, zh: '设备离线', en: 'The equipment is offline' },
  { value: 6, zh: '推送中', en: 'Pushing' },
];

/** Device online state: 1 online, 2 offline. */
export const OnlineState = { Online: 1, Offline: 2 } as const;
export type OnlineStateCode = (typeof OnlineState)[keyof typeof OnlineState];

export const onlineStateLabels: readonly EnumMember<OnlineStateCode>[] = [
  { value: 1, zh: '在线', en: 'Online' },
  { value: 2, zh: '离线', en: 'Offline' },
];

/** Device state: 0 not active, 1 normal, 2 expired. */
export const DeviceState = { NotActive: 0, Normal: 1, Expired: 2 } as const;
export type DeviceStateCode = (typeof DeviceState)[keyof typeof DeviceState];

export const deviceStateLabels: readonly EnumMember<DeviceStateCode>[] = [
  { value: 0, zh: '未激活', en: 'Not active' },
  { value: 1, zh: '正常', en: 'Normal' },
  { value: 2, zh: '已过期', en: 'Expired' },
];

/** Operating system family of a device; decides which actions it supports. */
export const SystemType = { Android: 'android', Linux: 'linux' } as const;
export type SystemTypeCode = (typeof SystemType)[keyof typeof SystemType];

export const systemTypeLabels: readonly EnumMember<SystemTypeCode>[] = [
  { value: 'android', zh: '安卓', en: 'Android' },
  { value: 'linux', zh: 'Linux', en: 'Linux' },
];
