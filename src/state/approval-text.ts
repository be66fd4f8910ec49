import type { TFunction } from 'i18next';
import { type ApprovalDecidedEvent, Command } from '../../protocol/index.ts';

/** i18next's lookup (the app's, or a test's own instance). */
export type Translate = TFunction;

const commandNames = new Map<number, string>(Object.entries(Command).map(([name, id]) => [id, name]));
/** The console's own names of the actions that wait (the device list's). */
const ACTION_LABEL: Readonly<Partial<Record<number, string>>> = {
  [Command.FactoryReset]: 'fleet.action.reset',
  [Command.ClearData]: 'fleet.action.clear',
  [Command.Reboot]: 'fleet.action.reboot',
  [Command.PushText]: 'fleet.action.message',
};

/** What a four-eyes request asks, in the user's language: 'Remote reset', 'Bulk command: Reboot', 'Push: app 1.2'. */
export function approvalActionText(t: Translate, a: { readonly kind: ApprovalDecidedEvent['kind']; readonly msgId: number; readonly contentName?: unknown }): string {
  if (a.kind === 'campaign') return `${t('approvals.kinds.campaign')}${typeof a.contentName === 'string' ? `: ${a.contentName}` : ''}`;
  const key = ACTION_LABEL[a.msgId];
  const name = commandNames.get(a.msgId) ?? String(a.msgId);
  const label = key ? t(key) : t(`deviceView.activity.command.${name}`, { defaultValue: name });
  return a.kind === 'bulk' ? `${t('approvals.kinds.bulk')}: ${label}` : label;
}

/** The requester's live notice that its request was approved, rejected (with the reason) or expired. */
export function approvalDecisionText(t: Translate, e: ApprovalDecidedEvent): string {
  const params = { id: e.id, action: approvalActionText(t, e), count: e.targetCount, by: e.decidedBy };
  if (e.state === 'approved') return t('approvals.live.approved', params);
  if (e.state === 'expired') return t('approvals.live.expired', params);
  return e.reason ? t('approvals.live.rejectedWhy', { ...params, reason: e.reason }) : t('approvals.live.rejected', params);
}
