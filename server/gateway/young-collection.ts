import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (options: { readonly type: 'minor' }) => void;

let cached: (() => void) | undefined;

/**
 * A way to ask V8 for a young-generation collection (BufferChurn, protocol/binary/buffer-churn.ts, says
 * why the relay wants one). V8 gives one only through its `gc` extension: a process started with
 * `--expose-gc` has it on its global; otherwise the flag is set now and a fresh context, which is
 * created with the extension, hands it over. The main context's global is left as it was.
 */
export function youngCollection(): () => void {
  if (cached) return cached;
  let gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
  }
  const collect = gc;
  cached = () => collect({ type: 'minor' });
  return cached;
}
