import { describe, expect, it } from 'vitest';
import { FrameMeter } from './frame-meter.ts';

describe('live view frame meter', () => {
  it('counts the frames shown in the last second and keeps the latest known latency', () => {
    const meter = new FrameMeter();
    expect(meter.fps(0)).toBe(0);
    expect(meter.latencyMs).toBeUndefined();
    for (let i = 0; i < 30; i++) meter.shown(1000 + i * (1000 / 30), 40 + i);
    expect(meter.fps(1999)).toBe(30);
    expect(meter.latencyMs).toBe(69);
    // A frame whose capture time is unknown counts towards the rate but leaves the latency as it was.
    meter.shown(2000, undefined);
    expect(meter.latencyMs).toBe(69);
    expect(meter.count).toBe(31);
    // Half a second later, the frames of the first half second have left the window.
    expect(meter.fps(2500)).toBe(16);
    expect(meter.fps(5000)).toBe(0);
  });

  it('never reports a negative latency when the clocks are slightly out of step', () => {
    const meter = new FrameMeter();
    meter.shown(0, -3);
    expect(meter.latencyMs).toBe(0);
  });
});
