import { describe, expect, it } from 'vitest';
import { VoiceSchedule } from './voice-schedule.ts';

describe('voice playback schedule', () => {
  it('lays pieces back to back a lead ahead of now', () => {
    const s = new VoiceSchedule(0.04, 0.25);
    expect(s.place(1, 0.02)).toBeCloseTo(1.04);
    expect(s.place(1.005, 0.02)).toBeCloseTo(1.06);
    expect(s.place(1.03, 0.02)).toBeCloseTo(1.08);
    expect(s.restarts).toBe(1);
  });

  it('restarts at now after a gap (the queue ran dry) and after a burst (too far ahead)', () => {
    const s = new VoiceSchedule(0.04, 0.25);
    s.place(0, 0.02);
    // Nothing arrived for a second: the next piece starts a lead after now, not in the past.
    expect(s.place(1, 0.02)).toBeCloseTo(1.04);
    // A burst of 20 pieces: once more than 0.25 s is queued, the queue restarts at now.
    const starts = Array.from({ length: 20 }, () => s.place(1.001, 0.02));
    expect(Math.max(...starts)).toBeLessThan(1.001 + 0.04 + 0.25 + 0.02);
    expect(s.restarts).toBeGreaterThanOrEqual(3);
  });
});
