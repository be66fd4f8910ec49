import type { GroupCreateBody, GroupMembers, GroupQuery, GroupUpdateBody, GroupView, SavedView, SavedViewSaveBody, SavedViewState } from '../../protocol/api/groups.ts';
import type { Page } from '../../protocol/api/devices.ts';
import { cleanFilter } from './devices.ts';
import { request } from './request.ts';

export type { GroupQuery, GroupView, SavedView, SavedViewState };

/** Dynamic groups (protocol/api/groups.ts). */
export const groupApi = {
  list: (pageNum = 1, pageSize = 100, name = '') => request<Page<GroupView>>({ method: 'POST', url: '/device-group/list', data: { pageNum, pageSize, ...(name ? { name } : {}) } }),
  create: (body: GroupCreateBody) => request<GroupView>({ method: 'POST', url: '/device-group/create', data: { ...body, query: cleanFilter(body.query) }, silent: true }),
  update: (body: GroupUpdateBody) => request<GroupView>({ method: 'POST', url: '/device-group/update', data: { ...body, query: cleanFilter(body.query) }, silent: true }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: `/device-group/${id}` }),
  members: (body: { id?: number; query?: GroupQuery; pageNum?: number; pageSize?: number }) =>
    request<GroupMembers>({ method: 'POST', url: '/device-group/members', data: body.query ? { ...body, query: cleanFilter(body.query) } : body }),
};

/** Saved views of the device list. */
export const viewApi = {
  list: () => request<SavedView[]>({ method: 'POST', url: '/saved-view/list' }),
  save: (body: SavedViewSaveBody) => request<SavedView>({ method: 'POST', url: '/saved-view/save', data: { ...body, state: { ...body.state, filters: cleanFilter(body.state.filters) } }, silent: true }),
  remove: (id: number) => request<null>({ method: 'DELETE', url: `/saved-view/${id}` }),
};
