import { ActionIcon, Box, CloseButton, Group, ScrollArea } from '@mantine/core';
import type { KeyboardEvent, MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { useLocation } from 'wouter';
import { DeferredMenu, type FloatingMenu } from '../floating/deferred.tsx';
import { ChevronDownIcon } from '../icons.tsx';
import { closeAllTags, closeOtherTags, closeTagAt, refreshTag, tagsView } from './store.ts';
import type { Tag } from './tags.ts';
import classes from './TagsView.module.css';

/** The actions of one tag, shared by its context menu and the bar's menu for the active tag. */
function TagActions({ Menu, tag, activePath }: { Menu: FloatingMenu; tag: Tag; activePath: string }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const go = (to: string | undefined) => to !== undefined && navigate(to);
  return (
    <>
      <Menu.Item onClick={() => go(refreshTag(tag.path, activePath))}>{t('tagsView.refresh')}</Menu.Item>
      {!tag.affix && <Menu.Item onClick={() => go(closeTagAt(tag.path, activePath))}>{t('tagsView.close')}</Menu.Item>}
      <Menu.Item onClick={() => go(closeOtherTags(tag.path, activePath))}>{t('tagsView.closeOthers')}</Menu.Item>
      <Menu.Item onClick={() => go(closeAllTags(activePath))}>{t('tagsView.closeAll')}</Menu.Item>
    </>
  );
}

function TagItem({ tag, activePath }: { tag: Tag; activePath: string }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const active = tag.path === activePath;
  const open = () => navigate(tag.fullPath);
  const close = (e: MouseEvent) => {
    e.stopPropagation();
    const to = closeTagAt(tag.path, activePath);
    if (to !== undefined) navigate(to);
  };
  return (
    <DeferredMenu
      position="bottom-start"
      withinPortal
      contextMenu
      target={
        <Box
          role="tab"
          tabIndex={0}
          aria-selected={active}
          className={classes.tag}
          data-active={active || undefined}
          data-testid="tag"
          data-path={tag.path}
          onClick={open}
          onKeyDown={(e: KeyboardEvent) => e.key === 'Enter' && open()}
          onMouseUp={(e: MouseEvent) => e.button === 1 && !tag.affix && close(e)}
        >
          {t(tag.title)}
          {!tag.affix && <CloseButton size="xs" className={classes.close} onClick={close} aria-label={t('tagsView.close')} />}
        </Box>
      }
      dropdown={(Menu) => (
        <Menu.Dropdown data-testid="tag-context-menu">
          <TagActions Menu={Menu} tag={tag} activePath={activePath} />
        </Menu.Dropdown>
      )}
    />
  );
}

/** The tags view: one tag per visited page, with refresh, close, close others and close all. */
export function TagsView({ activePath }: { activePath: string }) {
  const { t } = useTranslation();
  const { tags } = useSnapshot(tagsView);
  const active = tags.find((tag) => tag.path === activePath);
  return (
    <Group className={classes.bar} px="xs" gap={4} wrap="nowrap">
      <ScrollArea type="never" style={{ flex: 1 }}>
        <Group gap={4} wrap="nowrap" role="tablist" aria-label={t('tagsView.label')} data-testid="tags-view">
          {tags.map((tag) => (
            <TagItem key={tag.path} tag={tag} activePath={activePath} />
          ))}
        </Group>
      </ScrollArea>
      {active && (
        <DeferredMenu
          position="bottom-end"
          target={
            <ActionIcon variant="subtle" color="gray" size="sm" aria-label={t('tagsView.actions')}>
              <ChevronDownIcon size={14} />
            </ActionIcon>
          }
          dropdown={(Menu) => (
            <Menu.Dropdown>
              <TagActions Menu={Menu} tag={active} activePath={activePath} />
            </Menu.Dropdown>
          )}
        />
      )}
    </Group>
  );
}
