import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { readCookie, writeCookie } from '../state/cookies.ts';
import { LANGUAGE_COOKIE, type Language, pickLanguage } from './language.ts';
import type { BaseMessages } from './locales/en.ts';
import type { PageMessages } from './locales/pages.en.ts';
import { setServerMessages } from './server-messages.ts';

export const currentLanguage: Language = pickLanguage(readCookie(LANGUAGE_COOKIE), navigator.languages);

/**
 * Each language's texts are chunks of their own: a page carries only the language it shows (issue 21; both
 * were 41 kB gzip of the entry). The base (what the login page, the shell and the dashboard show) comes
 * on start; the pages' areas with the first page that needs them (loadPageTexts). A switch reloads.
 */
const baseTexts: Record<Language, () => Promise<BaseMessages>> = {
  // The server's message table of the language comes in the same chunk (./server-messages.ts).
  en: () =>
    import('./locales/en.ts').then((m) => {
      setServerMessages('en', m.serverEn);
      return m.enBase;
    }),
  zh: () =>
    import('./locales/zh.ts').then((m) => {
      setServerMessages('zh', m.serverZh);
      return m.zhBase;
    }),
};
const pageTexts: Record<Language, () => Promise<PageMessages>> = {
  en: () => import('./locales/pages.en.ts').then((m) => m.enPages),
  zh: () => import('./locales/pages.zh.ts').then((m) => m.zhPages),
};

/**
 * Settles once the current language's base texts are in i18next. main.tsx renders the console only then,
 * so no component ever shows a key; it rejects when the chunk cannot be fetched.
 */
export const i18nReady: Promise<void> = baseTexts[currentLanguage]().then(async (translation) => {
  await i18next.use(initReactI18next).init({
    resources: { [currentLanguage]: { translation } },
    lng: currentLanguage,
    // zh.ts is typed by the English keys, so the current language has every key: nothing to fall back to.
    fallbackLng: false,
    interpolation: { escapeValue: false },
  });
});

let pagesLoaded: Promise<void> | undefined;

/**
 * Adds the pages' areas of the current language to i18next (once; a failed fetch is tried again next
 * time). A page renders after it (src/router/page-assets.ts), so its texts are there on its first paint.
 */
export function loadPageTexts(): Promise<void> {
  pagesLoaded ??= Promise.all([i18nReady, pageTexts[currentLanguage]()]).then(
    ([, texts]) => {
      i18next.addResourceBundle(currentLanguage, 'translation', texts, true, true);
    },
    (err: unknown) => {
      pagesLoaded = undefined;
      throw err;
    },
  );
  return pagesLoaded;
}
document.documentElement.lang = currentLanguage === 'zh' ? 'zh-CN' : 'en';

/** Switches language the spec's way: remember it and reload the page. */
export function switchLanguage(lang: Language): void {
  writeCookie(LANGUAGE_COOKIE, lang, 365);
  window.location.reload();
}

export { i18next };
