import { type MenuProps, type SelectProps, TextInput, type TooltipFloatingProps, type TooltipProps } from '@mantine/core';
import { cloneElement, type FocusEvent, type MouseEvent, type ReactElement, type ReactNode, type Ref, useEffect, useRef, useSyncExternalStore } from 'react';

/**
 * The shell's menus, tooltips and language select are Mantine components built on floating-ui, Popover and
 * Combobox: about 48 kB gzip, a fifth of what the shell loaded with the dashboard (issue 21). None of it is
 * needed to show the shell, so it is fetched on the first pointer, touch or focus event in the shell
 * (loadFloating, called by Shell). Until it is in, each control renders its target alone; a click, right
 * click or focus that reaches a target before is replayed on the real component once it is there, so the
 * first click still opens the menu.
 */
type Parts = typeof import('./parts.ts');

let parts: Parts | undefined;
let pending: Promise<void> | undefined;
const listeners = new Set<() => void>();

/** Starts fetching the floating parts (once; a failed fetch is tried again on the next interaction). */
export function loadFloating(): void {
  pending ??= import('./parts.ts').then(
    (m) => {
      parts = m;
      for (const listener of listeners) listener();
    },
    () => {
      pending = undefined;
    },
  );
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function useParts(): Parts | undefined {
  return useSyncExternalStore(subscribe, () => parts);
}

/** An event that reached a target before the parts: replayed on the real one (its element is a new one). */
type Early = { readonly type: 'click' | 'contextmenu'; readonly x: number; readonly y: number } | { readonly type: 'focus' };

/**
 * Records the first click, right click or focus on a placeholder target, starts the fetch, and replays
 * the event on the element `ref` points to once the real component has rendered.
 */
function useReplay(loaded: boolean) {
  const ref = useRef<HTMLElement>(null);
  const early = useRef<Early | null>(null);
  useEffect(() => {
    const event = early.current;
    const el = ref.current;
    if (!loaded || !event || !el) return;
    early.current = null;
    // A real click focuses its target before the click; the replayed one does the same.
    if (event.type !== 'contextmenu') el.focus();
    if (event.type !== 'focus') el.dispatchEvent(new window.MouseEvent(event.type, { bubbles: true, cancelable: true, clientX: event.x, clientY: event.y, button: event.type === 'click' ? 0 : 2 }));
  }, [loaded]);
  const record = (e: MouseEvent | FocusEvent, type: Early['type']) => {
    if (type === 'contextmenu') e.preventDefault();
    early.current = 'clientX' in e ? { type: type as 'click' | 'contextmenu', x: e.clientX, y: e.clientY } : { type: 'focus' };
    loadFloating();
  };
  return { ref, record };
}

/** A Mantine Tooltip once the parts are in; before, the child alone (a tooltip only repeats a label). */
export function Tip({ children, ...props }: TooltipProps) {
  const p = useParts();
  return p ? <p.Tooltip {...props}>{children}</p.Tooltip> : children;
}

/** Mantine's Menu with its parts (Item, Label, Dropdown…), as a dropdown render function gets it. */
export type FloatingMenu = Parts['Menu'];
type TargetProps = { onClick?: (e: MouseEvent) => void; onContextMenu?: (e: MouseEvent) => void; ref?: Ref<HTMLElement> };

export interface DeferredMenuProps extends Omit<MenuProps, 'children' | 'defaultOpened' | 'opened'> {
  /** What opens the menu: a click on it (Menu.Target), or a right click or long press (Menu.ContextMenu). */
  readonly target: ReactElement<TargetProps>;
  readonly contextMenu?: boolean;
  /** The dropdown (`<menu.Dropdown>`), given the loaded Menu. */
  readonly dropdown: (menu: FloatingMenu) => ReactNode;
}

/** A Mantine Menu once the parts are in; before, its target, whose first click or right click opens it. */
export function DeferredMenu({ target, contextMenu = false, dropdown, ...props }: DeferredMenuProps) {
  const p = useParts();
  const { ref, record } = useReplay(p !== undefined);
  if (!p) {
    const own = target.props;
    return cloneElement(
      target,
      contextMenu
        ? { onContextMenu: (e: MouseEvent) => (own.onContextMenu?.(e), record(e, 'contextmenu')) }
        : { onClick: (e: MouseEvent) => (own.onClick?.(e), record(e, 'click')) },
    );
  }
  const { Menu } = p;
  const withRef = cloneElement(target, { ref });
  return (
    <Menu {...props}>
      {contextMenu ? <Menu.ContextMenu>{withRef}</Menu.ContextMenu> : <Menu.Target>{withRef}</Menu.Target>}
      {dropdown(Menu)}
    </Menu>
  );
}

/** Options of {@link DeferredSelect}: a value is always chosen, so the placeholder shows its label. */
export interface DeferredSelectProps extends Omit<SelectProps, 'data' | 'value' | 'ref'> {
  readonly value: string;
  readonly data: readonly { readonly value: string; readonly label: string }[];
}

/** Mantine's Combobox chevron (up and down), so the placeholder looks as the Select will. */
function SelectChevron() {
  return (
    <svg viewBox="0 0 15 15" width={14} height={14} fill="none" aria-hidden style={{ color: 'var(--mantine-color-dimmed)' }}>
      <path
        d="M4.93179 5.43179C4.75605 5.60753 4.75605 5.89245 4.93179 6.06819C5.10753 6.24392 5.39245 6.24392 5.56819 6.06819L7.49999 4.13638L9.43179 6.06819C9.60753 6.24392 9.89245 6.24392 10.0682 6.06819C10.2439 5.89245 10.2439 5.60753 10.0682 5.43179L7.81819 3.18179C7.73379 3.0974 7.61933 3.04999 7.49999 3.04999C7.38064 3.04999 7.26618 3.0974 7.18179 3.18179L4.93179 5.43179ZM10.0682 9.56819C10.2439 9.39245 10.2439 9.10753 10.0682 8.93179C9.89245 8.75606 9.60753 8.75606 9.43179 8.93179L7.49999 10.8636L5.56819 8.93179C5.39245 8.75606 5.10753 8.75606 4.93179 8.93179C4.75605 9.10753 4.75605 9.39245 4.93179 9.56819L7.18179 11.8182C7.35753 11.9939 7.64245 11.9939 7.81819 11.8182L10.0682 9.56819Z"
        fill="currentColor"
        fillRule="evenodd"
        clipRule="evenodd"
      />
    </svg>
  );
}

/**
 * A Mantine Select once the parts are in; before, a read-only input that looks the same and shows the
 * chosen option (a combobox to assistive technology, as the real one is); its first click opens the list.
 */
export function DeferredSelect({ value, data, ...props }: DeferredSelectProps) {
  const p = useParts();
  const { ref, record } = useReplay(p !== undefined);
  if (p) return <p.Select ref={ref as Ref<HTMLInputElement>} value={value} data={[...data]} {...props} />;
  return (
    <TextInput
      readOnly
      pointer
      role="combobox"
      aria-haspopup="listbox"
      aria-expanded={false}
      aria-label={props['aria-label']}
      w={props.w}
      size={props.size}
      value={data.find((d) => d.value === value)?.label ?? value}
      rightSection={<SelectChevron />}
      rightSectionPointerEvents="none"
      onClick={(e) => record(e, 'click')}
      onFocus={(e) => record(e, 'focus')}
    />
  );
}

/** A Mantine Tooltip.Floating (a label that follows the pointer) once the parts are in; before, the child alone. */
export function FloatingTip({ children, ...props }: TooltipFloatingProps) {
  const p = useParts();
  return p ? <p.Tooltip.Floating {...props}>{children}</p.Tooltip.Floating> : children;
}
