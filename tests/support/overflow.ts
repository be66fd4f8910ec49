/**
 * For page.locator(table).evaluate: how many pixels the table's scroll box is wider than what it shows
 * (0 or less when every column fits, so a sticky actions column covers none of them). Runs in the page.
 */
export function overflowX(table: Element): number {
  let box = table.parentElement;
  while (box && getComputedStyle(box).overflowX === 'visible') box = box.parentElement;
  if (!box) throw new Error('the table has no scroll box');
  return box.scrollWidth - box.clientWidth;
}
