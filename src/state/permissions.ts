import { useSnapshot } from 'valtio';
import { holds } from '../router/menu.ts';
import { session } from './session.ts';

/**
 * Per-screen action gating (platform-core section 6: keys also gate per-screen actions): `can(k1, k2)`
 * is true when the user holds any one of the keys. A convenience only: the server checks every call.
 */
export function useCan(): (...keys: string[]) => boolean {
  const { roles, permissions } = useSnapshot(session);
  return (...keys) => keys.some((key) => holds({ roles, permissions }, key));
}
