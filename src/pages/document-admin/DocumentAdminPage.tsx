import { ActionIcon, Button, Grid, Group, Modal, NavLink, Paper, SegmentedControl, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CategoryAuthoringNode, DocumentFormat, DocumentSummary } from '../../../protocol/api/documents.ts';
import { type DocumentInput, documentApi } from '../../api/documents.ts';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type Rule, rules, useConsoleForm } from '../../components/use-console-form.ts';
import { MAX_CONTENT, MAX_TEXT } from '../../../protocol/api/common.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { FormActions } from '../../components/FormActions.tsx';

interface CategoryDraft {
  id?: number;
  parentId: number | null;
  nameZh: string;
  nameEn: string;
}

type DocumentDraft = Omit<DocumentInput, 'id'> & { id?: number };

type CategoryValues = { nameZh: string; nameEn: string };
type DocumentValues = { titleZh: string; titleEn: string; format: string; contentZh: string; contentEn: string };
const EMPTY_DOCUMENT: DocumentValues = { titleZh: '', titleEn: '', format: 'markdown', contentZh: '', contentEn: '' };

/** Filled here or in `other`: a name or title is given in at least one language. */
const oneOf =
  (other: string, key: string): Rule =>
  (v, values) =>
    v.trim() || (values[other] ?? '').trim() ? undefined : { key };

type Pending = { kind: 'category'; id: number; name: string } | { kind: 'document'; id: number; title: string };

const SORT_BY: SortValues<DocumentSummary> = { title: (d) => d.title.toLowerCase(), updateTime: (d) => d.updateTime };
const nameOf = (c: { nameZh: string; nameEn: string }) => (currentLanguage === 'zh' ? c.nameZh || c.nameEn : c.nameEn || c.nameZh);

/** Document authoring: the two-level category tree and the documents of a subcategory, in Chinese and English. */
export function DocumentAdminPage() {
  const { t } = useTranslation();
  const [tree, setTree] = useState<CategoryAuthoringNode[]>([]);
  const [selected, setSelected] = useState<number>();
  const [docsReload, setDocsReload] = useState(0);
  /** The category open in its dialog (its id when edited, its parent when added). */
  const [category, setCategory] = useState<Omit<CategoryDraft, 'nameZh' | 'nameEn'>>();
  /** The document open in its dialog (its id when edited, its category). */
  const [doc, setDoc] = useState<Pick<DocumentDraft, 'id' | 'categoryId'>>();
  const categoryForm = useConsoleForm<CategoryValues>({
    initialValues: { nameZh: '', nameEn: '' },
    rules: { nameZh: [rules.maxLength(MAX_TEXT)], nameEn: [oneOf('nameZh', 'authoring.document.nameRequired'), rules.maxLength(MAX_TEXT)] },
  });
  const documentForm = useConsoleForm<DocumentValues>({
    initialValues: EMPTY_DOCUMENT,
    rules: {
      titleZh: [oneOf('titleEn', 'authoring.document.titleRequired'), rules.maxLength(MAX_TEXT)],
      titleEn: [rules.maxLength(MAX_TEXT)],
      contentZh: [rules.maxLength(MAX_CONTENT)],
      contentEn: [rules.maxLength(MAX_CONTENT)],
    },
  });
  const [pending, setPending] = useState<Pending>();

  const loadTree = useCallback(() => {
    documentApi.manageTree().then(setTree, () => undefined);
  }, []);
  useEffect(loadTree, [loadTree]);
  // A subcategory's documents come whole; the table sorts and pages them here.
  const loadDocs = useCallback(async (q: ListQuery) => localPage(selected === undefined ? [] : await documentApi.list(selected), q, SORT_BY), [selected]);
  const refreshDocs = () => setDocsReload((n) => n + 1);
  const columns: DataColumn<DocumentSummary>[] = [
    { key: 'title', title: t('authoring.library.title'), fixed: true, sortable: true, render: (d) => d.title },
    { key: 'updateTime', title: t('authoring.document.updated'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (d) => formatDateTime(d.updateTime) },
  ];

  const saved = () => notifications.show({ color: 'green', message: t('authoring.document.saved'), autoClose: TOAST_MS });

  const saveCategory = async (values: CategoryValues) => {
    if (!category) return;
    await documentApi.saveCategory({ ...category, nameZh: values.nameZh.trim(), nameEn: values.nameEn.trim() });
    setCategory(undefined);
    saved();
    loadTree();
  };

  const openDocument = (open: Pick<DocumentDraft, 'id' | 'categoryId'>, values: DocumentValues) => {
    documentForm.form.setValues(values);
    documentForm.form.clearErrors();
    setDoc(open);
  };
  const editDocument = async (id: number) => {
    const source = await documentApi.source(id).catch(() => undefined);
    if (!source) return;
    openDocument({ id, categoryId: source.categoryId }, { titleZh: source.titleZh, titleEn: source.titleEn, format: source.format, contentZh: source.sourceZh, contentEn: source.sourceEn });
  };

  const saveDocument = async (values: DocumentValues) => {
    if (!doc) return;
    const format: DocumentFormat = values.format === 'html' ? 'html' : 'markdown';
    await documentApi.saveDocument({ ...doc, ...values, format, titleZh: values.titleZh.trim(), titleEn: values.titleEn.trim() });
    setDoc(undefined);
    saved();
    refreshDocs();
  };

  const confirmDelete = () => {
    const target = pending;
    setPending(undefined);
    if (!target) return;
    if (target.kind === 'category') {
      documentApi.deleteCategory(target.id).then(() => {
        if (selected === target.id) setSelected(undefined);
        loadTree();
      }, () => undefined);
    } else {
      documentApi.deleteDocument(target.id).then(refreshDocs, () => undefined);
    }
  };

  const openCategory = ({ nameZh, nameEn, ...open }: CategoryDraft) => {
    categoryForm.form.setValues({ nameZh, nameEn });
    categoryForm.form.clearErrors();
    setCategory(open);
  };
  const selectedName = tree.flatMap((c) => c.children).find((c) => c.id === selected);

  return (
    <>
      <Title order={3} mb="md">
        {t('authoring.route.documentAdmin')}
      </Title>
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper withBorder p="sm">
            <Group justify="space-between" mb="xs">
              <Text fw={600}>{t('authoring.document.categories')}</Text>
              <Button size="xs" variant="light" onClick={() => openCategory({ parentId: null, nameZh: '', nameEn: '' })} data-testid="category-add-top">
                {t('authoring.document.addTop')}
              </Button>
            </Group>
            {tree.length === 0 && (
              <Text size="sm" c="dimmed">
                {t('authoring.document.noCategories')}
              </Text>
            )}
            {tree.map((top) => (
              <NavLink
                key={top.id}
                label={nameOf(top)}
                defaultOpened
                childrenOffset={16}
                rightSection={
                  // Another organisation's category (the platform's, a parent's) is shown for reading only.
                  top.editable && (
                    <CategoryActions
                      onAdd={() => openCategory({ parentId: top.id, nameZh: '', nameEn: '' })}
                      onEdit={() => openCategory({ id: top.id, parentId: null, nameZh: top.nameZh, nameEn: top.nameEn })}
                      onDelete={() => setPending({ kind: 'category', id: top.id, name: nameOf(top) })}
                    />
                  )
                }
              >
                {top.children.map((child) => (
                  <NavLink
                    key={child.id}
                    label={nameOf(child)}
                    active={child.id === selected}
                    onClick={() => setSelected(child.id)}
                    data-category={child.id}
                    rightSection={
                      child.editable && (
                        <CategoryActions
                          onEdit={() => openCategory({ id: child.id, parentId: top.id, nameZh: child.nameZh, nameEn: child.nameEn })}
                          onDelete={() => setPending({ kind: 'category', id: child.id, name: nameOf(child) })}
                        />
                      )
                    }
                  />
                ))}
              </NavLink>
            ))}
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper withBorder p="sm">
            <Group justify="space-between" mb="xs">
              <Text fw={600}>{selectedName ? nameOf(selectedName) : t('authoring.document.documents')}</Text>
              <Button
                size="xs"
                disabled={!selectedName?.editable}
                onClick={() => openDocument({ categoryId: selected ?? 0 }, EMPTY_DOCUMENT)}
                data-testid="document-add"
              >
                {t('authoring.document.addDocument')}
              </Button>
            </Group>
            {selected === undefined ? (
              <Text size="sm" c="dimmed">
                {t('authoring.document.chooseCategory')}
              </Text>
            ) : (
              <DataTable<DocumentSummary, number>
                id="document-admin"
                columns={columns}
                rowKey={(d) => d.id}
                rowProps={(d) => ({ 'data-document': String(d.id) })}
                load={loadDocs}
                filterKey={String(selected)}
                reload={docsReload}
                emptyText={t('authoring.document.noDocuments')}
                actions={(d) =>
                  // The server refuses changes to documents the caller's organisation does not own; none are offered.
                  d.editable ? (
                    <>
                      <Button size="compact-xs" variant="subtle" onClick={() => void editDocument(d.id)}>
                        {t('authoring.document.edit')}
                      </Button>
                      <Button size="compact-xs" variant="subtle" color="red" onClick={() => setPending({ kind: 'document', id: d.id, title: d.title })}>
                        {t('authoring.document.delete')}
                      </Button>
                    </>
                  ) : (
                    <Text size="xs" c="dimmed" data-testid="document-read-only">
                      {t('authoring.document.readOnly')}
                    </Text>
                  )
                }
              />
            )}
          </Paper>
        </Grid.Col>
      </Grid>

      <Modal
        opened={category !== undefined}
        onClose={() => setCategory(undefined)}
        title={category?.id ? t('authoring.document.editCategory') : category?.parentId ? t('authoring.document.addChild') : t('authoring.document.addTop')}
        centered
      >
        {category && (
          <form onSubmit={categoryForm.onSubmit(saveCategory)} noValidate>
            <Stack>
              <TextInput label={t('authoring.document.nameZh')} {...categoryForm.field('nameZh')} data-testid="category-name-zh" />
              <TextInput label={t('authoring.document.nameEn')} {...categoryForm.field('nameEn')} data-testid="category-name-en" />
              <FormActions submitting={categoryForm.submitting} onCancel={() => setCategory(undefined)} cancelLabel={t('authoring.document.cancel')} submitLabel={t('authoring.document.save')} submitTestId="category-save" />
            </Stack>
          </form>
        )}
      </Modal>

      <Modal opened={doc !== undefined} onClose={() => setDoc(undefined)} title={doc?.id ? t('authoring.document.editDocument') : t('authoring.document.addDocument')} size="xl" centered>
        {doc && (
          <form onSubmit={documentForm.onSubmit(saveDocument)} noValidate>
            <Stack>
              <Group grow>
                <TextInput label={t('authoring.document.titleZh')} {...documentForm.field('titleZh')} data-testid="document-title-zh" />
                <TextInput label={t('authoring.document.titleEn')} {...documentForm.field('titleEn')} data-testid="document-title-en" />
              </Group>
              <div>
                <Text size="sm" fw={500} mb={4}>
                  {t('authoring.document.format')}
                </Text>
                <SegmentedControl
                  value={documentForm.form.values.format}
                  onChange={(v) => documentForm.form.setFieldValue('format', v)}
                  data={[
                    { value: 'markdown', label: t('authoring.document.markdown') },
                    { value: 'html', label: t('authoring.document.html') },
                  ]}
                />
              </div>
              <Textarea label={t('authoring.document.contentZh')} {...documentForm.field('contentZh')} autosize minRows={6} maxRows={16} data-testid="document-content-zh" />
              <Textarea label={t('authoring.document.contentEn')} {...documentForm.field('contentEn')} autosize minRows={6} maxRows={16} data-testid="document-content-en" />
              <FormActions submitting={documentForm.submitting} onCancel={() => setDoc(undefined)} cancelLabel={t('authoring.document.cancel')} submitLabel={t('authoring.document.save')} submitTestId="document-save" />
            </Stack>
          </form>
        )}
      </Modal>

      <ConfirmDialog
        opened={pending !== undefined}
        title={pending?.kind === 'category' ? t('authoring.document.deleteCategory') : t('authoring.document.deleteDocument')}
        message={
          pending?.kind === 'category'
            ? t('authoring.document.deleteCategoryConfirm', { name: pending.name })
            : t('authoring.document.deleteDocumentConfirm', { title: pending?.kind === 'document' ? pending.title : '' })
        }
        onConfirm={confirmDelete}
        onCancel={() => setPending(undefined)}
        danger
      />
    </>
  );
}

/** Small add / edit / delete icons beside a category; clicks do not select the category. */
function CategoryActions({ onAdd, onEdit, onDelete }: { onAdd?: () => void; onEdit: () => void; onDelete: () => void }) {
  const { t } = useTranslation();
  const stop = (fn: () => void) => (e: React.MouseEvent) => (e.stopPropagation(), fn());
  return (
    <Group gap={2} wrap="nowrap">
      {onAdd && (
        <ActionIcon size="sm" variant="subtle" aria-label={t('authoring.document.addChild')} onClick={stop(onAdd)}>
          +
        </ActionIcon>
      )}
      <ActionIcon size="sm" variant="subtle" aria-label={t('authoring.document.edit')} onClick={stop(onEdit)}>
        ✎
      </ActionIcon>
      <ActionIcon size="sm" variant="subtle" color="red" aria-label={t('authoring.document.delete')} onClick={stop(onDelete)}>
        ×
      </ActionIcon>
    </Group>
  );
}
