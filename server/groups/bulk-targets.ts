import { MAX_BULK_SNS } from '../../protocol/api/device-ops.ts';
import { msg } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import { GroupRepository } from './repository.ts';

/**
 * The devices of a bulk command: the serials given, or a dynamic group's members at the time of the call
 * within the caller's organisations (one or the other; at most MAX_BULK_SNS, as a selection).
 */
export async function bulkTargets(db: Db, caller: Caller, body: { readonly sns?: readonly string[] | undefined; readonly deviceGroupId?: number | undefined }): Promise<string[]> {
  if ((body.sns === undefined) === (body.deviceGroupId === undefined)) throw new ApiError(ApiCode.BadRequest, 'group.snsOrGroup');
  if (body.sns) return [...body.sns];
  const groups = new GroupRepository(db);
  const found = await groups.memberSns(await groups.inScope(body.deviceGroupId ?? 0, caller.scope), caller.scope, MAX_BULK_SNS + 1);
  if (found.total > MAX_BULK_SNS) throw new ApiError(ApiCode.BadRequest, msg('group.tooManyForBulk', { max: MAX_BULK_SNS }));
  if (found.sns.length === 0) throw new ApiError(ApiCode.BadRequest, 'push.noDevice');
  return found.sns;
}
