import { deviceViewZh } from './device-view.zh.ts';
import { fleetZh } from './fleet.zh.ts';
import { groupsZh } from './groups.zh.ts';
import { cardsZh } from './cards.zh.ts';
import { timelineZh } from './timeline.zh.ts';
import { recordingsZh } from './recordings.zh.ts';
import { wallZh } from './wall.zh.ts';
import { auditZh } from './audit.zh.ts';
import { publicZh } from './public.zh.ts';
import type { PageMessages } from './pages.en.ts';

/** The Chinese texts of the areas only pages show, loaded with the first page (as pages.en.ts). */
export const zhPages: PageMessages = {
  deviceView: deviceViewZh,
  fleet: fleetZh,
  groups: groupsZh,
  cards: cardsZh,
  timeline: timelineZh,
  recordings: recordingsZh,
  wall: wallZh,
  audit: auditZh,
  publicPages: publicZh,
};
