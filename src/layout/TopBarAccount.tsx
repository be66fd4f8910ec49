import { Group, Text, ThemeIcon } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { formatDateTime } from '../format/date.ts';
import { expiryTone } from '../state/reminders.ts';
import { session } from '../state/session.ts';
import { BuildingIcon, ShieldIcon } from './icons.tsx';
import { Tip } from './floating/deferred.tsx';

const toneColor = { expired: 'red', soon: 'orange', later: 'dimmed' } as const;

/** The top bar's account facts: the expiry text (when the account has an expiry) and the customer-type icon. */
export function TopBarAccount() {
  const { t } = useTranslation();
  // The tone is judged as the shell opens; a session is far shorter than the 30-day window.
  const [now] = useState(() => Date.now());
  const user = useSnapshot(session).user;
  if (!user) return null;
  const tone = expiryTone(user.expireTime, now);
  const date = formatDateTime(user.expireTime).slice(0, 10);
  const type = user.customerType;
  const typeLabel = type === 1 ? t('topBar.customer1') : t('topBar.customerOther', { type });
  return (
    <Group gap="xs" wrap="nowrap">
      {tone && (
        <Text size="xs" c={toneColor[tone]} fw={tone === 'later' ? undefined : 600} style={{ whiteSpace: 'nowrap' }} data-testid="account-expiry" data-tone={tone}>
          {t(tone === 'expired' ? 'topBar.expired' : 'topBar.expires', { date })}
        </Text>
      )}
      <Tip label={typeLabel}>
        <ThemeIcon variant="light" color={type === 1 ? 'brand' : 'grape'} radius="xl" size="md" aria-label={typeLabel} role="img" data-testid="customer-type" data-type={type}>
          {type === 1 ? <ShieldIcon size={16} /> : <BuildingIcon size={16} />}
        </ThemeIcon>
      </Tip>
    </Group>
  );
}
