/** Where the reader pages live (platform-core section 2) and how they carry the document to show. */
export const detailPath = (id: number) => `/document-library-detail/index?id=${id}`;
export const gitbookPath = (categoryId: number, id: number) => `/document-library-detail-gitbook/index?category=${categoryId}&id=${id}`;

// The detail page's language switch reloads without the query string (platform-core section 2), so the
// open document is remembered for the tab here.
const LAST_DOCUMENT_KEY = 'document-library-last';

/** A positive integer query parameter, or undefined. */
export function idParam(search: string, name: string): number | undefined {
  const raw = new URLSearchParams(search).get(name);
  return raw && /^[1-9][0-9]{0,9}$/.test(raw) ? Number(raw) : undefined;
}

export function rememberDocument(at: { id: number; category?: number | undefined }): void {
  sessionStorage.setItem(LAST_DOCUMENT_KEY, JSON.stringify(at));
}

export function lastDocument(): { id?: number; category?: number } {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(LAST_DOCUMENT_KEY) ?? '{}') as { id?: unknown; category?: unknown };
    return {
      ...(typeof parsed.id === 'number' ? { id: parsed.id } : {}),
      ...(typeof parsed.category === 'number' ? { category: parsed.category } : {}),
    };
  } catch {
    return {};
  }
}
