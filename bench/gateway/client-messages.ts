/** What the bench asks the forked round-trip client over the fork IPC channel. */
export type ClientRequest =
  /** Open a console engine (JSON, as the spec's console) on `url` and wait until it answers heartbeats. */
  | { readonly kind: 'console'; readonly url: string }
  /** Open a bare ws connection to an echo server at `url`. */
  | { readonly kind: 'bare'; readonly url: string }
  /** Open a bare ws connection to a bare relay in front of an echoing device, at `url`. */
  | { readonly kind: 'relay'; readonly url: string }
  /**
   * Send `rate` requests per second for `seconds` and report latencies: base info to the serials in turn
   * over the console, or an echo of a counter over the bare or relay connection.
   */
  | { readonly kind: 'paced'; readonly over: 'console' | 'bare' | 'relay'; readonly rate: number; readonly seconds: number; readonly sns: readonly string[] }
  /** Push a text to every one of `sns` over the console at once, as the device list's bulk action does, and wait for every reply. */
  | { readonly kind: 'broadcast'; readonly sns: readonly string[] };

export type ClientReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'connected' }
  /** Sorted latencies in ms; `failed` counts requests that ended in an error instead of a reply. */
  | { readonly kind: 'latencies'; readonly ms: readonly number[]; readonly failed: number }
  /** From the first send to the last reply, in ms; `succeeded` replies said result 0, `failed` requests ended in an error. */
  | { readonly kind: 'broadcasted'; readonly ms: number; readonly succeeded: number; readonly failed: number };
