/** The on-screen box of the picture element (canvas or video) after the view's rotation. */
export interface ScreenBox {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/**
 * Where a pointer at (clientX, clientY) falls on the picture the device encodes, as fractions 0..1 of its
 * width and height (what RemoteControl takes): the element's bounding box is the rotated picture, so the
 * rotation (clockwise degrees, a multiple of 90) is undone. Points outside the picture clamp to its edge.
 */
export function picturePoint(box: ScreenBox, clientX: number, clientY: number, rotation: number): [number, number] {
  const u = (clientX - box.left) / box.width;
  const v = (clientY - box.top) / box.height;
  const turns = (((Math.round(rotation / 90) % 4) + 4) % 4) as 0 | 1 | 2 | 3;
  const [x, y] = turns === 1 ? [v, 1 - u] : turns === 2 ? [1 - u, 1 - v] : turns === 3 ? [1 - v, u] : [u, v];
  return [Math.min(1, Math.max(0, x)), Math.min(1, Math.max(0, y))];
}
