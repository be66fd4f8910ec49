import { failureMessage, isRecord } from '../../protocol/index.ts';

/** Longest parameter summary kept per entry. */
export const MAX_PARAMS = 160;
/** Longest message kept per entry. */
export const MAX_MESSAGE = 200;

/** Keys whose values never reach the timeline (credentials, keys, free text a user may paste secrets into). */
const SECRET = /pass|pwd|secret|token|key|credential|auth|cookie|sign/i;
/** Keys whose values are bulky content, summarised by their size. */
const BULKY = /^(data|content|body|line|text|payload|chunk|output)$/i;

function scalar(key: string, value: unknown): string {
  if (SECRET.test(key)) return '***';
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') {
    if (BULKY.test(key)) return `(${value.length})`;
    return value.length > 40 ? `${value.slice(0, 40)}…` : value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.length}]`;
  return '{…}';
}

/**
 * A command's parameters as one short line: `key=value` for its top-level fields, secrets masked, long
 * text cut or replaced by its length, nested objects elided. Cheap enough for the command hot path.
 */
export function summariseParams(data: unknown): string {
  if (data === null || data === undefined) return '';
  if (!isRecord(data)) return scalar('', data);
  let out = '';
  for (const [key, value] of Object.entries(data)) {
    const part = `${key}=${scalar(key, value)}`;
    out = out ? `${out} ${part}` : part;
    if (out.length >= MAX_PARAMS) return `${out.slice(0, MAX_PARAMS - 1)}…`;
  }
  return out;
}

/** The message of a reply (`data.message`), cut to {@link MAX_MESSAGE}; '' when it has none. */
export function replyMessage(data: unknown): string {
  return (failureMessage(data) ?? '').slice(0, MAX_MESSAGE);
}
