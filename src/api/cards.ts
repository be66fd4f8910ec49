import type { CardFamilyName, ListedCard, Page } from '../../protocol/index.ts';
import type { AddedAddress, AddressBody, AddressList, CardDetail, CardListQuery, DiagnosisReport, DirectionAddress, DirectionGroup } from '../../protocol/api/cards.ts';
import type { ConsoleQuery } from '../../protocol/api/common.ts';
import { request } from './request.ts';

// Shapes of the card calls: protocol/api/cards.ts.
export type { AddressList, CardDetail, DiagnosisReport, DirectionAddress, DirectionGroup };
/** A card as the list and detail calls answer it. */
export type Card = ListedCard;
export type CardFamily = CardFamilyName;
/** A list call's filters, the page as numbers. */
export type CardQuery = ConsoleQuery<CardListQuery>;
export type NewAddress = AddressBody;

const LIST_URL: Record<CardFamily, string> = { spring: '/springCard/list', link: '/linkCard/listCardInfo', juxin: '/zxj/list' };
const CHANGE_URL: Record<CardFamily, string> = { spring: '/springCard/changeStatus', link: '/linkCard/changeStatus', juxin: '/zxj/changeStatus' };

export const cardsApi = {
  list: (family: CardFamily, q: CardQuery) => request<Page<Card>>({ method: 'GET', url: LIST_URL[family], params: { ...q } }),
  /** '01' stops, '00' restarts (the spring card's action codes, taken by every family). */
  changeStatus: (family: CardFamily, iccid: string, action: '00' | '01') => request<Card>({ method: 'POST', url: CHANGE_URL[family], data: { iccid, action } }),
  detail: (iccid: string) => request<CardDetail>({ method: 'GET', url: `/linkCard/getCardDetail/${encodeURIComponent(iccid)}` }),
  intelligentTest: (iccid: string) => request<DiagnosisReport>({ method: 'POST', url: '/linkCard/intelligentTest', data: { iccid }, silent: true }),
  /** Binds a link card to a directional group of the organisation, or unbinds it (null). */
  bindGroup: (iccid: string, groupId: number | null) => request<null>({ method: 'POST', url: '/linkCard/bindGroup', data: { iccid, groupId } }),
  groups: (pageNum: number, pageSize: number, name?: string) =>
    request<Page<DirectionGroup>>({ method: 'GET', url: '/linkCard/linkCardDirectionGroupList', params: { pageNum, pageSize, name } }),
  // Silent: the group form shows a failure on its field or as its toast.
  addGroup: (name: string, remark: string) => request<{ id: number }>({ method: 'POST', url: '/linkCard/addDirectionGroup', data: { name, remark }, silent: true }),
  updateGroup: (id: number, name: string, remark: string) => request<null>({ method: 'POST', url: '/linkCard/updateDirectionGroup', data: { id, name, remark }, silent: true }),
  deleteGroup: (id: number) => request<null>({ method: 'DELETE', url: '/linkCard/delDirectionGroup', data: { id } }),
  addresses: (groupId: number) => request<AddressList>({ method: 'GET', url: '/linkCard/listDirectionalAddress', params: { groupId } }),
  addAddress: (a: NewAddress) => request<AddedAddress>({ method: 'POST', url: '/linkCard/addDirectionalAddress', data: a }),
  deleteAddress: (id: number) => request<null>({ method: 'DELETE', url: '/linkCard/delDirectionalAddress', data: { id } }),
};

/** Bytes in 1024 units with 3 significant digits (devices-and-commerce section 9). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : Number(v.toPrecision(3))} ${units[i]}`;
}
