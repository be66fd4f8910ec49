/** Field checks of the authority forms (platform-core section 5); each answers a translation key or nothing. */

const EMOJI = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u20e3]/u;
/** Default base rule: at most 128 characters. */
export const MAX_TEXT = 128;
export const MAX_SUMMARY = 512;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const PHONE = /^[0-9+\-() ]{0,32}$/;

export function checkName(value: string): string | undefined {
  const v = value.trim();
  if (!v) return 'authority.required';
  if (v.length > MAX_TEXT) return 'authority.tooLong';
  if (EMOJI.test(v)) return 'authority.noEmoji';
  return undefined;
}

export function checkOptionalText(value: string, max = MAX_TEXT): string | undefined {
  const v = value.trim();
  if (v.length > max) return 'authority.tooLong';
  if (EMOJI.test(v)) return 'authority.noEmoji';
  return undefined;
}

export function checkEmail(value: string): string | undefined {
  return value.trim() && !EMAIL.test(value.trim()) ? 'authority.badEmail' : undefined;
}

export function checkPhone(value: string): string | undefined {
  return PHONE.test(value.trim()) ? undefined : 'authority.badPhone';
}
