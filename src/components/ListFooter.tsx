import { Group, Pagination, Select, Text } from '@mantine/core';

/** Page sizes and pager of platform-core section 9: options 10-100, pager count 7 (current +/- 2 siblings). */
export const PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;
const PAGER_SIBLINGS = 2;

interface Props {
  /** Rows on this page and in all; undefined while loading. */
  readonly shown: number | undefined;
  readonly total: number | undefined;
  readonly emptyText: string;
  readonly pageNum: number;
  readonly pageSize: number;
  readonly onPage: (pageNum: number) => void;
  /** Offer the page-size choice; omit for fixed-size lists. */
  readonly onPageSize?: (pageSize: number) => void;
}

/** The one footer of every list: an empty state, the page-size choice and the pager. */
export function ListFooter({ shown, total, emptyText, pageNum, pageSize, onPage, onPageSize }: Props) {
  return (
    <>
      {shown === 0 && (
        <Text ta="center" c="dimmed" my="lg" data-testid="table-empty">
          {emptyText}
        </Text>
      )}
      <Group justify="flex-end" mt="md">
        {onPageSize && (
          <Select
            w={90}
            size="xs"
            data={PAGE_SIZES.map(String)}
            value={String(pageSize)}
            onChange={(v) => v && onPageSize(Number(v))}
            allowDeselect={false}
          />
        )}
        <Pagination total={Math.max(1, Math.ceil((total ?? 0) / pageSize))} value={pageNum} onChange={onPage} siblings={PAGER_SIBLINGS} size="sm" />
      </Group>
    </>
  );
}
