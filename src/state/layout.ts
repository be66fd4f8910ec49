import { proxy } from 'valtio';
import { DEFAULT_THEME_COLOR, isHexColor, normalizeHex } from '../layout/theme.ts';

/** localStorage entry of the sidebar open state (JSON true/false, as it has always been stored). */
export const SIDEBAR_STORAGE_KEY = 'sidebarStatus';
/** localStorage entry of the settings panel's choices. */
export const SETTINGS_STORAGE_KEY = 'layoutSettings';

/** The settings panel's choices (platform-core section 2, layout shell). */
export interface LayoutSettings {
  themeColor: string;
  tagsView: boolean;
  fixedHeader: boolean;
  sidebarLogo: boolean;
}

/** Defaults: theme #1890ff, tags view on, fixed header off, sidebar logo off. */
export const DEFAULT_SETTINGS: Readonly<LayoutSettings> = { themeColor: DEFAULT_THEME_COLOR, tagsView: true, fixedHeader: false, sidebarLogo: false };

/** Reads stored settings; anything missing, malformed or of the wrong type falls back to its default. */
export function parseSettings(raw: string | null): LayoutSettings {
  let stored: Record<string, unknown> = {};
  try {
    const value: unknown = raw === null ? {} : JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) stored = value as Record<string, unknown>;
  } catch {
    // A damaged entry is as good as none.
  }
  const flag = (key: 'tagsView' | 'fixedHeader' | 'sidebarLogo') => (typeof stored[key] === 'boolean' ? stored[key] : DEFAULT_SETTINGS[key]);
  const color = stored.themeColor;
  return {
    themeColor: typeof color === 'string' && isHexColor(color) ? normalizeHex(color) : DEFAULT_SETTINGS.themeColor,
    tagsView: flag('tagsView'),
    fixedHeader: flag('fixedHeader'),
    sidebarLogo: flag('sidebarLogo'),
  };
}

/** localStorage, or nothing where there is none (unit tests run in Node). */
function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

/** Layout width target and the width under which the desktop layout is scaled (platform-core section 9). */
export const DESIGN_WIDTH = 1600;
export const SCALE_BELOW = 1340;

/** The desktop layout's scale at a viewport width: 1 from 1340 px up, else width / 1600 (as if 1600 px wide). */
export function scaleFor(width: number): number {
  return width >= SCALE_BELOW || width <= 0 ? 1 : width / DESIGN_WIDTH;
}

/** localStorage entry of the chosen layout: 'mobile' (the phone layout) or 'desktop'. */
export const LAYOUT_MODE_KEY = 'layoutMode';
/** Without a stored choice, viewports narrower than this get the phone layout. */
export const PHONE_MAX_WIDTH = 768;
export type LayoutMode = 'mobile' | 'desktop';

/** The layout mode: a `?mobile=1|0` link wins, then the stored choice, then the viewport width. */
export function pickLayoutMode(linkParam: string | null, stored: string | null, width: number): LayoutMode {
  if (linkParam === '1') return 'mobile';
  if (linkParam === '0') return 'desktop';
  if (stored === 'mobile' || stored === 'desktop') return stored;
  return width > 0 && width < PHONE_MAX_WIDTH ? 'mobile' : 'desktop';
}

interface LayoutState {
  /** The phone layout (the login page's mobile-version link) instead of the desktop shell. */
  mode: LayoutMode;
  /** Scale of the desktop layout on narrow screens. */
  scale: number;
  sidebarOpened: boolean;
  /** Sidebar groups the user opened or closed; a group holding the current page opens by itself. */
  groupOpened: Record<string, boolean>;
  settingsOpened: boolean;
  settings: LayoutSettings;
}

const initialSidebar = storage()?.getItem(SIDEBAR_STORAGE_KEY);
const initialWidth = typeof window === 'undefined' ? 0 : window.innerWidth;
const linkMode = typeof window === 'undefined' ? null : new URLSearchParams(window.location.search).get('mobile');
const initialMode = pickLayoutMode(linkMode, storage()?.getItem(LAYOUT_MODE_KEY) ?? null, initialWidth);
// A link's choice is remembered, so the phone layout stays after login and reloads.
if (linkMode === '1' || linkMode === '0') storage()?.setItem(LAYOUT_MODE_KEY, initialMode);

/** Layout UI state. Components read it with useSnapshot; only the functions below change it. */
export const layout = proxy<LayoutState>({
  mode: initialMode,
  scale: scaleFor(initialWidth),
  sidebarOpened: initialSidebar !== 'false',
  groupOpened: {},
  settingsOpened: false,
  settings: parseSettings(storage()?.getItem(SETTINGS_STORAGE_KEY) ?? null),
});

/** Opens or collapses the sidebar and remembers it across visits. */
export function toggleSidebar(): void {
  layout.sidebarOpened = !layout.sidebarOpened;
  storage()?.setItem(SIDEBAR_STORAGE_KEY, JSON.stringify(layout.sidebarOpened));
}

export function setGroupOpened(group: string, opened: boolean): void {
  layout.groupOpened[group] = opened;
}

export function setSettingsOpened(opened: boolean): void {
  layout.settingsOpened = opened;
}

/** Changes one setting and stores them all; an invalid theme colour is ignored. */
export function changeSetting<K extends keyof LayoutSettings>(key: K, value: LayoutSettings[K]): void {
  if (key === 'themeColor' && !(typeof value === 'string' && isHexColor(value))) return;
  layout.settings[key] = key === 'themeColor' ? (normalizeHex(value as string) as LayoutSettings[K]) : value;
  storage()?.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(layout.settings));
}

export function resetSettings(): void {
  layout.settings = { ...DEFAULT_SETTINGS };
  storage()?.removeItem(SETTINGS_STORAGE_KEY);
}

/** Switches between the phone and the desktop layout and remembers the choice. */
export function setLayoutMode(mode: LayoutMode): void {
  layout.mode = mode;
  storage()?.setItem(LAYOUT_MODE_KEY, mode);
}

/** Follows the viewport width (window resize). */
export function updateScale(width: number): void {
  const next = scaleFor(width);
  if (next !== layout.scale) layout.scale = next;
}
