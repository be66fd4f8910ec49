// Firmware version formats (devices-and-commerce section 5), one definition for the console's check before
// an upload starts and the server's check when the firmware is added or edited.

/** Which version forms a firmware type takes; the console names them in its message. */
export type FirmwareVersionForm = 'system' | 'mcu' | 'other';

// System firmware yyMMdd.HH with a real date and hour; mcu vX.Y; a date yyyyMMdd or vXXX.XX for the others.
const SYSTEM_VERSION = /^(\d{2})(\d{2})(\d{2})\.(\d{2})$/;
const DATE_VERSION = /^(\d{4})(\d{2})(\d{2})$/;
const V_VERSION = /^v\d{1,3}\.\d{1,2}$/;

function realDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The version form of a firmware type: system, mcu, or the date/vxxx.xx form of GNSS and 4G images. */
export function firmwareVersionForm(type: string): FirmwareVersionForm {
  return type === 'system' ? 'system' : type === 'mcu' ? 'mcu' : 'other';
}

/** True when `version` has the format the spec gives for this firmware type. */
export function validFirmwareVersion(type: string, version: string): boolean {
  const system = SYSTEM_VERSION.exec(version);
  const isSystem = !!system && realDate(2000 + Number(system[1]), Number(system[2]), Number(system[3])) && Number(system[4]) < 24;
  const date = DATE_VERSION.exec(version);
  const isDate = !!date && realDate(Number(date[1]), Number(date[2]), Number(date[3]));
  const isV = V_VERSION.test(version);
  const form = firmwareVersionForm(type);
  if (form === 'system') return isSystem || isDate;
  if (form === 'mcu') return isV;
  return isDate || isV;
}
