/**
 * Loads a lazy page's code together with what the login page, the shell and the dashboard do without
 * (issue 21): the styles of every Mantine component outside src/styles/mantine-base.ts (one CSS chunk)
 * and the pages' texts of the current language (each fetched once). So a page never renders a component
 * before its stylesheet, nor a key before its text. The styles' import is started first: their <link>
 * goes into the document before the page's own CSS, which keeps the page's CSS modules after Mantine's,
 * as main.tsx orders them.
 */
export function withPageAssets<T>(load: () => Promise<T>): Promise<T> {
  const styles = import('../styles/mantine-rest.ts');
  // The i18n module is the entry's: imported here only when a page loads (the route table stays importable
  // without a document, e.g. in src/router/pages.test.ts).
  const texts = import('../i18n/index.ts').then((m) => m.loadPageTexts());
  return Promise.all([styles, texts, load()]).then(([, , loaded]) => loaded);
}
