/** What the bench asks the device swarm process over the fork IPC channel. */
export type SwarmRequest =
  /** Status uploads as fast as possible for `seconds`, `burst` back to back per device. */
  | { readonly kind: 'blast'; readonly seconds: number; readonly burst: number }
  | { readonly kind: 'keep'; readonly count: number }
  | { readonly kind: 'online' };

/** What the device swarm answers (and announces: `ready` once every device has been started). */
export type SwarmReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'blasted'; readonly sent: number; readonly ms: number }
  | { readonly kind: 'kept'; readonly count: number }
  | { readonly kind: 'online'; readonly count: number };
