import type { FastifyRequest } from 'fastify';
import type { MessageLanguage } from '../../protocol/index.ts';

/** The console's language cookie (src/i18n/language.ts writes it on path /, so API calls carry it). */
export const LANGUAGE_COOKIE = 'language';

/** Account language values (platform-core section 4): 1 Chinese, 2 English. */
const ACCOUNT_LANGUAGE: Readonly<Record<number, MessageLanguage>> = { 1: 'zh', 2: 'en' };

function cookieLanguage(header: string | undefined): MessageLanguage | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === LANGUAGE_COOKIE && (value === 'zh' || value === 'en')) return value;
  }
  return undefined;
}

/** The best of zh and en in an Accept-Language header by its q-values; undefined when neither is there. */
export function acceptedLanguage(header: string | undefined): MessageLanguage | undefined {
  let best: { lang: MessageLanguage; q: number } | undefined;
  for (const item of (header ?? '').split(',')) {
    const [range = '', ...options] = item.trim().toLowerCase().split(';');
    const base = range.split('-')[0];
    if (base !== 'zh' && base !== 'en') continue;
    const qOption = options.map((o) => o.trim()).find((o) => o.startsWith('q='));
    const q = qOption === undefined ? 1 : Number(qOption.slice(2));
    if (Number.isFinite(q) && q > 0 && (best === undefined || q > best.q)) best = { lang: base, q };
  }
  return best?.lang;
}

/**
 * The language of a request's messages: the caller's saved account language (/common/modify-language),
 * else the console's language cookie, else Accept-Language, else English (platform-core section 9).
 */
export function requestLanguage(req: FastifyRequest): MessageLanguage {
  const saved = req.caller === undefined ? undefined : ACCOUNT_LANGUAGE[req.caller.language];
  if (saved) return saved;
  const header = req.headers.cookie;
  return cookieLanguage(typeof header === 'string' ? header : undefined) ?? acceptedLanguage(req.headers['accept-language']) ?? 'en';
}
