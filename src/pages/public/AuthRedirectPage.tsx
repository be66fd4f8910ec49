import { Center, Loader, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Redirect, useSearch } from 'wouter';
import { session } from '../../state/session.ts';

/**
 * A console path from the `redirect` parameter: only a path of this console (one leading slash, no scheme,
 * no host), with the /user base dropped; anything else gives the dashboard.
 */
export function safeRedirect(value: string | null): string {
  if (!value) return '/dashboard/index';
  const path = value.startsWith('/user/') ? value.slice('/user'.length) : value;
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || /^\/[a-z]+:/i.test(path)) return '/dashboard/index';
  return path;
}

/**
 * /auth-redirect: the hand-off from another platform page. A signed-in browser goes straight to the
 * wanted page; otherwise to the login page, which comes back to it after signing in. No token is ever
 * taken from the address (docs/DECISIONS.md).
 */
export function AuthRedirectPage() {
  const { t } = useTranslation();
  const params = new URLSearchParams(useSearch());
  const to = safeRedirect(params.get('redirect'));
  const signedIn = Boolean(useSnapshot(session).token);
  const target = signedIn ? to : `/login?redirect=${encodeURIComponent(to)}`;
  return (
    <Center mih={240}>
      <Stack align="center">
        <Loader size="sm" />
        <Text c="dimmed">{t('publicPages.redirecting')}</Text>
        <Redirect to={target} replace />
      </Stack>
    </Center>
  );
}
