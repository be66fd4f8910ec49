import * as c from '../../protocol/api/campaigns.ts';
import type { PushKind } from '../../protocol/api/campaigns.ts';
import type { Caller } from '../accounts/caller.ts';
import { ContentArea, type ContentKind, areaOfKind } from '../content/items.ts';
import { ApiCode, ApiError } from '../http/envelope.ts';
import type { CampaignRepository } from './repository.ts';

// The contract's push kinds are the content areas' kinds, no more and no fewer (checked by the compiler).
const _contractKindsAreContent: readonly ContentKind[] = c.PUSH_KINDS;
const _contentKindsAreInContract: readonly PushKind[] = Object.values(ContentArea).map((a) => a.kind);

/** The key that pushes content of `kind` (its content area's push key). */
export function pushKeyOf(kind: string): string {
  const area = areaOfKind(kind);
  if (!area) throw new ApiError(ApiCode.BadRequest, 'push.unknownKind');
  return ContentArea[area].push;
}

/** A campaign the caller may see: in its organisation scope, or the refusal. */
export async function campaignInScope(campaigns: CampaignRepository, caller: Caller, id: number) {
  const c = await campaigns.find(id);
  if (!c) throw new ApiError(ApiCode.NotFound, 'push.gone');
  if (!caller.scope.has(c.org_id)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  return c;
}
