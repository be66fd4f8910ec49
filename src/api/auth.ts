import type { AccountDetail, CaptchaView, LoginAnswer, LoginBody, ModifyLanguageBody } from '../../protocol/api/auth.ts';
import type { SsoConfig } from '../../protocol/api/sso.ts';
import { request } from './request.ts';

// Shapes of the login and account calls: protocol/api/auth.ts.
export type { AccountDetail };
export type Captcha = CaptchaView;
export type LoginResponse = LoginAnswer;

/** Lowercase hex SHA-256 of the typed password: what the console sends instead of the password. */
export async function hashPassword(password: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(password));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

export const authApi = {
  captcha: () => request<Captcha>({ method: 'GET', url: '/login/captcha' }),
  login: (body: LoginBody) =>
    request<LoginResponse>({ method: 'POST', url: '/login/userLogin', data: body }),
  accountDetail: () => request<AccountDetail>({ method: 'GET', url: '/home/getAccountDetail' }),
  logout: () => request<null>({ method: 'GET', url: '/home/logout', silent: true }),
  /** Whether the login page offers single sign-on (issue 23), and under which name. */
  ssoConfig: () => request<SsoConfig>({ method: 'GET', url: '/login/oidc/config', silent: true }),
  /** Stores the account's language (1 Chinese, 2 English): the server answers labels (permissions, documents) in it. */
  modifyLanguage: (languageType: ModifyLanguageBody['languageType']) => request<null>({ method: 'POST', url: '/common/modify-language', data: { languageType } satisfies ModifyLanguageBody, silent: true }),
};
