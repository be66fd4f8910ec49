import { Anchor, Group, NavLink, Paper, SegmentedControl, Stack, Text, Title, Typography } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearch } from 'wouter';
import type { DocumentDetail, DocumentSummary } from '../../../protocol/api/documents.ts';
import { documentApi } from '../../api/documents.ts';
import { authApi } from '../../api/auth.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage, switchLanguage } from '../../i18n/index.ts';
import { idParam, lastDocument, rememberDocument } from './document-paths.ts';

/** One document in the account's language (/document-library-detail/index). */
export function DocumentDetailPage() {
  const search = useSearch();
  const id = idParam(search, 'id') ?? lastDocument().id;
  return <DocumentView id={id} />;
}

/** The reader view: the subcategory's documents beside the open one (/document-library-detail-gitbook/index). */
export function DocumentGitbookPage() {
  const search = useSearch();
  const last = lastDocument();
  const category = idParam(search, 'category') ?? last.category;
  const [id, setId] = useState(idParam(search, 'id') ?? last.id);
  const [docs, setDocs] = useState<DocumentSummary[]>([]);
  useEffect(() => {
    if (category === undefined) return;
    documentApi.list(category).then((list) => {
      setDocs(list);
      setId((current) => current ?? list[0]?.id);
    }, () => undefined);
  }, [category]);
  return (
    <Group align="flex-start" wrap="nowrap">
      <Paper withBorder p="xs" w={240} style={{ flexShrink: 0 }}>
        {docs.map((d) => (
          <NavLink key={d.id} label={d.title} active={d.id === id} onClick={() => setId(d.id)} data-gitbook-document={d.id} />
        ))}
      </Paper>
      <div style={{ flex: 1, minWidth: 0 }}>
        <DocumentView id={id} category={category} />
      </div>
    </Group>
  );
}

function DocumentView({ id, category }: { id: number | undefined; category?: number | undefined }) {
  const { t } = useTranslation();
  const [loaded, setDoc] = useState<DocumentDetail | null>();
  const doc = id === undefined ? null : loaded;
  useEffect(() => {
    if (id === undefined) return;
    rememberDocument({ id, category });
    documentApi.detail(id).then(setDoc, () => setDoc(null));
  }, [id, category]);

  // The spec's switch: the account's language is stored first (documents are served in it), then the page
  // reloads without its query string; the open document comes back from the tab's memory.
  const changeLanguage = async (lang: string) => {
    const zh = lang === 'zh';
    await authApi.modifyLanguage(zh ? 1 : 2).catch(() => undefined);
    window.history.replaceState(null, '', window.location.pathname);
    switchLanguage(zh ? 'zh' : 'en');
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Anchor component={Link} href="/document-library/index" size="sm">
          {t('authoring.library.back')}
        </Anchor>
        <SegmentedControl
          size="xs"
          value={currentLanguage}
          onChange={(v) => void changeLanguage(v)}
          data={[
            { value: 'zh', label: '中文' },
            { value: 'en', label: 'English' },
          ]}
          aria-label={t('authoring.library.language')}
        />
      </Group>
      {doc === null && <Text c="dimmed">{id === undefined ? t('authoring.library.chooseDocument') : t('authoring.library.notFound')}</Text>}
      {doc && (
        <Paper withBorder p="md">
          <Title order={2} data-testid="document-title">
            {doc.title}
          </Title>
          <Text size="xs" c="dimmed" mb="md">
            {formatDateTime(doc.updateTime)}
          </Text>
          {/* Sanitised by the server when the document was saved (Markdown is rendered there first). */}
          <Typography>
            <div data-testid="document-content" dangerouslySetInnerHTML={{ __html: doc.content }} />
          </Typography>
        </Paper>
      )}
    </Stack>
  );
}
