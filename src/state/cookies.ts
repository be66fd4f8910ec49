/** Reads a cookie of this page. */
export function readCookie(name: string): string | undefined {
  const prefix = `${encodeURIComponent(name)}=`;
  const hit = document.cookie.split('; ').find((c) => c.startsWith(prefix));
  return hit === undefined ? undefined : decodeURIComponent(hit.slice(prefix.length));
}

/** Writes a cookie under /user/; `days` undefined makes it last for the browser session. */
export function writeCookie(name: string, value: string, days?: number): void {
  const expires = days === undefined ? '' : `; max-age=${Math.round(days * 86_400)}`;
  document.cookie = `${encodeURIComponent(name)}=${encodeURIComponent(value)}; path=/; SameSite=Lax${expires}`;
}

export function deleteCookie(name: string): void {
  document.cookie = `${encodeURIComponent(name)}=; path=/; max-age=0`;
}
