/** Field checks of the authority forms that the shared rules (components/use-console-form.ts) do not cover. */

/** A role description holds more than the default 128 characters. */
export const MAX_SUMMARY = 512;
// Admin accounts may be abroad: a phone in international form, not only the mainland's 11 digits.
const PHONE = /^[0-9+\-() ]{0,32}$/;

export function checkPhone(value: string): string | undefined {
  return PHONE.test(value.trim()) ? undefined : 'authority.badPhone';
}
