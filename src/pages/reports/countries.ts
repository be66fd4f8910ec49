/** A country's name in the viewer's language from its ISO 3166-1 alpha-2 code (falls back to the code). */
export function countryName(code: string, language: string): string {
  try {
    return new Intl.DisplayNames([language], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

