import type { DeviceFieldAddBody, DeviceFieldSetBody, DeviceFieldUpdateBody, DeviceFieldView } from '../../protocol/api/device-fields.ts';
import { request } from './request.ts';

export type { DeviceFieldView };

/** Custom device fields (issue 23): defined per organisation (device_field), set per device (device_remark). */
export const deviceFieldApi = {
  /** The fields of the caller's organisations; with `sn`, those that apply to that device. */
  list: (sn?: string) => request<DeviceFieldView[]>({ method: 'POST', url: '/device-field/list', data: sn === undefined ? {} : { sn } }),
  add: (input: DeviceFieldAddBody) => request<DeviceFieldView>({ method: 'POST', url: '/device-field/add', data: input, silent: true }),
  update: (input: DeviceFieldUpdateBody) => request<DeviceFieldView>({ method: 'POST', url: '/device-field/update', data: input, silent: true }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: `/device-field/${id}` }),
  /** A device's values ('' clears one); answers the values set. */
  set: (input: DeviceFieldSetBody) => request<Record<string, string>>({ method: 'POST', url: '/device-field/set', data: input, silent: true }),
};
