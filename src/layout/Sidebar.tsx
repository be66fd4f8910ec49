import { AppShell, Badge, Group, Image, NavLink, ScrollArea, Text, UnstyledButton } from '@mantine/core';
import { useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Link } from 'wouter';
import { buildMenu, type MenuItem } from '../router/menu.ts';
import type { ShellRoute } from '../router/routes.ts';
import { layout, setGroupOpened } from '../state/layout.ts';
import { session } from '../state/session.ts';
import { approvalCount, refreshApprovalCount } from '../state/approval-count.ts';
import { DeferredMenu, Tip } from './floating/deferred.tsx';
import { GroupIcon, RouteIcon } from './menu-icons.tsx';
import classes from './Sidebar.module.css';

const ICON_SIZE = 18;
/** The approvals page, whose entry shows how many requests wait for this user (issue 23). */
const APPROVALS_PATH = '/approvals/index';
/** How often the badge reads the count again. */
const APPROVAL_COUNT_MS = 60_000;

/** The count of requests waiting for this user's decision, beside the approvals entry. */
function ApprovalBadge() {
  const { toDecide } = useSnapshot(approvalCount);
  useEffect(() => {
    refreshApprovalCount();
    const timer = setInterval(refreshApprovalCount, APPROVAL_COUNT_MS);
    return () => clearInterval(timer);
  }, []);
  return toDecide > 0 ? (
    <Badge size="sm" color="orange" circle data-testid="approvals-menu-badge">
      {toDecide}
    </Badge>
  ) : null;
}
const COLLAPSED_ICON_SIZE = 20;

/** The permission-filtered sidebar: pages and groups (nested), collapsible, optionally with the logo on top. */
export function Sidebar({ activePath }: { activePath: string }) {
  const { t } = useTranslation();
  const { roles, permissions } = useSnapshot(session);
  const { sidebarOpened, groupOpened, settings } = useSnapshot(layout);
  const menu = useMemo(() => buildMenu({ roles, permissions }), [roles, permissions]);
  const holds = (item: MenuItem) => item.kind === 'group' && item.children.some((c) => c.path === activePath);

  const page = (route: ShellRoute) => (
    <NavLink
      key={route.path}
      component={Link}
      href={route.path}
      label={t(route.titleKey)}
      leftSection={<RouteIcon path={route.path} size={ICON_SIZE} />}
      rightSection={route.path === APPROVALS_PATH ? <ApprovalBadge /> : undefined}
      active={route.path === activePath}
    />
  );

  return (
    <>
      {settings.sidebarLogo && (
        <AppShell.Section className={classes.logo} data-testid="sidebar-logo">
          <Group gap="xs" wrap="nowrap" justify={sidebarOpened ? 'flex-start' : 'center'} className={classes.logoInner}>
            <Image src={`${import.meta.env.BASE_URL}favicon.svg`} alt="" w={28} h={28} style={{ flex: 'none' }} />
            {sidebarOpened && (
              <Text fw={700} size="sm" className={classes.logoTitle} data-testid="sidebar-logo-title">
                {t('app.title')}
              </Text>
            )}
          </Group>
        </AppShell.Section>
      )}
      <AppShell.Section grow component={ScrollArea} type="hover" scrollbarSize={6} p={4}>
        <nav aria-label={t('shell.menu')} data-testid="sidebar">
          {sidebarOpened
            ? menu.map((item) =>
                item.kind === 'page' ? (
                  page(item.route)
                ) : (
                  <NavLink
                    key={item.group.id}
                    label={t(item.group.titleKey)}
                    leftSection={<GroupIcon id={item.group.id} size={ICON_SIZE} />}
                    opened={groupOpened[item.group.id] ?? holds(item)}
                    onChange={(opened) => setGroupOpened(item.group.id, opened)}
                    active={holds(item)}
                    variant="subtle"
                    data-testid={`menu-group-${item.group.id}`}
                  >
                    {item.children.map(page)}
                  </NavLink>
                ),
              )
            : menu.map((item) => <CollapsedItem key={item.kind === 'page' ? item.route.path : item.group.id} item={item} activePath={activePath} />)}
        </nav>
      </AppShell.Section>
    </>
  );
}

/** A collapsed entry: a page shows its title on hover; a group opens its pages to the right on hover. */
function CollapsedItem({ item, activePath }: { item: MenuItem; activePath: string }) {
  const { t } = useTranslation();
  if (item.kind === 'page') {
    const title = t(item.route.titleKey);
    return (
      <Tip label={title} position="right">
        <UnstyledButton component={Link} href={item.route.path} className={classes.mini} data-active={item.route.path === activePath || undefined} aria-label={title}>
          <RouteIcon path={item.route.path} size={COLLAPSED_ICON_SIZE} />
        </UnstyledButton>
      </Tip>
    );
  }
  const title = t(item.group.titleKey);
  return (
    <DeferredMenu
      trigger="click-hover"
      position="right-start"
      offset={4}
      target={
        <UnstyledButton className={classes.mini} data-active={item.children.some((c) => c.path === activePath) || undefined} aria-label={title} data-testid={`menu-group-${item.group.id}`}>
          <GroupIcon id={item.group.id} size={COLLAPSED_ICON_SIZE} />
        </UnstyledButton>
      }
      dropdown={(Menu) => (
        <Menu.Dropdown>
          <Menu.Label>{title}</Menu.Label>
          {item.children.map((route) => (
            <Menu.Item key={route.path} component={Link} href={route.path} leftSection={<RouteIcon path={route.path} size={16} />}>
              {t(route.titleKey)}
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      )}
    />
  );
}
