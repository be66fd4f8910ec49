/** Console languages and their spec codes (1 Chinese, 2 English). */
export type Language = 'zh' | 'en';
export const languageCode: Record<Language, 1 | 2> = { zh: 1, en: 2 };

export const LANGUAGE_COOKIE = 'language';

/** Default language: the cookie, then the browser's language, otherwise English (platform-core section 9). */
export function pickLanguage(cookieValue: string | undefined, browserLanguages: readonly string[]): Language {
  if (cookieValue === 'zh' || cookieValue === 'en') return cookieValue;
  for (const lang of browserLanguages) {
    const base = lang.toLowerCase().split('-')[0];
    if (base === 'zh' || base === 'en') return base;
  }
  return 'en';
}
