import { notifications } from '../layout/toast.ts';
import { failureText, type MessageParams } from '../../protocol/index.ts';
import { i18next } from '../i18n/index.ts';
import { session, endSession } from '../state/session.ts';

/** Spec constants (platform-core sections 7-9). */
export const HTTP_TIMEOUT_MS = 300_000;
export const TOAST_MS = 5_000;
export const RELOAD_AFTER_LOGOUT_MS = 3_000;
export const IGNORE_ERROR_RESET_MS = 5_000;
const SUCCESS_CODES = new Set<unknown>([20000, 0, '0', 200, '200']);
const LOGIN_EXPIRED_CODE = 3;

/** A call the server answered with a failure code, or a transport failure. */
export class RequestError extends Error {
  readonly code: number | string | undefined;
  /** The server's catalogue key and parameters, when it answered with a failure envelope (forms map them onto fields). */
  readonly key: string | undefined;
  readonly params: MessageParams | undefined;
  constructor(message: string, code?: number | string, env?: Pick<Envelope, 'key' | 'params'>) {
    super(message);
    this.name = 'RequestError';
    this.code = code;
    this.key = env?.key;
    this.params = env?.params;
  }
}

export interface RequestConfig {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  /** GET query parameters; null and empty values are dropped. */
  readonly params?: Record<string, string | number | boolean | null | undefined>;
  readonly data?: unknown;
  readonly responseType?: 'json' | 'blob';
  /** Do not toast this call's failure. */
  readonly silent?: boolean;
}

let ignoreErrors = false;
let expiryShown = false;

/** Suppresses error toasts for a moment; the flag resets itself after 5 s. */
export function ignoreErrorsBriefly(): void {
  ignoreErrors = true;
  setTimeout(() => (ignoreErrors = false), IGNORE_ERROR_RESET_MS);
}

/** Keys whose toast replaces every older one: after a lock-out the earlier "wrong password" toasts are stale. */
const IMPORTANT_KEYS = new Set<string | undefined>(['auth.locked']);

function toast(message: string, important = false): void {
  notifications.show({ color: 'red', message, autoClose: TOAST_MS, important });
}

/** Builds the query string, dropping null and empty values. */
export function queryString(params: RequestConfig['params']): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    q.append(key, String(value));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

interface Envelope {
  code?: number | string;
  data?: unknown;
  message?: string;
  /** The message's catalogue key and parameters (protocol/messages; docs/DECISIONS.md, "Errors as keys"). */
  key?: string;
  params?: MessageParams;
  success?: boolean;
}

/**
 * The text of a server's failure in the console's current language: its `key` rendered with `params` from
 * the shared catalogue, else the server's own `message` (a key this build does not know), else "Error".
 * Every place that shows a server error goes through here, so a language switch covers them all.
 */
export function serverMessage(env: Pick<Envelope, 'key' | 'params' | 'message'>): string {
  return failureText(i18next.language === 'zh' ? 'zh' : 'en', env) ?? 'Error';
}

/** The one REST client: X-Token, the spec's timeout, envelope unwrapping and error handling. */
export async function request<T>(config: RequestConfig): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new RequestError(i18next.t('error.timeout'))), HTTP_TIMEOUT_MS);
  const headers: Record<string, string> = {};
  if (session.token) headers['X-Token'] = session.token;
  let body: string | undefined;
  if (config.method !== 'GET' && config.data !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(config.data);
  }
  const url = config.method === 'GET' ? `${config.url}${queryString(config.params)}` : config.url;
  let response: Response;
  try {
    response = await fetch(url, { method: config.method, headers, body, signal: controller.signal });
  } catch (err) {
    const message = err instanceof RequestError ? err.message : 'Network Error';
    // 'Network Error' and 'Cancel' are silent (platform-core section 8).
    if (message !== 'Network Error' && message !== 'Cancel' && !config.silent) toast(message);
    throw new RequestError(message);
  } finally {
    clearTimeout(timer);
  }
  if (config.responseType === 'blob' && response.ok) return (await response.blob()) as T;
  let env: Envelope;
  try {
    env = (await response.json()) as Envelope;
  } catch {
    const message = `${response.status} ${response.statusText}`.trim() || 'Error';
    if (!config.silent) toast(message);
    throw new RequestError(message, response.status);
  }
  // A REST answer, not wire message data: T is the route's contract type (protocol/api), which the server's
  // schema serialises; the REST side of issue 17 owns validating it.
  if (SUCCESS_CODES.has(env.code) || env.success === true) return env.data as T;
  const message = serverMessage(env);
  if (env.code === LOGIN_EXPIRED_CODE) {
    endSession();
    if (!expiryShown) {
      expiryShown = true;
      toast(message);
    }
    setTimeout(() => window.location.reload(), RELOAD_AFTER_LOGOUT_MS);
  } else if (!config.silent && !ignoreErrors) {
    toast(message, IMPORTANT_KEYS.has(env.key));
  }
  throw new RequestError(message, env.code, env);
}
