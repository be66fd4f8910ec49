import { useSnapshot } from 'valtio';
import { realtimeState } from '../../realtime/realtime.ts';

/** True while the console socket is open; device requests made before then fail at once. */
export function useRealtimeOpen(): boolean {
  return useSnapshot(realtimeState).status === 'open';
}
