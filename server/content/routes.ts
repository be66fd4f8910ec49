import fs from 'node:fs';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import * as c from '../../protocol/api/content.ts';
import type { Clock } from '../../protocol/index.ts';
import { FileType, FirmwareSource, LogoState, LogoType, SystemType } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import type { UploadKindCode } from '../uploads/upload-kinds.ts';
import { readApk } from './apk.ts';
import { ContentArea, type ContentAreaName, itemInScope, toItemView, validFirmwareVersion } from './items.ts';
import { ContentRepository } from './repository.ts';

export interface ContentRouteOptions {
  readonly db: Db;
  readonly clock: Clock;
}

/** Most entries one delete takes (the contract's bound). */
export const MAX_DELETE = c.MAX_DELETE;

type FirmwareFields = c.UpdateFirmwareBody;

function targetOrg(caller: Caller, orgId: number | undefined): number {
  const org = orgId ?? caller.orgId;
  if (!caller.scope.has(org)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  return org;
}

function firmwareColumns(body: Omit<FirmwareFields, 'id'>) {
  const version = body.version.trim();
  if (!validFirmwareVersion(body.type, version)) throw new ApiError(ApiCode.BadRequest, 'content.badVersion');
  return {
    item_type: body.type,
    version,
    model: cleanText(body.model, 'field.model', true),
    model_name: cleanText(body.modelName, 'field.modelName', false),
    gnss_model: cleanText(body.gnssModel, 'field.gnssModel', false),
    system_type: body.systemType,
    offline_install: body.offlineInstall ? 1 : 0,
    auto_install: body.autoInstall ? 1 : 0,
    remark: cleanText(body.remark, 'field.remark', false),
  };
}

/**
 * Firmware, apps, files, logos and wallpapers: list, add from a finished upload, edit, delete, download.
 * A route plugin; finished uploads come from the file store the uploads plugin decorates the app with.
 */
export async function contentRoutes(app: FastifyInstance, opts: ContentRouteOptions): Promise<void> {
  const { db, clock } = opts;
  const uploads = app.uploads;
  const items = new ContentRepository(db);
  // Requests typed from the contract's schemas (protocol/api/content.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const insert = async (values: Parameters<ContentRepository['insert']>[0]) => toItemView(await items.insert(values));

  const stored = async (caller: Caller, uploadId: string, kinds: readonly UploadKindCode[]) => uploads.take(uploadId, caller, kinds);

  for (const area of Object.keys(ContentArea) as ContentAreaName[]) {
    const { kind, list: listKey, edit: editKey } = ContentArea[area];

    api.post(`/${area}/list`, { config: { permission: listKey }, schema: { body: c.ContentListBody } }, async (req) => {
      const caller = callerOf(req);
      const scope = [...caller.scope];
      const { pageNum = 1, pageSize = 10, orgId, name, type, parentId } = req.body;
      const { total, rows } = await items.page(kind, scope, { orgId, name, type, parentId }, pageNum, pageSize);
      return ok({ total, list: rows.map(toItemView) });
    });

    api.delete(`/${area}/delete`, { config: { permission: editKey }, schema: { body: c.ContentIdsBody } }, async (req) => {
      const caller = callerOf(req);
      const ids = [...new Set(req.body.ids)];
      if (ids.length > MAX_DELETE) throw new ApiError(ApiCode.BadRequest, 'content.tooManyDeletes');
      const rows = await items.byIds(kind, ids);
      if (rows.some((r) => !caller.scope.has(r.org_id))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      // A folder takes its contents with it.
      const doomed = new Map(rows.map((r) => [r.id, r]));
      for (let frontier = rows.filter((r) => r.item_type === FileType.Folder).map((r) => r.id); frontier.length > 0; ) {
        const children = await items.children(kind, frontier);
        frontier = children.filter((c) => !doomed.has(c.id)).map((c) => c.id);
        for (const c of children) doomed.set(c.id, c);
      }
      if (doomed.size === 0) return ok({ deleted: 0 });
      await items.deleteIds([...doomed.keys()]);
      const hashes = new Set([...doomed.values()].map((r) => r.sha256).filter(Boolean));
      for (const sha of hashes) {
        if (!(await items.blobInUse(sha))) await uploads.drop(sha);
      }
      return ok({ deleted: doomed.size });
    });

    api.get(`/${area}/download/:id`, { config: { permission: listKey }, schema: { params: c.ContentPath } }, async (req, reply) => {
      const row = await itemInScope(db, callerOf(req), kind, idOf(req.params.id));
      if (row.item_type === FileType.Folder || !row.sha256) throw new ApiError(ApiCode.BadRequest, 'content.folderDownload');
      const file = uploads.blobPath(row.sha256);
      if (!fs.existsSync(file)) throw new ApiError(ApiCode.NotFound, 'content.gone');
      return reply
        .header('Content-Type', 'application/octet-stream')
        .header('Content-Length', String(row.size))
        .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(row.file_name || row.name)}`)
        .send(fs.createReadStream(file));
    });
  }

  // ---- firmware -------------------------------------------------------------------------------------
  api.post(
    '/img/add',
    { config: { permission: 'img_edit' }, schema: { body: c.AddFirmwareBody } },
    async (req) => {
      const caller = callerOf(req);
      const org = targetOrg(caller, req.body.orgId);
      const columns = firmwareColumns(req.body);
      const file = await stored(caller, req.body.uploadId, ['firmware']);
      const now = clock.now();
      return ok(
        await insert({ kind: 'firmware', org_id: org, account_id: caller.accountId, parent_id: null, name: file.fileName, file_name: file.fileName, size: file.size, sha256: file.sha256, source: req.body.source ?? FirmwareSource.SelfUpload, ...columns, created_at: now, updated_at: now }),
      );
    },
  );

  api.post(
    '/img/update',
    { config: { permission: 'img_edit' }, schema: { body: c.UpdateFirmwareBody } },
    async (req) => {
      const row = await itemInScope(db, callerOf(req), 'firmware', req.body.id);
      const columns = firmwareColumns(req.body);
      await items.update(row.id, { ...columns, ...(req.body.source ? { source: req.body.source } : {}), updated_at: clock.now() });
      return ok(toItemView(await itemInScope(db, callerOf(req), 'firmware', row.id)));
    },
  );

  // ---- apps -----------------------------------------------------------------------------------------
  const appFromUpload = async (caller: Caller, uploadId: string) => {
    const file = await stored(caller, uploadId, ['app']);
    const apk = await readApk(uploads.blobPath(file.sha256));
    if (!apk) {
      if (!(await items.blobInUse(file.sha256))) await uploads.drop(file.sha256);
      throw new ApiError(ApiCode.BadRequest, 'content.notAnApk');
    }
    return { file, apk };
  };

  api.post(
    '/app/add',
    { config: { permission: 'app_edit' }, schema: { body: c.AddAppBody } },
    async (req) => {
      const caller = callerOf(req);
      const org = targetOrg(caller, req.body.orgId);
      const { file, apk } = await appFromUpload(caller, req.body.uploadId);
      const now = clock.now();
      return ok(
        await insert({
          kind: 'app', org_id: org, account_id: caller.accountId, parent_id: null,
          name: cleanText(req.body.name, 'field.name', false) || apk.packageName, file_name: file.fileName, size: file.size, sha256: file.sha256,
          item_type: req.body.type, system_type: SystemType.Android, remark: cleanText(req.body.remark, 'field.remark', false),
          package_name: apk.packageName, version_name: apk.versionName, version_code: apk.versionCode, created_at: now, updated_at: now,
        }),
      );
    },
  );

  // A new version of an app: same package, higher version code; the previous rows are its history.
  api.post(
    '/app/update',
    { config: { permission: 'app_edit' }, schema: { body: c.UpdateAppBody } },
    async (req) => {
      const caller = callerOf(req);
      const current = await itemInScope(db, caller, 'app', req.body.id);
      const { file, apk } = await appFromUpload(caller, req.body.uploadId);
      if (apk.packageName !== current.package_name) throw new ApiError(ApiCode.BadRequest, 'content.otherPackage');
      if (apk.versionCode <= (await items.newestVersionCode(current.org_id, current.package_name))) throw new ApiError(ApiCode.BadRequest, 'content.olderVersion');
      const now = clock.now();
      return ok(
        await insert({
          kind: 'app', org_id: current.org_id, account_id: caller.accountId, parent_id: null, name: current.name, file_name: file.fileName, size: file.size, sha256: file.sha256,
          item_type: current.item_type, system_type: current.system_type, remark: cleanText(req.body.remark, 'field.remark', false) || current.remark,
          package_name: apk.packageName, version_name: apk.versionName, version_code: apk.versionCode, created_at: now, updated_at: now,
        }),
      );
    },
  );

  api.get('/app/history/:id', { config: { permission: 'app_list' }, schema: { params: c.ContentPath } }, async (req) => {
    const row = await itemInScope(db, callerOf(req), 'app', idOf(req.params.id));
    const rows = await items.history(row.org_id, row.package_name);
    return ok(rows.map(toItemView));
  });

  // ---- files and folders ----------------------------------------------------------------------------
  const parentFolder = async (caller: Caller, parentId: number | null | undefined) => {
    if (!parentId) return null;
    const parent = await itemInScope(db, caller, 'file', parentId);
    if (parent.item_type !== FileType.Folder) throw new ApiError(ApiCode.BadRequest, 'content.gone');
    return parent;
  };

  api.post(
    '/file/add',
    { config: { permission: 'file_edit' }, schema: { body: c.AddFileBody } },
    async (req) => {
      const caller = callerOf(req);
      const parent = await parentFolder(caller, req.body.parentId);
      const org = parent ? parent.org_id : targetOrg(caller, req.body.orgId);
      const file = await stored(caller, req.body.uploadId, ['file']);
      const now = clock.now();
      return ok(await insert({ kind: 'file', org_id: org, account_id: caller.accountId, parent_id: parent?.id ?? null, name: file.fileName, file_name: file.fileName, size: file.size, sha256: file.sha256, item_type: FileType.File, remark: cleanText(req.body.remark, 'field.remark', false), created_at: now, updated_at: now }));
    },
  );

  api.post(
    '/file/folder',
    { config: { permission: 'file_edit' }, schema: { body: c.AddFolderBody } },
    async (req) => {
      const caller = callerOf(req);
      const parent = await parentFolder(caller, req.body.parentId);
      const org = parent ? parent.org_id : targetOrg(caller, req.body.orgId);
      const name = cleanText(req.body.name, 'field.name', true);
      if (name.startsWith('.') || /[\\/]/.test(name)) throw new ApiError(ApiCode.BadRequest, 'content.folderName');
      const now = clock.now();
      return ok(await insert({ kind: 'file', org_id: org, account_id: caller.accountId, parent_id: parent?.id ?? null, name, item_type: FileType.Folder, remark: cleanText(req.body.remark, 'field.remark', false), created_at: now, updated_at: now }));
    },
  );

  // ---- logos, boot animations and wallpapers ---------------------------------------------------------
  api.post(
    '/logo/add',
    { config: { permission: 'logo_edit' }, schema: { body: c.AddLogoBody } },
    async (req) => {
      const caller = callerOf(req);
      const org = targetOrg(caller, req.body.orgId);
      const file = await stored(caller, req.body.uploadId, [req.body.type === LogoType.BootAnimation ? 'boot_animation' : 'logo']);
      const now = clock.now();
      // Nothing is produced from the upload here, so a stored and checked file is complete at once.
      return ok(await insert({ kind: 'logo', org_id: org, account_id: caller.accountId, parent_id: null, name: file.fileName, file_name: file.fileName, size: file.size, sha256: file.sha256, item_type: req.body.type, source: FirmwareSource.SelfUpload, state: LogoState.Complete, remark: cleanText(req.body.remark, 'field.remark', false), created_at: now, updated_at: now }));
    },
  );

  api.post(
    '/wallpaper/add',
    { config: { permission: 'wallpaper_edit' }, schema: { body: c.AddWallpaperBody } },
    async (req) => {
      const caller = callerOf(req);
      const org = targetOrg(caller, req.body.orgId);
      const file = await stored(caller, req.body.uploadId, ['wallpaper']);
      const now = clock.now();
      return ok(await insert({ kind: 'wallpaper', org_id: org, account_id: caller.accountId, parent_id: null, name: file.fileName, file_name: file.fileName, size: file.size, sha256: file.sha256, item_type: 'wallpaper', source: FirmwareSource.SelfUpload, state: LogoState.Complete, remark: cleanText(req.body.remark, 'field.remark', false), created_at: now, updated_at: now }));
    },
  );

  // Name and remark of an app, file, folder, logo or wallpaper.
  for (const area of ['app', 'file', 'logo', 'wallpaper'] as const) {
    const { kind, edit } = ContentArea[area];
    api.post(
      `/${area}/edit`,
      { config: { permission: edit }, schema: { body: c.EditContentBody } },
      async (req) => {
        const caller = callerOf(req);
        const row = await itemInScope(db, caller, kind, req.body.id);
        const name = req.body.name === undefined ? row.name : cleanText(req.body.name, 'field.name', true);
        await items.update(row.id, { name, remark: cleanText(req.body.remark ?? row.remark, 'field.remark', false), updated_at: clock.now() });
        return ok(toItemView(await itemInScope(db, caller, kind, row.id)));
      },
    );
  }
}
