/** A country's name in the viewer's language from its ISO 3166-1 alpha-2 code (falls back to the code). */
export function countryName(code: string, language: string): string {
  try {
    return new Intl.DisplayNames([language], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The flag of an alpha-2 code as regional-indicator symbols ("CN" -> 🇨🇳); empty for anything else. */
export function countryFlag(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return '';
  return String.fromCodePoint(...[...code].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}
