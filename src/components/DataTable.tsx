import { Alert, Anchor, Button, Checkbox, Group, Loader, Popover, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import type React from 'react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import type { Page } from '../../protocol/api/devices.ts';
import { session } from '../state/session.ts';
import { ListFooter, PAGE_SIZES } from './ListFooter.tsx';
import { usePaging } from './use-paging.ts';
import classes from './DataTable.module.css';

export type SortOrder = 'asc' | 'desc';
export interface Sort {
  readonly key: string;
  readonly order: SortOrder;
}

export interface DataColumn<T> {
  readonly key: string;
  readonly title: string;
  readonly render: (row: T) => React.ReactNode;
  /** The server sorts by this key. */
  readonly sortable?: boolean;
  /** Always shown: not offered in the column choice. */
  readonly fixed?: boolean;
  /** Hidden until the user picks it. */
  readonly hiddenByDefault?: boolean;
  readonly style?: React.CSSProperties;
}

export interface ListQuery {
  readonly pageNum: number;
  /** One of the spec's sizes (platform-core section 9). */
  readonly pageSize: (typeof PAGE_SIZES)[number];
  readonly sort: Sort | undefined;
}

/** The rows chosen: listed ids, or every row matching the current filter (across pages). */
export interface Selection<K> {
  readonly ids: readonly K[];
  readonly allMatching: boolean;
  /** How many rows the selection covers. */
  readonly count: number;
}

interface Props<T, K extends string | number> {
  /** Names the table in the remembered column choice (per user, in localStorage). */
  readonly id: string;
  readonly columns: readonly DataColumn<T>[];
  readonly rowKey: (row: T) => K;
  /** Loads one page; called again whenever `query` or `reload` changes. */
  readonly load: (q: ListQuery) => Promise<Page<T>>;
  /** The filters: a change goes back to page 1 and drops the selection. */
  readonly filterKey?: string;
  /** Bump to load the current page again (after an action). */
  readonly reload?: number;
  /** Sorted column when the user has chosen none; descending (platform-core section 9). */
  readonly defaultSort?: string;
  readonly actions?: (row: T) => React.ReactNode;
  /**
   * Offer row selection; the toolbar gets it (with select-all-matching across pages), a way to clear it and
   * one to keep only some listed rows chosen (e.g. those a bounded action left).
   */
  readonly toolbar?: (selection: Selection<K>, clear: () => void, keepOnly: (ids: readonly K[]) => void) => React.ReactNode;
  readonly emptyText?: string;
  /** Extra attributes of a row (e.g. data-* for tests). */
  readonly rowProps?: (row: T) => Record<string, string>;
  /** Names a row's selection checkbox for assistive technology (default: "Select row"). */
  readonly rowLabel?: (row: T) => string;
  /** Reorders a loaded page for display (e.g. as a tree); each row may get an indent depth. */
  readonly arrange?: (rows: readonly T[]) => readonly { row: T; depth: number }[];
  readonly testId?: string;
  /**
   * A row as it is now: changes that arrived after its page was loaded (e.g. from a live stream) laid over
   * it when it is shown, without loading the page again.
   */
  readonly current?: (row: T) => T;
}


const storageKey = (userId: number | undefined, table: string) => `datatable:${userId ?? 0}:${table}:columns`;

function readHidden(key: string, columns: readonly DataColumn<unknown>[]): Set<string> {
  try {
    const stored = localStorage.getItem(key);
    if (stored) {
      const parsed: unknown = JSON.parse(stored);
      if (Array.isArray(parsed)) return new Set(parsed.filter((x): x is string => typeof x === 'string'));
    }
  } catch {
    // A broken entry is as good as none.
  }
  return new Set(columns.filter((c) => c.hiddenByDefault).map((c) => c.key));
}

/**
 * The one list page table: server paging (sizes 10-100, pager count 7), sorting (descending first),
 * a column choice remembered per user, selection of the page or of every matching row, loading, empty and
 * error states with text, a sticky header, and a row-actions column that never wraps nor clips.
 */
export function DataTable<T, K extends string | number>(props: Props<T, K>) {
  const { t } = useTranslation();
  const { columns, rowKey, load, filterKey = '', reload = 0, defaultSort, actions, toolbar, rowProps, rowLabel, arrange, current } = props;
  const userId = useSnapshot(session).user?.id;
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [sort, setSort] = useState<Sort | undefined>(defaultSort ? { key: defaultSort, order: 'desc' } : undefined);
  const [result, setResult] = useState<{ key: string; page?: Page<T>; failed?: boolean }>();
  const [selected, setSelected] = useState<ReadonlySet<K>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const [retry, setRetry] = useState(0);
  const key = storageKey(userId, props.id);
  const [choice, setChoice] = useState<{ key: string; hidden: ReadonlySet<string> }>();
  const hidden = choice?.key === key ? choice.hidden : readHidden(key, columns as readonly DataColumn<unknown>[]);

  const clear = useCallback(() => {
    setSelected(new Set());
    setAllMatching(false);
  }, []);
  const keepOnly = useCallback((ids: readonly K[]) => {
    setSelected(new Set(ids));
    setAllMatching(false);
  }, []);

  // A new filter starts at page 1 with nothing selected (adjusted while rendering, not in an effect).
  const [seenFilter, setSeenFilter] = useState(filterKey);
  if (seenFilter !== filterKey) {
    setSeenFilter(filterKey);
    setPageNum(1);
    clear();
  }

  // usePaging only ever holds one of PAGE_SIZES.
  const query = useMemo((): ListQuery => ({ pageNum, pageSize: pageSize as ListQuery['pageSize'], sort }), [pageNum, pageSize, sort]);
  const requestKey = JSON.stringify([query, filterKey, reload, retry]);
  useEffect(() => {
    let current = true;
    load(query).then(
      (p) => current && setResult({ key: requestKey, page: p }),
      () => current && setResult({ key: requestKey, failed: true }),
    );
    return () => {
      current = false;
    };
  }, [load, query, requestKey]);
  const state: 'loading' | 'ready' | 'error' = result?.key !== requestKey ? 'loading' : result.failed ? 'error' : 'ready';
  const page = result?.page;

  const loaded = page?.list ?? [];
  const rows = current ? loaded.map(current) : loaded;
  const shown = arrange ? arrange(rows) : rows.map((row) => ({ row, depth: 0 }));
  const visible = columns.filter((c) => c.fixed || !hidden.has(c.key));
  const pageIds = rows.map(rowKey);
  const pageAll = pageIds.length > 0 && pageIds.every((id) => selected.has(id));
  const pageSome = pageIds.some((id) => selected.has(id));
  const total = page?.total ?? 0;

  const toggleColumn = (col: string, show: boolean) => {
    const next = new Set(hidden);
    if (show) next.delete(col);
    else next.add(col);
    setChoice({ key, hidden: next });
    localStorage.setItem(key, JSON.stringify([...next]));
  };
  const toggleSort = (col: string) => {
    setSort((s) => (s?.key === col ? { key: col, order: s.order === 'desc' ? 'asc' : 'desc' } : { key: col, order: 'desc' }));
    setPageNum(1);
  };
  const togglePage = (on: boolean) => {
    setAllMatching(false);
    setSelected((s) => {
      const next = new Set(s);
      for (const id of pageIds) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });
  };
  const toggleRow = (id: K, on: boolean) => {
    setAllMatching(false);
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  };
  const selection: Selection<K> = { ids: [...selected], allMatching, count: allMatching ? total : selected.size };
  const colCount = visible.length + (toolbar ? 1 : 0) + (actions ? 1 : 0);

  return (
    <Stack gap="xs" data-testid={props.testId}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <Group gap="xs">{toolbar?.(selection, clear, keepOnly)}</Group>
        <Group gap="xs" wrap="nowrap">
        {page && (
          <Text size="sm" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid="table-total">
            {t('kit.table.total', { total: page.total })}
          </Text>
        )}
        <Popover position="bottom-end" withinPortal shadow="md">
          <Popover.Target>
            <Button size="xs" variant="default" data-testid="table-columns">
              {t('kit.table.columns')}
            </Button>
          </Popover.Target>
          <Popover.Dropdown>
            <Stack gap={6}>
              {columns
                .filter((c) => !c.fixed)
                .map((c) => (
                  <Checkbox key={c.key} size="xs" label={c.title} checked={!hidden.has(c.key)} onChange={(e) => toggleColumn(c.key, e.currentTarget.checked)} data-column={c.key} />
                ))}
            </Stack>
          </Popover.Dropdown>
        </Popover>
        </Group>
      </Group>
      {toolbar && pageAll && total > pageIds.length && (
        <Alert variant="light" p={6} data-testid="table-select-banner">
          <Group gap="xs">
            {allMatching ? (
              <>
                <Text size="sm">{t('kit.table.allMatchingSelected', { total })}</Text>
                <Anchor component="button" type="button" size="sm" onClick={clear}>
                  {t('kit.table.clearSelection')}
                </Anchor>
              </>
            ) : (
              <>
                <Text size="sm">{t('kit.table.selectedOnPage', { count: pageIds.length })}</Text>
                <Anchor component="button" type="button" size="sm" onClick={() => setAllMatching(true)} data-testid="table-select-all-matching">
                  {t('kit.table.selectAllMatching', { total })}
                </Anchor>
              </>
            )}
          </Group>
        </Alert>
      )}
      {/* The header sticks within the table's own scroll box, at most the window's height less the shell's bars. */}
      <Table.ScrollContainer minWidth={600} maxHeight="calc(100vh - 220px)" type="native">
        <Table className={classes.table} stickyHeader highlightOnHover verticalSpacing={6}>
          <Table.Thead>
            <Table.Tr>
              {toolbar && (
                <Table.Th w={36}>
                  <Checkbox
                    size="xs"
                    aria-label={t('kit.table.selectPage')}
                    checked={pageAll || (allMatching && rows.length > 0)}
                    indeterminate={!pageAll && pageSome}
                    onChange={(e) => togglePage(e.currentTarget.checked)}
                    data-testid="table-select-page"
                  />
                </Table.Th>
              )}
              {visible.map((c) => (
                <Table.Th key={c.key} style={{ whiteSpace: 'nowrap', ...c.style }} aria-sort={sort?.key === c.key ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                  {c.sortable ? (
                    <UnstyledButton onClick={() => toggleSort(c.key)} fw={700} fz="sm" data-sort={c.key}>
                      {c.title} {sort?.key === c.key ? (sort.order === 'asc' ? '▲' : '▼') : '↕'}
                    </UnstyledButton>
                  ) : (
                    c.title
                  )}
                </Table.Th>
              ))}
              {actions && <Table.Th className={classes.actions}>{t('kit.table.actions')}</Table.Th>}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {state === 'ready' &&
              shown.map(({ row, depth }) => {
                const id = rowKey(row);
                return (
                  <Table.Tr key={String(id)} {...rowProps?.(row)}>
                    {toolbar && (
                      <Table.Td>
                        <Checkbox size="xs" aria-label={rowLabel?.(row) ?? t('kit.table.selectRow')} checked={allMatching || selected.has(id)} onChange={(e) => toggleRow(id, e.currentTarget.checked)} />
                      </Table.Td>
                    )}
                    {visible.map((c, i) => (
                      <Table.Td key={c.key} style={{ ...c.style, ...(i === 0 && depth > 0 ? { paddingLeft: 12 + depth * 20 } : {}) }}>
                        {c.render(row)}
                      </Table.Td>
                    ))}
                    {actions && (
                      <Table.Td className={classes.actions}>
                        <Group gap={4} wrap="nowrap">
                          {actions(row)}
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
            {state !== 'ready' && (
              <Table.Tr>
                <Table.Td colSpan={colCount}>
                  {state === 'loading' ? (
                    <Group justify="center" gap="xs" my="md" data-testid="table-loading">
                      <Loader size="xs" />
                      <Text c="dimmed">{t('kit.table.loading')}</Text>
                    </Group>
                  ) : (
                    <Group justify="center" gap="xs" my="md" data-testid="table-error">
                      <Text c="red">{t('kit.table.error')}</Text>
                      <Button size="compact-xs" variant="light" onClick={() => setRetry((n) => n + 1)}>
                        {t('kit.table.retry')}
                      </Button>
                    </Group>
                  )}
                </Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <ListFooter
        shown={state === 'ready' ? rows.length : undefined}
        total={page?.total}
        emptyText={props.emptyText ?? t('kit.table.empty')}
        {...paging.footer}
        onPageSize={(size) => {
          paging.footer.onPageSize(size);
          clear();
        }}
      />
    </Stack>
  );
}
