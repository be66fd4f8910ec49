// Phone, national ID, licence plate and VIN rules (devices-and-commerce section 5): one module that the
// server enforces and the console checks on blur with, so the two cannot disagree.

export const IdentityMessage = {
  Phone: 'Please enter a correct 11-digit mobile phone number',
  MainlandPhone: 'only mainland China mobile numbers supported',
  NationalId: 'ID number incorrect',
  Plate: 'licence plate incorrect',
  Vin: 'VIN must be exactly 17 characters with a correct check digit',
} as const;

/** One of the identity rules' answers. */
export type IdentityProblem = (typeof IdentityMessage)[keyof typeof IdentityMessage];

/** The checks a dynamic order-demand text field may ask for. */
export const IDENTITY_RULES = ['phone', 'mainlandPhone', 'nationalId', 'plate', 'vin'] as const;
export type IdentityRule = (typeof IDENTITY_RULES)[number];

const PHONE = /^1[0-9]{10}$/;
const MAINLAND_PHONE = /^1[345789][0-9]{9}$/;

/** True for 11 digits starting 1 (the spec's plain phone rule). */
export function isPhone(text: string): boolean {
  return PHONE.test(text);
}

/** True for the stricter variant: 1, then one of 3 4 5 7 8 9, then 9 digits. */
export function isMainlandPhone(text: string): boolean {
  return MAINLAND_PHONE.test(text);
}

/** The spec's message for a phone number, or undefined when it fits; the stricter variant speaks only once the shape is right. */
export function checkPhone(text: string, strict: boolean): IdentityProblem | undefined {
  if (!isPhone(text)) return IdentityMessage.Phone;
  if (strict && !isMainlandPhone(text)) return IdentityMessage.MainlandPhone;
  return undefined;
}

// GB 11643-1999: 17 digits weighted 2^(17-i) mod 11, and the check character indexed by the sum mod 11.
const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2] as const;
const ID_CHECK = '10X98765432';

/** The GB 11643 check character of the first 17 digits of a national ID. */
export function nationalIdCheck(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * (ID_WEIGHTS[i] as number);
  return ID_CHECK[sum % 11] as string;
}

/**
 * True for an 18-character mainland national ID: a region code not starting 0, a real birth date from
 * 1900-01-01 up to `today` (epoch ms; the caller's clock), a 3-digit sequence and the GB 11643 check
 * character (X in either case).
 */
export function isNationalId(text: string, today: number): boolean {
  if (!/^[1-9][0-9]{16}[0-9Xx]$/.test(text)) return false;
  const y = Number(text.slice(6, 10));
  const m = Number(text.slice(10, 12));
  const d = Number(text.slice(12, 14));
  const birth = Date.UTC(y, m - 1, d);
  const date = new Date(birth);
  if (y < 1900 || date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return false;
  if (birth > today) return false;
  return nationalIdCheck(text.slice(0, 17)) === (text[17] as string).toUpperCase();
}

// Province abbreviations of mainland plates; the city letter and the serial exclude I and O (GA 36).
const PROVINCE = '[京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼]';
const LETTER = '[A-HJ-NP-Z]';
const SERIAL = '[A-HJ-NP-Z0-9]';
const ORDINARY_PLATE = new RegExp(`^${PROVINCE}${LETTER}${SERIAL}{4}(${SERIAL}|[挂学警])$`);
// New-energy plates (green): small cars D/F then 5 with the last 4 digits; large vehicles 5 digits then D/F.
const NEW_ENERGY_PLATE = new RegExp(`^${PROVINCE}${LETTER}([DF]${SERIAL}[0-9]{4}|[0-9]{5}[DF])$`);

/** True for a mainland licence plate: ordinary 7-character (blue, yellow, trailer, learner, police) or 8-character new-energy. */
export function isLicencePlate(text: string): boolean {
  const plate = text.toUpperCase();
  return ORDINARY_PLATE.test(plate) || NEW_ENERGY_PLATE.test(plate);
}

// ISO 3779 transliteration (I, O and Q are never used) and the position weights; position 9 holds the check.
const VIN_VALUE: Readonly<Record<string, number>> = {
  A: 1, B: 2, C: 3, D: 4, E: 5, F: 6, G: 7, H: 8, J: 1, K: 2, L: 3, M: 4, N: 5, P: 7, R: 9,
  S: 2, T: 3, U: 4, V: 5, W: 6, X: 7, Y: 8, Z: 9,
  '0': 0, '1': 1, '2': 2, '3': 3, '4': 4, '5': 5, '6': 6, '7': 7, '8': 8, '9': 9,
};
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;

/** The transliterated value of a VIN character, or undefined for a character a VIN never holds. */
export function vinValue(ch: string): number | undefined {
  return VIN_VALUE[ch];
}

/** The ISO 3779 / GB 16735 check character (0-9 or X) of a 17-character VIN; its 9th character is ignored. */
export function vinCheck(vin: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (VIN_VALUE[vin[i] as string] ?? 0) * (VIN_WEIGHTS[i] as number);
  const r = sum % 11;
  return r === 10 ? 'X' : String(r);
}

/** True for exactly 17 VIN characters (digits and letters without I, O, Q) whose 9th is the check character. */
export function isVin(text: string): boolean {
  const vin = text.toUpperCase();
  return /^[A-HJ-NPR-Z0-9]{17}$/.test(vin) && vin[8] === vinCheck(vin);
}

/** The spec's message for a value under a rule, or undefined when it fits; `today` dates national IDs. */
export function checkIdentity(rule: IdentityRule, text: string, today: number): IdentityProblem | undefined {
  switch (rule) {
    case 'phone':
      return checkPhone(text, false);
    case 'mainlandPhone':
      return checkPhone(text, true);
    case 'nationalId':
      return isNationalId(text, today) ? undefined : IdentityMessage.NationalId;
    case 'plate':
      return isLicencePlate(text) ? undefined : IdentityMessage.Plate;
    case 'vin':
      return isVin(text) ? undefined : IdentityMessage.Vin;
  }
}
