// The per-device action timeline (issue 22): every command that reaches a device, whoever sent it and by
// whichever route, is one entry for that device. The request schema is TypeBox with its type derived; the
// answer's shapes are declared once here for the server and the console.
import { type Static, Type } from 'typebox';
import { PagingProperties } from './common.ts';

/**
 * The route a command came by: a console socket, a REST call of one device, a REST call of many (one
 * entry per device), a push campaign, a command held for an offline device and delivered at its login, or
 * a client with an API token (socket or REST).
 */
export const TIMELINE_SOURCES = ['console', 'rest', 'bulk', 'campaign', 'held', 'api'] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

const Sn = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });
const Epoch = Type.Integer({ minimum: 0 });

/** POST /device/timeline: one device's entries, newest first, optionally within [from, to] (epoch ms). */
export const TimelineBody = Type.Object(
  { sn: Sn, from: Type.Optional(Epoch), to: Type.Optional(Epoch), ...PagingProperties },
  { additionalProperties: false },
);
export type TimelineBody = Static<typeof TimelineBody>;

/** One command to one device as the timeline shows it. */
export interface TimelineEntry {
  readonly id: number;
  readonly sn: string;
  /** When the command was sent (epoch ms). */
  readonly time: number;
  /** The account that sent it, or 'platform' for the server's own work (campaigns). */
  readonly account: string;
  readonly source: TimelineSource;
  readonly msgId: number;
  /** A short summary of the command's parameters (secrets left out). */
  readonly params: string;
  /** The result code (0 success; 1 fail; 5 offline ...). */
  readonly result: number;
  /** The device's or the gateway's message, when there is one. */
  readonly message: string;
  readonly durationMs: number;
  /** The session's recording, when one was made. */
  readonly recordingId: string | null;
}
