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
import type { UploadService } from '../uploads/upload-service.ts';
import { readApk } from './apk.ts';
import { ContentArea, type ContentAreaName, type ContentRow, itemInScope, toItemView, validFirmwareVersion } from './items.ts';

export interface ContentRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly uploads: UploadService;
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

/** Firmware, apps, files, logos and wallpapers: list, add from a finished upload, edit, delete, download. */
export function registerContentRoutes(app: FastifyInstance, deps: ContentRouteDeps): void {
  const { db, clock, uploads } = deps;
  // Requests typed from the contract's schemas (protocol/api/content.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const insert = async (values: Parameters<ReturnType<Db['insertInto']>['values']>[0]) => {
    const row = await db.insertInto('content_items').values(values as never).returningAll().executeTakeFirstOrThrow();
    return toItemView(row as ContentRow);
  };

  const stored = async (caller: Caller, uploadId: string, kinds: readonly UploadKindCode[]) => uploads.take(uploadId, caller, kinds);

  for (const area of Object.keys(ContentArea) as ContentAreaName[]) {
    const { kind, list: listKey, edit: editKey } = ContentArea[area];

    api.post(`/${area}/list`, { config: { permission: listKey }, schema: { body: c.ContentListBody } }, async (req) => {
      const caller = callerOf(req);
      const scope = [...caller.scope];
      const { pageNum = 1, pageSize = 10 } = req.body;
      let q = db.selectFrom('content_items as c').where('c.kind', '=', kind).where('c.org_id', 'in', scope);
      if (req.body.orgId) q = q.where('c.org_id', '=', req.body.orgId);
      if (req.body.name) q = q.where('c.name', 'like', `%${req.body.name.replace(/[%_\\]/g, '')}%`);
      if (req.body.type) q = q.where('c.item_type', '=', req.body.type);
      if (area === 'file') q = req.body.parentId ? q.where('c.parent_id', '=', req.body.parentId) : q.where('c.parent_id', 'is', null);
      // Apps list their newest version per package; older ones are the history.
      if (area === 'app') {
        q = q.where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('content_items as n')
                .select('n.id')
                .where('n.kind', '=', 'app')
                .whereRef('n.org_id', '=', 'c.org_id')
                .whereRef('n.package_name', '=', 'c.package_name')
                .whereRef('n.version_code', '>', 'c.version_code'),
            ),
          ),
        );
      }
      const [{ total }, rows] = await Promise.all([
        q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
        q.selectAll('c').orderBy('c.item_type', area === 'file' ? 'desc' : 'asc').orderBy('c.id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute(),
      ]);
      return ok({ total: Number(total), list: rows.map(toItemView) });
    });

    api.delete(`/${area}/delete`, { config: { permission: editKey }, schema: { body: c.ContentIdsBody } }, async (req) => {
      const caller = callerOf(req);
      const ids = [...new Set(req.body.ids)];
      if (ids.length > MAX_DELETE) throw new ApiError(ApiCode.BadRequest, 'content.tooManyDeletes');
      const rows = await db.selectFrom('content_items').selectAll().where('kind', '=', kind).where('id', 'in', ids).execute();
      if (rows.some((r) => !caller.scope.has(r.org_id))) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
      // A folder takes its contents with it.
      const doomed = new Map(rows.map((r) => [r.id, r]));
      for (let frontier = rows.filter((r) => r.item_type === FileType.Folder).map((r) => r.id); frontier.length > 0; ) {
        const children = await db.selectFrom('content_items').selectAll().where('kind', '=', kind).where('parent_id', 'in', frontier).execute();
        frontier = children.filter((c) => !doomed.has(c.id)).map((c) => c.id);
        for (const c of children) doomed.set(c.id, c);
      }
      if (doomed.size === 0) return ok({ deleted: 0 });
      await db.deleteFrom('content_items').where('id', 'in', [...doomed.keys()]).execute();
      const hashes = new Set([...doomed.values()].map((r) => r.sha256).filter(Boolean));
      for (const sha of hashes) {
        const still = await db.selectFrom('content_items').select('id').where('sha256', '=', sha).executeTakeFirst();
        if (!still) await uploads.drop(sha);
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
      await db.updateTable('content_items').set({ ...columns, ...(req.body.source ? { source: req.body.source } : {}), updated_at: clock.now() }).where('id', '=', row.id).execute();
      return ok(toItemView(await itemInScope(db, callerOf(req), 'firmware', row.id)));
    },
  );

  // ---- apps -----------------------------------------------------------------------------------------
  const appFromUpload = async (caller: Caller, uploadId: string) => {
    const file = await stored(caller, uploadId, ['app']);
    const apk = await readApk(uploads.blobPath(file.sha256));
    if (!apk) {
      const other = await db.selectFrom('content_items').select('id').where('sha256', '=', file.sha256).executeTakeFirst();
      if (!other) await uploads.drop(file.sha256);
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
      const newest = await db.selectFrom('content_items').select((eb) => eb.fn.max('version_code').as('v')).where('kind', '=', 'app').where('org_id', '=', current.org_id).where('package_name', '=', current.package_name).executeTakeFirstOrThrow();
      if (apk.versionCode <= Number(newest.v)) throw new ApiError(ApiCode.BadRequest, 'content.olderVersion');
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
    const rows = await db.selectFrom('content_items').selectAll().where('kind', '=', 'app').where('org_id', '=', row.org_id).where('package_name', '=', row.package_name).orderBy('version_code', 'desc').execute();
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
        await db.updateTable('content_items').set({ name, remark: cleanText(req.body.remark ?? row.remark, 'field.remark', false), updated_at: clock.now() }).where('id', '=', row.id).execute();
        return ok(toItemView(await itemInScope(db, caller, kind, row.id)));
      },
    );
  }
}
