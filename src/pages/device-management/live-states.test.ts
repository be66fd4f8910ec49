import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Command, OnlineState } from '../../../protocol/index.ts';
import { liveStates } from './live-states.ts';

// Changes are published once per animation frame; the test runs the frame itself.
let frame: (() => void) | undefined;
beforeEach(() => {
  (globalThis as { requestAnimationFrame?: (cb: () => void) => number }).requestAnimationFrame = (cb) => ((frame = cb), 1);
});
afterEach(() => {
  liveStates.reset();
  Reflect.deleteProperty(globalThis, 'requestAnimationFrame');
});

const presence = (sn: string, onlineState: number) => ({ msgId: Command.DevicePresence, sn, data: { onlineState } });

describe('live online states of the device list', () => {
  it('applies presence once per frame, and forgets it all when the socket reopens, telling the rows', () => {
    const heard: string[] = [];
    const stop = liveStates.subscribe('SN-1', () => heard.push('SN-1'));
    liveStates.apply([presence('SN-1', OnlineState.Offline), presence('SN-2', OnlineState.Online), { msgId: Command.Heartbeat }]);
    expect(heard).toEqual([]);
    frame?.();
    expect(heard).toEqual(['SN-1']);
    expect(liveStates.get('SN-1')).toBe(OnlineState.Offline);
    expect(liveStates.get('SN-2')).toBe(OnlineState.Online);

    // Changes made while the socket was down were never heard: the rows go back to what they load.
    liveStates.reset();
    expect(heard).toEqual(['SN-1', 'SN-1']);
    expect(liveStates.get('SN-1')).toBeUndefined();
    expect(liveStates.get('SN-2')).toBeUndefined();
    stop();
  });
});
