import { Anchor, Button, Grid, NavLink, Paper, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import type { CategoryNode, DocumentSummary } from '../../../protocol/api/documents.ts';
import { documentApi } from '../../api/documents.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { formatDateTime } from '../../format/date.ts';
import { detailPath, gitbookPath } from './document-paths.ts';

const SORT_BY: SortValues<DocumentSummary> = { title: (d) => d.title.toLowerCase(), updateTime: (d) => d.updateTime };

/** The document library (platform-core section 2): the two-level category tree and a subcategory's documents. */
export function DocumentLibraryPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [tree, setTree] = useState<CategoryNode[]>();
  const [selected, setSelected] = useState<number>();
  const [filter, setFilter] = useState('');
  const query = filter.trim().toLowerCase();

  useEffect(() => {
    documentApi.tree().then((loaded) => {
      setTree(loaded);
      // Opens on the first subcategory, so the page never starts empty when there is something to read.
      setSelected((s) => s ?? loaded.find((c) => c.children.length > 0)?.children[0]?.id);
    }, () => undefined);
  }, []);
  // A subcategory's documents come whole; the title filter, sorting and paging happen here.
  const load = useCallback(
    async (q: ListQuery) => {
      if (selected === undefined) return { total: 0, list: [] };
      const docs = await documentApi.list(selected);
      return localPage(query ? docs.filter((d) => d.title.toLowerCase().includes(query)) : docs, q, SORT_BY);
    },
    [selected, query],
  );
  const columns: DataColumn<DocumentSummary>[] = [
    {
      key: 'title',
      title: t('authoring.library.title'),
      fixed: true,
      sortable: true,
      render: (d) => (
        <Anchor component="button" type="button" size="sm" onClick={() => navigate(detailPath(d.id))}>
          {d.title}
        </Anchor>
      ),
    },
    { key: 'updateTime', title: t('authoring.document.updated'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (d) => formatDateTime(d.updateTime) },
  ];

  return (
    <>
      <Title order={3} mb="md">
        {t('route.documentLibrary')}
      </Title>
      {tree?.length === 0 ? (
        <Text c="dimmed">{t('authoring.library.empty')}</Text>
      ) : (
        <Grid>
          <Grid.Col span={{ base: 12, md: 3 }}>
            <Paper withBorder p="xs">
              {tree?.map((top) => (
                <NavLink key={top.id} label={top.name} defaultOpened childrenOffset={16}>
                  {top.children.map((child) => (
                    <NavLink key={child.id} label={child.name} active={child.id === selected} onClick={() => setSelected(child.id)} data-library-category={child.id} />
                  ))}
                </NavLink>
              ))}
            </Paper>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 9 }}>
            <Paper withBorder p="sm">
              <TextInput placeholder={t('authoring.library.search')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} mb="sm" maxLength={128} />
              {selected !== undefined && (
                <DataTable<DocumentSummary, number>
                  id="document-library"
                  columns={columns}
                  rowKey={(d) => d.id}
                  rowProps={(d) => ({ 'data-library-document': String(d.id) })}
                  load={load}
                  filterKey={`${selected}:${query}`}
                  emptyText={t('authoring.document.noDocuments')}
                  actions={(d) => (
                    <Button size="compact-xs" variant="subtle" onClick={() => navigate(gitbookPath(selected, d.id))}>
                      {t('authoring.library.reader')}
                    </Button>
                  )}
                />
              )}
            </Paper>
          </Grid.Col>
        </Grid>
      )}
    </>
  );
}
