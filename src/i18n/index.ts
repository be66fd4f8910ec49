import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { readCookie, writeCookie } from '../state/cookies.ts';
import { LANGUAGE_COOKIE, type Language, pickLanguage } from './language.ts';
import type { Messages } from './locales/en.ts';

export const currentLanguage: Language = pickLanguage(readCookie(LANGUAGE_COOKIE), navigator.languages);

/**
 * Each language's texts are a chunk of their own, fetched on start: a page carries only the language it
 * shows (issue 21; both were 41 kB gzip of the entry). A switch reloads the page, which fetches the other.
 */
const catalogues: Record<Language, () => Promise<Messages>> = {
  en: () => import('./locales/en.ts').then((m) => m.en),
  zh: () => import('./locales/zh.ts').then((m) => m.zh),
};

/**
 * Settles once the current language's texts are in i18next. main.tsx renders the console only then, so
 * no component ever shows a key; it rejects when the chunk cannot be fetched.
 */
export const i18nReady: Promise<void> = catalogues[currentLanguage]().then(async (translation) => {
  await i18next.use(initReactI18next).init({
    resources: { [currentLanguage]: { translation } },
    lng: currentLanguage,
    // zh.ts is typed by the English keys, so the current language has every key: nothing to fall back to.
    fallbackLng: false,
    interpolation: { escapeValue: false },
  });
});
document.documentElement.lang = currentLanguage === 'zh' ? 'zh-CN' : 'en';

/** Switches language the spec's way: remember it and reload the page. */
export function switchLanguage(lang: Language): void {
  writeCookie(LANGUAGE_COOKIE, lang, 365);
  window.location.reload();
}

export { i18next };
