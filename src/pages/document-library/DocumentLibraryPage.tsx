import { Grid, NavLink, Paper, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import type { CategoryNode, DocumentSummary } from '../../../protocol/api/documents.ts';
import { documentApi } from '../../api/documents.ts';
import { formatDateTime } from '../../format/date.ts';
import { detailPath, gitbookPath } from './document-paths.ts';

/** The document library (platform-core section 2): the two-level category tree and a subcategory's documents. */
export function DocumentLibraryPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [tree, setTree] = useState<CategoryNode[]>();
  const [selected, setSelected] = useState<number>();
  const [docs, setDocs] = useState<DocumentSummary[]>([]);
  const [filter, setFilter] = useState('');

  useEffect(() => {
    documentApi.tree().then((loaded) => {
      setTree(loaded);
      // Opens on the first subcategory, so the page never starts empty when there is something to read.
      setSelected((s) => s ?? loaded.find((c) => c.children.length > 0)?.children[0]?.id);
    }, () => undefined);
  }, []);
  useEffect(() => {
    if (selected === undefined) return;
    documentApi.list(selected).then(setDocs, () => undefined);
  }, [selected]);

  const shown = useMemo(() => {
    const q = filter.trim().toLowerCase();
    return q ? docs.filter((d) => d.title.toLowerCase().includes(q)) : docs;
  }, [docs, filter]);

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
              <Table highlightOnHover>
                <Table.Tbody>
                  {shown.map((d) => (
                    <Table.Tr key={d.id} data-library-document={d.id} style={{ cursor: 'pointer' }} onClick={() => navigate(detailPath(d.id))}>
                      <Table.Td>{d.title}</Table.Td>
                      <Table.Td>{formatDateTime(d.updateTime)}</Table.Td>
                      <Table.Td
                        onClick={(e) => {
                          e.stopPropagation();
                          if (selected !== undefined) navigate(gitbookPath(selected, d.id));
                        }}
                      >
                        <Text size="sm" c="blue">
                          {t('authoring.library.reader')}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              {selected !== undefined && shown.length === 0 && (
                <Text size="sm" c="dimmed">
                  {t('authoring.document.noDocuments')}
                </Text>
              )}
            </Paper>
          </Grid.Col>
        </Grid>
      )}
    </>
  );
}
