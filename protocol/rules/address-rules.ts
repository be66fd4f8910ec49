// Directional target address rules (devices-and-commerce sections 3 and 5): one module that the server
// enforces and the console checks on blur with, so the two cannot disagree.

export const AddressMessage = {
  Ip: 'IP address incorrect',
  Domain: 'domain name incorrect',
} as const;

/** One of the address rules' answers. */
export type AddressProblem = (typeof AddressMessage)[keyof typeof AddressMessage];

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const TLD = /^[a-z]{2,63}$/;

/** True for a dotted IPv4 address: four decimal octets 0-255 without leading zeros. */
export function isIpv4(text: string): boolean {
  return IPV4.test(text);
}

/** True for a domain name of two or more labels and an alphabetic top level; `*.` may lead (wildcard). */
export function isDomain(text: string): boolean {
  const name = text.toLowerCase().startsWith('*.') ? text.slice(2).toLowerCase() : text.toLowerCase();
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (labels.length < 2) return false;
  return labels.every((l) => LABEL.test(l)) && TLD.test(labels[labels.length - 1] ?? '');
}

/** The spec's message for an address that does not fit its type, or undefined when it does. */
export function checkAddress(type: 'ip' | 'domain', text: string): AddressProblem | undefined {
  if (type === 'ip') return isIpv4(text) ? undefined : AddressMessage.Ip;
  return isDomain(text) ? undefined : AddressMessage.Domain;
}
