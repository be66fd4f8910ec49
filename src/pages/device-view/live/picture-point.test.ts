import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { picturePoint } from './picture-point.ts';

// A 320x240 picture at (100, 50); turned a quarter, its on-screen box is 240 wide and 320 high.
const upright = { left: 100, top: 50, width: 320, height: 240 };
const sideways = { left: 140, top: 10, width: 240, height: 320 };

const expectNear = ([x, y]: [number, number], [ex, ey]: [number, number]) => {
  expect(x).toBeCloseTo(ex, 9);
  expect(y).toBeCloseTo(ey, 9);
};

describe('pointer to picture fraction', () => {
  it('maps the picture corners wherever the rotation put them on screen', () => {
    // The picture's top-left corner is on screen at: top-left (0°), top-right (90°), bottom-right (180°), bottom-left (270°).
    expect(picturePoint(upright, 100, 50, 0)).toEqual([0, 0]);
    expect(picturePoint(sideways, 380, 10, 90)).toEqual([0, 0]);
    expect(picturePoint(upright, 420, 290, 180)).toEqual([0, 0]);
    expect(picturePoint(sideways, 140, 330, 270)).toEqual([0, 0]);
    // And a point a quarter across and a tenth down the picture.
    expectNear(picturePoint(upright, 180, 74, 0), [0.25, 0.1]);
    expectNear(picturePoint(sideways, 380 - 24, 10 + 80, 90), [0.25, 0.1]);
    expectNear(picturePoint(upright, 420 - 80, 290 - 24, 180), [0.25, 0.1]);
    expectNear(picturePoint(sideways, 140 + 24, 330 - 80, 270), [0.25, 0.1]);
  });

  it('treats a full turn as none and a negative turn as its positive equal', () => {
    expect(picturePoint(upright, 180, 74, 360)).toEqual(picturePoint(upright, 180, 74, 0));
    expect(picturePoint(sideways, 200, 100, -90)).toEqual(picturePoint(sideways, 200, 100, 270));
  });

  it('always gives fractions within the picture, clamping points outside it', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 2000 }), fc.integer({ min: -1000, max: 2000 }), fc.constantFrom(0, 90, 180, 270), (x, y, r) => {
        const [u, v] = picturePoint(r % 180 === 0 ? upright : sideways, x, y, r);
        expect(u).toBeGreaterThanOrEqual(0);
        expect(u).toBeLessThanOrEqual(1);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1);
      }),
    );
    expect(picturePoint(upright, 0, 1000, 0)).toEqual([0, 1]);
  });
});
