/** What the bench asks the forked transfer client over the fork IPC channel. */
export type TransferRequest =
  /** Open a console engine on `url` and wait until it answers heartbeats. */
  | { readonly kind: 'console'; readonly url: string }
  /** Upload `bytes` bytes to device `sn` (into its sdcard folder) and download them back; MB/s of each. */
  | { readonly kind: 'transfer'; readonly sn: string; readonly bytes: number }
  /** The baseline: `bytes` bytes in 64 KiB binary frames, one way, over a bare ws connection to `url`. */
  | { readonly kind: 'bulk'; readonly url: string; readonly bytes: number };

export type TransferReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'connected' }
  /** `cpuMs`: this process's CPU (user and system) over both transfers. */
  | { readonly kind: 'transferred'; readonly uploadMBs: number; readonly downloadMBs: number; readonly cpuMs: number }
  | { readonly kind: 'bulked'; readonly mbs: number };
