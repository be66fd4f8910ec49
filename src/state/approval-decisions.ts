import type { Subscription } from 'rxjs';
import { proxy } from 'valtio';
import { Command, decodeRequest, type Envelope } from '../../protocol/index.ts';
import { TOAST_MS } from '../api/request.ts';
import { i18next, loadPageTexts } from '../i18n/index.ts';
import { notifications } from '../layout/toast.ts';
import { deviceChannel } from '../devices/channel.ts';
import { refreshApprovalCount } from './approval-count.ts';
import { approvalDecisionText } from './approval-text.ts';

/** Decisions heard on the console socket since the page loaded (the Approvals page lists again on each). */
export const approvalDecisions = proxy({ heard: 0 });

const COLOR = { approved: 'green', rejected: 'red', expired: 'gray' } as const;

/** Tells the user of each decision of its own requests in a batch (command 196613), in its language. */
export function hearApprovalDecisions(batch: readonly Envelope[]): void {
  for (const env of batch) {
    if (env.msgId !== Command.ApprovalDecided) continue;
    const event = decodeRequest(Command.ApprovalDecided, env.data)?.data;
    if (!event) continue;
    // Twice the usual toast: the requester may be busy elsewhere, and a rejection carries a reason to read.
    // Its command names are pages' texts, which the dashboard does not load: shown once they are in.
    void loadPageTexts().catch(() => undefined).then(() => notifications.show({ color: COLOR[event.state], message: approvalDecisionText(i18next.t.bind(i18next), event), autoClose: 2 * TOAST_MS }));
    approvalDecisions.heard++;
    refreshApprovalCount();
  }
}

let listening: Subscription | undefined;

/** Starts hearing decisions on the console socket, once per page load. */
export function listenForApprovalDecisions(): void {
  listening ??= deviceChannel().batches$.subscribe(hearApprovalDecisions);
}
