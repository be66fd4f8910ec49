import { proxy } from 'valtio';
import { deleteCookie, readCookie, writeCookie } from './cookies.ts';

/** Cookie holding the session token (platform-core section 4). */
export const TOKEN_COOKIE = 'Admin-Token';
/** The login page, loaded afresh (not routed to) when a session ends, so nothing of it stays in memory. */
export const LOGIN_PAGE_URL = '/user/login';
/** localStorage entry whose change in another tab logs this tab out. */
export const LOGIN_STORAGE_KEY = 'login-stamp';

export interface SessionUser {
  readonly id: number;
  readonly account: string;
  readonly nickname: string;
  readonly orgId: number;
  readonly orgName: string;
  readonly updatePasswordLastTime: number;
  readonly expireTime: number | null;
  /** Decides the top bar's icon and whether expiry reminders apply (default 1). */
  readonly customerType: number;
}

interface SessionState {
  token: string | undefined;
  user: SessionUser | undefined;
  roles: string[];
  permissions: string[];
}

/** The logged-in user. Components read it with useSnapshot; only the functions below change it. */
export const session = proxy<SessionState>({ token: readCookie(TOKEN_COOKIE), user: undefined, roles: [], permissions: [] });

export function beginSession(token: string): void {
  session.token = token;
  writeCookie(TOKEN_COOKIE, token);
  localStorage.setItem(LOGIN_STORAGE_KEY, String(Date.now()));
}

export function setUser(user: SessionUser, roles: readonly string[], permissions: readonly string[]): void {
  session.user = user;
  session.roles = [...roles];
  session.permissions = [...permissions];
}

/** Forgets the token, roles and user (logout, expiry). */
export function endSession(): void {
  session.token = undefined;
  session.user = undefined;
  session.roles = [];
  session.permissions = [];
  deleteCookie(TOKEN_COOKIE);
  localStorage.setItem(LOGIN_STORAGE_KEY, String(Date.now()));
}
