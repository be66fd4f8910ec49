import { type ReactNode, Suspense, useState } from 'react';

/**
 * Mounts its children (a lazy component) once `when` has first been true, and keeps them mounted so a
 * dialog or drawer can play its closing transition. Parts of the shell that most sessions never open
 * (settings panel, password dialog, reminder) stay out of the code loaded after login.
 */
export function OnDemand({ when, children }: { when: boolean; children: ReactNode }) {
  const [needed, setNeeded] = useState(when);
  if (when && !needed) setNeeded(true);
  return needed ? <Suspense fallback={null}>{children}</Suspense> : null;
}
