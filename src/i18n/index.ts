import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { readCookie, writeCookie } from '../state/cookies.ts';
import { LANGUAGE_COOKIE, type Language, pickLanguage } from './language.ts';
import { en } from './locales/en.ts';
import { zh } from './locales/zh.ts';

export const currentLanguage: Language = pickLanguage(readCookie(LANGUAGE_COOKIE), navigator.languages);

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: currentLanguage,
  fallbackLng: 'en',
  interpolation: { escapeValue: false },
});
document.documentElement.lang = currentLanguage === 'zh' ? 'zh-CN' : 'en';

/** Switches language the spec's way: remember it and reload the page. */
export function switchLanguage(lang: Language): void {
  writeCookie(LANGUAGE_COOKIE, lang, 365);
  window.location.reload();
}

export { i18next };
