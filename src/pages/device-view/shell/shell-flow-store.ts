/** The part of Web Storage the store uses (sessionStorage in the console; a map in tests). */
export type FlowStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** What a tab remembers of each device's shell flow, and whose login it belongs to. */
export interface ShellFlowStore {
  /** The flow to re-attach to, when this login left one for `sn`. */
  get(sn: string): string | undefined;
  /** Remembers the flow of `sn`, or forgets it (undefined). */
  set(sn: string, flowId: string | undefined): void;
}

// FNV-1a: the key only has to tell one login from the next in the same tab, not to resist anyone.
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(36);
}

/**
 * A tab remembers each device's shell flow (sessionStorage survives a reload, not a closed tab), so a
 * reload re-attaches to the session the device still runs. A flow is remembered for the login that
 * opened it: another account logging in in the same tab starts its own session and never sees the
 * previous one's backlog. Storage that refuses (private mode, quota) only means a reload starts afresh.
 */
export function shellFlowStore(storage: () => FlowStorage | undefined, login: () => string): ShellFlowStore {
  const key = (sn: string) => `dcc.shell-flow.${sn}`;
  return {
    get(sn) {
      try {
        const kept = JSON.parse(storage()?.getItem(key(sn)) ?? 'null') as { flowId?: unknown; login?: unknown } | null;
        return kept && typeof kept.flowId === 'string' && kept.login === fingerprint(login()) ? kept.flowId : undefined;
      } catch {
        return undefined;
      }
    },
    set(sn, flowId) {
      try {
        if (flowId) storage()?.setItem(key(sn), JSON.stringify({ flowId, login: fingerprint(login()) }));
        else storage()?.removeItem(key(sn));
      } catch {
        // Refused: the shell works, a reload starts a new session.
      }
    },
  };
}
