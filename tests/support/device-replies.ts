import { Command } from '../../protocol/index.ts';

/** A base-info reply every decoder accepts (protocol/catalogue/command-map.ts): the fields it requires. */
export const BASE_INFO_REPLY = {
  model: 'raw',
  systemType: 'android',
  systemVersion: '',
  imageVersion: '',
  networkType: 0,
  memory: { total: 0, free: 0 },
} as const;

/**
 * What a raw test device answers a command with: a reply the console's engine reads as well-formed (it
 * decodes every reply by its command, WIRE-2): base info with its required fields, any other command the
 * `{ message }` of a done reply (decoders of replies that carry nothing drop it).
 */
export function replyDataFor(msgId: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return msgId === Command.BaseInfo ? { ...BASE_INFO_REPLY, ...overrides } : { message: 'done', ...overrides };
}
