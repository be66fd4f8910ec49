import { deviceViewEn } from './device-view.ts';
import { fleetEn } from './fleet.ts';
import { groupsEn } from './groups.ts';
import { cardsEn } from './cards.ts';
import { timelineEn } from './timeline.ts';
import { recordingsEn } from './recordings.ts';
import { wallEn } from './wall.ts';
import { auditEn } from './audit.ts';
import { publicEn } from './public.ts';

/**
 * The English texts of the areas only pages show (device view, fleet, groups, cards, ...): a chunk of its
 * own, loaded with the first page (src/router/page-assets.ts), not by the login page, shell or dashboard.
 */
export const enPages = {
  deviceView: deviceViewEn,
  fleet: fleetEn,
  groups: groupsEn,
  cards: cardsEn,
  timeline: timelineEn,
  recordings: recordingsEn,
  wall: wallEn,
  audit: auditEn,
  publicPages: publicEn,
};

export type PageMessages = typeof enPages;
