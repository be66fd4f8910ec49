import { describe, expect, it } from 'vitest';
import { Command, type Envelope, OnlineState } from '../../protocol/index.ts';
import { PresenceStore } from './presence.ts';

const said = (sn: string, onlineState: number): Envelope => ({ msgId: Command.DevicePresence, sn, data: { onlineState } });

/** A store whose frames the test runs itself. */
function store() {
  const frames: (() => void)[] = [];
  const presence = new PresenceStore((publish) => frames.push(publish));
  const frame = () => frames.splice(0).forEach((publish) => publish());
  return { presence, frame, frames };
}

describe('the console presence store', () => {
  it('applies presence at once and tells the subscribers of the serials that changed once per frame', () => {
    const { presence, frame, frames } = store();
    const heard: string[] = [];
    const any: number[] = [];
    const stop = presence.subscribe('SN-1', () => heard.push('SN-1'));
    presence.subscribeAny(() => any.push(presence.changes));
    presence.apply([said('SN-1', OnlineState.Offline), said('SN-2', OnlineState.Online), { msgId: Command.Heartbeat }]);
    presence.apply([said('SN-1', OnlineState.Online)]);
    expect(frames).toHaveLength(1);
    expect(heard).toEqual([]);
    expect(presence.get('SN-1')).toBe(OnlineState.Online);
    frame();
    expect(heard).toEqual(['SN-1']);
    expect(any).toEqual([2]);
    expect(presence.get('SN-2')).toBe(OnlineState.Online);
    expect(presence.applied).toBe(3);
    stop();
    presence.apply([said('SN-1', OnlineState.Offline)]);
    frame();
    expect(heard).toEqual(['SN-1']);
  });

  it('ignores messages that are not presence, have no serial or carry an unknown state', () => {
    const { presence, frames } = store();
    presence.apply([{ msgId: Command.DevicePresence, data: { onlineState: OnlineState.Online } }, said('SN-1', 7), { msgId: Command.StatusUpload, sn: 'SN-1', data: { onlineState: OnlineState.Online } }]);
    expect(presence.get('SN-1')).toBeUndefined();
    expect(frames).toHaveLength(0);
  });

  it('keeps one object of every state until the next published change', () => {
    const { presence, frame } = store();
    presence.apply([said('SN-1', OnlineState.Online)]);
    frame();
    const first = presence.all();
    expect(first).toEqual({ 'SN-1': OnlineState.Online });
    expect(presence.all()).toBe(first);
    presence.apply([said('SN-2', OnlineState.Offline)]);
    frame();
    expect(presence.all()).not.toBe(first);
    expect(presence.all()).toEqual({ 'SN-1': OnlineState.Online, 'SN-2': OnlineState.Offline });
  });

  it('forgets everything heard when the socket reopens, moves the epoch and tells the rows at once', () => {
    const { presence, frame } = store();
    const heard: string[] = [];
    presence.subscribe('SN-1', () => heard.push('SN-1'));
    let epochs = 0;
    presence.subscribeAny(() => (epochs = presence.epoch));
    presence.apply([said('SN-1', OnlineState.Offline), said('SN-2', OnlineState.Online)]);
    frame();
    expect(heard).toEqual(['SN-1']);

    // Changes made while the socket was down were never heard: the rows go back to what they load.
    presence.reopened();
    expect(heard).toEqual(['SN-1', 'SN-1']);
    expect(epochs).toBe(1);
    expect(presence.get('SN-1')).toBeUndefined();
    expect(presence.all()).toEqual({});
    // A frame scheduled before the reopening publishes nothing stale.
    presence.apply([said('SN-3', OnlineState.Online)]);
    presence.reopened();
    frame();
    expect(presence.get('SN-3')).toBeUndefined();
    expect(presence.epoch).toBe(2);
  });
});
