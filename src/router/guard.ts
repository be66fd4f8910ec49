/** Paths that need no session (platform-core section 2, navigation guard). */
export const PUBLIC_PATHS: readonly string[] = ['/login', '/auth-redirect', '/gitbook', '/404', '/401', '/Introduction/', '/order-demand-detail', '/isobus-activate'];

export const HOME_PATH = '/dashboard/index';
export const LOGIN_PATH = '/login';

export type GuardDecision = { readonly kind: 'allow' } | { readonly kind: 'redirect'; readonly to: string };

/** The navigation guard: without a session every non-public path goes to /login with a redirect parameter. */
export function guard(path: string, search: string, hasSession: boolean): GuardDecision {
  if (path === '/' || path === '') return { kind: 'redirect', to: HOME_PATH };
  if (hasSession || PUBLIC_PATHS.includes(path)) return { kind: 'allow' };
  return { kind: 'redirect', to: `${LOGIN_PATH}?redirect=${encodeURIComponent(path + search)}` };
}

/** Where to go after login: the redirect parameter when it is a path of ours, else the dashboard. */
export function afterLogin(search: string): string {
  const target = new URLSearchParams(search).get('redirect');
  return target && target.startsWith('/') && !target.startsWith('//') && !target.startsWith(LOGIN_PATH) ? target : HOME_PATH;
}

/** Prefix of the redirect helper: /redirect/{path} goes to /{path} (platform-core section 2). */
export const REDIRECT_PREFIX = '/redirect/';

/** Where /redirect/{path}{search} leads: /{path}{search}, never to another site. */
export function redirectTarget(path: string, search: string): string {
  const rest = path.slice(REDIRECT_PREFIX.length).replace(/^\/+/, '');
  return `/${rest}${search}`;
}
