// Firmware, apps, files, logos and wallpapers, and custom firmware orders (devices-and-commerce sections 4
// and 5): request schemas written with TypeBox, their types derived, the answers' shapes, and the firmware
// version formats (the console checks them before an upload starts, the server when firmware is added or
// edited): one definition for the server and the console.
import { type Static, Type } from 'typebox';
import { AppType, FirmwareSource, FirmwareType, LogoType, SystemType } from '../catalogue/enums.ts';
import { Among, EpochMs, Id, IdPath, LongText, OneOf, PagingProperties, Text } from './common.ts';

/** The console's content areas, each the first step of its calls' paths (/img/list, /app/add, ...). */
export type ContentAreaPath = 'img' | 'app' | 'file' | 'logo' | 'wallpaper';

/** Most entries one delete takes (devices-and-commerce section 5); more are refused, not silently cut. */
export const MAX_DELETE = 100;

const values = (o: Record<string, string>): string[] => Object.values(o);
/** The URL or id of a finished upload (/upload). */
const UploadRef = Type.String({ minLength: 1, maxLength: 256 });
/** A parent folder, or null for the top. */
const ParentId = Type.Union([Id, Type.Null()]);

/** POST /{area}/list: a page of the area's items, by name, type, folder and organisation. */
export const ContentListBody = Type.Object(
  { ...PagingProperties, name: Type.Optional(Text), type: Type.Optional(Text), parentId: Type.Optional(ParentId), orgId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type ContentListBody = Static<typeof ContentListBody>;

/** DELETE /{area}/delete (folders take their contents with them). */
export const ContentIdsBody = Type.Object({ ids: Type.Array(Id, { minItems: 1 }) }, { additionalProperties: false });
export type ContentIdsBody = Static<typeof ContentIdsBody>;

/** GET /{area}/download/:id and /app/history/:id. */
export const ContentPath = IdPath;

const FirmwareFields = {
  type: Among(values(FirmwareType)),
  source: Type.Optional(Among(values(FirmwareSource))),
  version: Type.String({ maxLength: 32 }),
  model: Text,
  modelName: Type.Optional(Text),
  gnssModel: Type.Optional(Text),
  systemType: Among(values(SystemType)),
  offlineInstall: Type.Optional(Type.Boolean()),
  autoInstall: Type.Optional(Type.Boolean()),
  remark: Type.Optional(LongText),
};

/** POST /img/add: firmware from a finished upload. */
export const AddFirmwareBody = Type.Object({ uploadId: UploadRef, orgId: Type.Optional(Id), ...FirmwareFields }, { additionalProperties: false });
export type AddFirmwareBody = Static<typeof AddFirmwareBody>;

/** POST /img/update: a firmware's fields. */
export const UpdateFirmwareBody = Type.Object({ id: Id, ...FirmwareFields }, { additionalProperties: false });
export type UpdateFirmwareBody = Static<typeof UpdateFirmwareBody>;

/** POST /app/add: an app from an uploaded APK. */
export const AddAppBody = Type.Object(
  { uploadId: UploadRef, type: Among(values(AppType)), name: Type.Optional(Text), remark: Type.Optional(LongText), orgId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type AddAppBody = Static<typeof AddAppBody>;

/** POST /app/update: a new version of an app (same package, higher version code). */
export const UpdateAppBody = Type.Object({ id: Id, uploadId: UploadRef, remark: Type.Optional(LongText) }, { additionalProperties: false });
export type UpdateAppBody = Static<typeof UpdateAppBody>;

/** POST /file/add: a file into a folder or the top. */
export const AddFileBody = Type.Object(
  { uploadId: UploadRef, parentId: Type.Optional(ParentId), remark: Type.Optional(LongText), orgId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type AddFileBody = Static<typeof AddFileBody>;

/** POST /file/folder. */
export const AddFolderBody = Type.Object({ name: Text, parentId: Type.Optional(ParentId), remark: Type.Optional(LongText), orgId: Type.Optional(Id) }, { additionalProperties: false });
export type AddFolderBody = Static<typeof AddFolderBody>;

/** POST /logo/add: a logo or boot animation. */
export const AddLogoBody = Type.Object(
  { uploadId: UploadRef, type: Among(values(LogoType)), remark: Type.Optional(LongText), orgId: Type.Optional(Id) },
  { additionalProperties: false },
);
export type AddLogoBody = Static<typeof AddLogoBody>;

/** POST /wallpaper/add. */
export const AddWallpaperBody = Type.Object({ uploadId: UploadRef, remark: Type.Optional(LongText), orgId: Type.Optional(Id) }, { additionalProperties: false });
export type AddWallpaperBody = Static<typeof AddWallpaperBody>;

/** POST /{app,file,logo,wallpaper}/edit: name and remark. */
export const EditContentBody = Type.Object({ id: Id, name: Type.Optional(Text), remark: Type.Optional(LongText) }, { additionalProperties: false });
export type EditContentBody = Static<typeof EditContentBody>;

/** An item as the content calls answer it. */
export interface ContentItemView {
  readonly id: number;
  readonly kind: string;
  readonly orgId: number;
  readonly parentId: number | null;
  readonly name: string;
  readonly fileName: string;
  readonly remark: string;
  readonly size: number;
  readonly sha256: string;
  readonly type: string;
  readonly model: string;
  readonly modelName: string;
  readonly gnssModel: string;
  readonly source: string;
  readonly version: string;
  readonly systemType: string;
  readonly offlineInstall: boolean;
  readonly autoInstall: boolean;
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  readonly state: number;
  readonly createTime: number;
  readonly updateTime: number;
}

/** Answer of /{area}/delete. */
export interface DeletedItems {
  readonly deleted: number;
}

// ---- custom firmware orders ----

/** The steps of a custom firmware order (server/content/custom-orders.ts says who takes which, from where). */
export const CUSTOM_ORDER_ACTIONS = ['cancel', 'refuse', 'quote', 'payOffline', 'confirmPayment', 'rejectPayment', 'finishDevelopment', 'confirmFinish'] as const;
export type CustomOrderAction = (typeof CUSTOM_ORDER_ACTIONS)[number];

/** POST /custom-made-img/list. */
export const CustomOrderListBody = Type.Object({ ...PagingProperties, state: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })) }, { additionalProperties: false });
export type CustomOrderListBody = Static<typeof CustomOrderListBody>;

/** GET /custom-made-img/detail/:id. */
export const CustomOrderPath = IdPath;

/** The longest description of a custom firmware order. */
export const MAX_ORDER_DESCRIPTION = 2000;
/** The largest amount a custom firmware order is quoted. */
export const MAX_ORDER_AMOUNT = 1e9;

/** POST /custom-made-img/apply. */
export const ApplyCustomOrderBody = Type.Object(
  {
    title: Text,
    description: Type.Optional(Type.String({ maxLength: MAX_ORDER_DESCRIPTION })),
    deadline: Type.Optional(EpochMs),
    attachmentUploadId: Type.Optional(Type.String({ maxLength: 256 })),
    attachmentDescription: Type.Optional(LongText),
  },
  { additionalProperties: false },
);
export type ApplyCustomOrderBody = Static<typeof ApplyCustomOrderBody>;

/** POST /custom-made-img/transition: one step, with its amount (quote) or reason (refuse). */
export const CustomOrderStepBody = Type.Object(
  {
    id: Id,
    action: OneOf(CUSTOM_ORDER_ACTIONS),
    amount: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_ORDER_AMOUNT, multipleOf: 0.01 })),
    assessment: Type.Optional(LongText),
    refuseReason: Type.Optional(LongText),
  },
  { additionalProperties: false },
);
export type CustomOrderStepBody = Static<typeof CustomOrderStepBody>;

/** A custom firmware order; amounts in yuan. */
export interface CustomOrderView {
  readonly id: number;
  readonly orderNo: string;
  readonly orgId: number;
  readonly title: string;
  readonly description: string;
  readonly state: number;
  readonly amount: number;
  readonly actualAmount: number;
  readonly deadline: number | null;
  readonly attachmentId: number | null;
  readonly attachmentDescription: string;
  readonly assessment: string;
  readonly refuseReason: string;
  readonly time: number;
  readonly updateTime: number;
}

// ---- firmware version formats ----

/** Which version forms a firmware type takes; the console names them in its message. */
export type FirmwareVersionForm = 'system' | 'mcu' | 'other';

// System firmware yyMMdd.HH with a real date and hour; mcu vX.Y; a date yyyyMMdd or vXXX.XX for the others.
const SYSTEM_VERSION = /^(\d{2})(\d{2})(\d{2})\.(\d{2})$/;
const DATE_VERSION = /^(\d{4})(\d{2})(\d{2})$/;
const V_VERSION = /^v\d{1,3}\.\d{1,2}$/;

function realDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The version form of a firmware type: system, mcu, or the date/vxxx.xx form of GNSS and 4G images. */
export function firmwareVersionForm(type: string): FirmwareVersionForm {
  return type === 'system' ? 'system' : type === 'mcu' ? 'mcu' : 'other';
}

/** True when `version` has the format the spec gives for this firmware type. */
export function validFirmwareVersion(type: string, version: string): boolean {
  const system = SYSTEM_VERSION.exec(version);
  const isSystem = !!system && realDate(2000 + Number(system[1]), Number(system[2]), Number(system[3])) && Number(system[4]) < 24;
  const date = DATE_VERSION.exec(version);
  const isDate = !!date && realDate(Number(date[1]), Number(date[2]), Number(date[3]));
  const isV = V_VERSION.test(version);
  const form = firmwareVersionForm(type);
  if (form === 'system') return isSystem || isDate;
  if (form === 'mcu') return isV;
  return isDate || isV;
}
