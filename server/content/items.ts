import type { Selectable } from 'kysely';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import type { ContentItemTable } from './tables.ts';
import { englishOf } from '../../protocol/index.ts';

export type ContentRow = Selectable<ContentItemTable>;

/** The five content areas: route prefix, stored kind, and their permission keys. */
export const ContentArea = {
  img: { kind: 'firmware', list: 'img_list', edit: 'img_edit', push: 'img_push' },
  app: { kind: 'app', list: 'app_list', edit: 'app_edit', push: 'app_push' },
  file: { kind: 'file', list: 'file_list', edit: 'file_edit', push: 'file_push' },
  logo: { kind: 'logo', list: 'logo_list', edit: 'logo_edit', push: 'logo_push' },
  wallpaper: { kind: 'wallpaper', list: 'wallpaper_list', edit: 'wallpaper_edit', push: 'wallpaper_push' },
} as const;
export type ContentAreaName = keyof typeof ContentArea;
export type ContentKind = (typeof ContentArea)[ContentAreaName]['kind'];

export function areaOfKind(kind: string): ContentAreaName | undefined {
  return (Object.keys(ContentArea) as ContentAreaName[]).find((a) => ContentArea[a].kind === kind);
}

export const ContentMessage = englishOf({
  Gone: 'content.gone',
  FolderDownload: 'content.folderDownload',
  TooManyDeletes: 'content.tooManyDeletes',
  BadVersion: 'content.badVersion',
  NotAnApk: 'content.notAnApk',
  OtherPackage: 'content.otherPackage',
  OlderVersion: 'content.olderVersion',
});

/** An item as the console lists it (field names in the console's camelCase). */
export function toItemView(row: ContentRow): ContentItemView {
  return {
    id: row.id,
    kind: row.kind,
    orgId: row.org_id,
    parentId: row.parent_id,
    name: row.name,
    fileName: row.file_name,
    remark: row.remark,
    size: Number(row.size),
    sha256: row.sha256,
    type: row.item_type,
    model: row.model,
    modelName: row.model_name,
    gnssModel: row.gnss_model,
    source: row.source,
    version: row.version,
    systemType: row.system_type,
    offlineInstall: row.offline_install === 1,
    autoInstall: row.auto_install === 1,
    packageName: row.package_name,
    versionName: row.version_name,
    versionCode: row.version_code,
    state: row.state,
    createTime: Number(row.created_at),
    updateTime: Number(row.updated_at),
  };
}
export type { ContentItemView };

/** An item of this kind inside the caller's organisations, or a clear refusal. */
export async function itemInScope(db: Db, caller: Caller, kind: string, id: number): Promise<ContentRow> {
  const row = await db.selectFrom('content_items').selectAll().where('id', '=', id).where('kind', '=', kind).executeTakeFirst();
  if (!row) throw new ApiError(ApiCode.NotFound, 'content.gone');
  if (!caller.scope.has(row.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  return row;
}

/** True when `version` has the format the spec gives for this firmware type (devices-and-commerce section 5). */
export { validFirmwareVersion } from '../../protocol/api/content.ts';
import type { ContentItemView } from '../../protocol/api/content.ts';
