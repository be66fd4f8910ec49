// The system operation log (/operation-log/*, ours: the spec shows the screen, not the calls): request
// schemas written with TypeBox and their types derived: one definition for the server and the console. The
// entry itself is OperationLogEntry of protocol/api/reports.ts, where the report screens read it.
import { type Static, Type } from 'typebox';
import { Among, EpochMs, Id, OneOf, PagingProperties, QueryId, Text } from './common.ts';
import { EXPORT_FORMATS } from './reports.ts';

/** The HTTP methods an entry records. */
export const AUDIT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The filters of the list (times inclusive epoch ms; `path` the exact route pattern; `account` a part of the name). */
const FilterProperties = {
  account: Type.Optional(Text),
  path: Type.Optional(Text),
  startTime: Type.Optional(EpochMs),
  endTime: Type.Optional(EpochMs),
  /** The organisation (and its subtree) the entries belong to; must be in the caller's scope. */
  orgId: Type.Optional(Id),
  method: Type.Optional(Among<string>(AUDIT_METHODS)),
  target: Type.Optional(Text),
};

/** The operation log's filters, as the console holds them. */
export const OperationLogFilter = Type.Object(FilterProperties, { additionalProperties: false });
export type OperationLogFilter = Static<typeof OperationLogFilter>;

/** POST /operation-log/list. */
export const OperationLogListBody = Type.Object({ ...PagingProperties, ...FilterProperties }, { additionalProperties: false });
export type OperationLogListBody = Static<typeof OperationLogListBody>;

const Digits = Type.String({ pattern: '^[0-9]{1,15}$' });

/** GET /operation-log/export: the filters on the query string, the file format, zone and language (1 zh, 2 en). */
export const OperationLogExportQuery = Type.Object(
  {
    format: OneOf(EXPORT_FORMATS),
    account: Type.Optional(Text),
    path: Type.Optional(Text),
    startTime: Type.Optional(Digits),
    endTime: Type.Optional(Digits),
    orgId: Type.Optional(QueryId),
    method: Type.Optional(OneOf(AUDIT_METHODS)),
    target: Type.Optional(Text),
    timeZone: Type.Optional(Type.String({ maxLength: 64 })),
    lang: Type.Optional(OneOf(['1', '2'])),
  },
  { additionalProperties: false },
);
export type OperationLogExportQuery = Static<typeof OperationLogExportQuery>;
