// Dynamic groups and saved views of the device list (issue 23): the REST shapes both the server and the
// console hold. A dynamic group is a device query with a name, evaluated whenever it is used (a bulk
// command, a push, a campaign's late joiners); a saved view is the device list's filters, columns and sort.
import { type Static, Type } from 'typebox';
import { DEVICE_SORT_FIELDS, DeviceSelectBody, type DeviceView, type Page } from './devices.ts';
import { Id, OneOf, PagingProperties } from './common.ts';

/** Longest name of a group or a view. */
export const MAX_GROUP_NAME = 64;
const Name = Type.String({ minLength: 1, maxLength: MAX_GROUP_NAME });

/**
 * A group's query: the device list's filters (model, system type, versions, online state, country, ...,
 * with the list's meaning: text is a case-insensitive substring) and `orgSubtree`, an organisation whose
 * devices and those of every organisation below it match. Always within the group's organisation.
 */
export const GroupQuery = Type.Object(
  {
    ...DeviceSelectBody.properties,
    orgSubtree: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type GroupQuery = Static<typeof GroupQuery>;

/** POST /device-group/create. */
export const GroupCreateBody = Type.Object({ name: Name, query: GroupQuery }, { additionalProperties: false });
export type GroupCreateBody = Static<typeof GroupCreateBody>;

/** POST /device-group/update: a new name and query for the group. */
export const GroupUpdateBody = Type.Object({ id: Id, name: Name, query: GroupQuery }, { additionalProperties: false });
export type GroupUpdateBody = Static<typeof GroupUpdateBody>;

/** POST /device-group/list: a page of the groups of the caller's organisations. */
export const GroupListBody = Type.Object({ ...PagingProperties, name: Type.Optional(Type.String({ maxLength: MAX_GROUP_NAME })) }, { additionalProperties: false });
export type GroupListBody = Static<typeof GroupListBody>;

/** POST /device-group/members: a page of the devices the group holds now (or of a query not saved yet). */
export const GroupMembersBody = Type.Object(
  { ...PagingProperties, id: Type.Optional(Id), query: Type.Optional(GroupQuery) },
  { additionalProperties: false },
);
export type GroupMembersBody = Static<typeof GroupMembersBody>;

/** DELETE /device-group/{id} and GET /device-group/{id}. */
export const GroupIdPath = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,10}$' }) });
export type GroupIdPath = Static<typeof GroupIdPath>;

/** A group as the calls answer it, with how many devices it holds now. */
export interface GroupView {
  readonly id: number;
  readonly orgId: number;
  readonly orgName: string;
  readonly name: string;
  readonly query: GroupQuery;
  readonly createdBy: number | null;
  readonly members: number;
  readonly createTime: number;
  readonly updateTime: number;
}

/** Answer of /device-group/members: a page of the device list's rows. */
export type GroupMembers = Page<DeviceView>;

// ---- saved views ------------------------------------------------------------------------------------------

/** What a saved view holds: the device list's filters, its visible columns (by key) and its sort. */
export const SavedViewState = Type.Object(
  {
    filters: DeviceSelectBody,
    columns: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 80 }),
    sortField: Type.Optional(OneOf(DEVICE_SORT_FIELDS)),
    sortOrder: Type.Optional(OneOf(['asc', 'desc'])),
  },
  { additionalProperties: false },
);
export type SavedViewState = Static<typeof SavedViewState>;

/** POST /saved-view/save: a new view, or (with `id`) the caller's own view replaced. */
export const SavedViewSaveBody = Type.Object(
  { id: Type.Optional(Id), name: Name, shared: Type.Boolean(), state: SavedViewState },
  { additionalProperties: false },
);
export type SavedViewSaveBody = Static<typeof SavedViewSaveBody>;

/** A saved view as /saved-view/list answers it. */
export interface SavedView {
  readonly id: number;
  readonly orgId: number;
  readonly name: string;
  readonly shared: boolean;
  /** The caller saved it (and so may change or delete it). */
  readonly mine: boolean;
  readonly owner: string;
  readonly state: SavedViewState;
  readonly updateTime: number;
}

/** DELETE /saved-view/{id}. */
export const SavedViewIdPath = GroupIdPath;
