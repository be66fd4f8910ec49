import { proxy } from 'valtio';
import { approvalApi } from '../api/approvals.ts';

/** The sidebar's approvals badge (issue 23): pending requests the user may decide, and its own pending ones. */
export const approvalCount = proxy({ toDecide: 0, mine: 0 });

/** Reads the counts again (the page calls it after a decision; the badge every minute). */
export function refreshApprovalCount(): void {
  approvalApi.count().then(
    (c) => {
      approvalCount.toDecide = c.toDecide;
      approvalCount.mine = c.mine;
    },
    () => undefined,
  );
}
