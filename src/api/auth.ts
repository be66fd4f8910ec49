import type { SsoConfig } from '../../protocol/api/sso.ts';
import { request } from './request.ts';

export interface Captcha {
  readonly enabled: boolean;
  readonly id: string;
  /** data: URL of the code image (a GIF). */
  readonly image: string;
}

export interface LoginResponse {
  readonly token: string;
  readonly list: readonly { readonly permissionList: readonly string[] }[];
  readonly roles: readonly string[];
  readonly org: { readonly id: number; readonly name: string };
  readonly id: number;
  /** Its organisation requires two-step verification it has not set up (issue 23): it holds no key until it does. */
  readonly totpSetupRequired?: boolean;
}

export interface AccountDetail {
  readonly id: number;
  readonly account: string;
  readonly nickname: string;
  readonly roles: readonly string[];
  readonly org: { readonly id: number; readonly name: string };
  readonly permissionList: readonly string[];
  readonly updatePasswordLastTime: number;
  readonly expireTime: number | null;
  readonly languageType: number;
  readonly customerType: number;
}

/** Lowercase hex SHA-256 of the typed password: what the console sends instead of the password. */
export async function hashPassword(password: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(password));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export const authApi = {
  captcha: () => request<Captcha>({ method: 'GET', url: '/login/captcha' }),
  login: (body: { username: string; id: string; password: string; authCode: string; totpCode?: string }) =>
    request<LoginResponse>({ method: 'POST', url: '/login/userLogin', data: body }),
  accountDetail: () => request<AccountDetail>({ method: 'GET', url: '/home/getAccountDetail' }),
  logout: () => request<null>({ method: 'GET', url: '/home/logout', silent: true }),
  /** Whether the login page offers single sign-on (issue 23), and under which name. */
  ssoConfig: () => request<SsoConfig>({ method: 'GET', url: '/login/oidc/config', silent: true }),
  /** Stores the account's language (1 Chinese, 2 English): the server answers labels (permissions, documents) in it. */
  modifyLanguage: (languageType: 1 | 2) => request<null>({ method: 'POST', url: '/common/modify-language', data: { languageType }, silent: true }),
};
