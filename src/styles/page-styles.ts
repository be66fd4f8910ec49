/**
 * Loads a lazy page's code together with the styles of every Mantine component outside mantine-base.ts
 * (one CSS chunk, fetched once), so a page never renders a component before its stylesheet is in. The
 * styles' import is started first: their <link> goes into the document before the page's own CSS, which
 * keeps the page's CSS modules after Mantine's as main.tsx orders them.
 */
export function withPageStyles<T>(load: () => Promise<T>): Promise<T> {
  const styles = import('./mantine-rest.ts');
  return Promise.all([styles, load()]).then(([, loaded]) => loaded);
}
