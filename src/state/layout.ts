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

interface LayoutState {
  sidebarOpened: boolean;
  /** Sidebar groups the user opened or closed; a group holding the current page opens by itself. */
  groupOpened: Record<string, boolean>;
  settingsOpened: boolean;
  settings: LayoutSettings;
}

const initialSidebar = storage()?.getItem(SIDEBAR_STORAGE_KEY);

/** Layout UI state. Components read it with useSnapshot; only the functions below change it. */
export const layout = proxy<LayoutState>({
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
