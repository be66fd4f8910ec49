import { Button, Group, Paper, SimpleGrid, Switch, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { APPROVAL_POLICY_LIMITS, type ApprovalPolicy } from '../../../protocol/api/approvals.ts';
import { approvalApi } from '../../api/approvals.ts';
import { TOAST_MS } from '../../api/request.ts';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';

/** The key that changes an organisation's settings (the server checks it: POST /approval/policy). */
const ORG_KEY = 'org_list';

const blank = { wipes: 'on', bulkOver: '', campaignOver: '', ttlMinutes: '' };
type Values = typeof blank;

const valuesOf = (p: ApprovalPolicy): Values => ({ wipes: p.wipes ? 'on' : 'off', bulkOver: String(p.bulkOver), campaignOver: String(p.campaignOver), ttlMinutes: String(p.ttlMinutes) });

/**
 * The four-eyes policy of the user's organisation (issue 23): whether wipes wait, the bulk and push sizes
 * over which an action waits (0: never), and how long a request waits before it expires. Everyone sees it;
 * accounts holding the organisation key change it.
 */
export function ApprovalPolicyForm() {
  const { t } = useTranslation();
  const snap = useSnapshot(session);
  const orgId = snap.user?.orgId;
  const mayEdit = snap.permissions.includes(ORG_KEY);
  const [loaded, setLoaded] = useState(false);
  const { bulkOver, campaignOver, ttlMinutes } = APPROVAL_POLICY_LIMITS;
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: blank,
    rules: {
      bulkOver: [rules.integer(bulkOver.min, bulkOver.max)],
      campaignOver: [rules.integer(campaignOver.min, campaignOver.max)],
      ttlMinutes: [rules.integer(ttlMinutes.min, ttlMinutes.max)],
    },
  });

  useEffect(() => {
    if (orgId === undefined) return;
    let live = true;
    approvalApi.policy(orgId).then(
      (p) => {
        if (!live) return;
        form.setValues(valuesOf(p));
        form.resetDirty(valuesOf(p));
        setLoaded(true);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
    // The form object is stable for the page's life; the policy is read again for another organisation only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [orgId]);

  const save = onSubmit(async (v) => {
    if (orgId === undefined) return;
    const policy: ApprovalPolicy = { wipes: v.wipes === 'on', bulkOver: Number(v.bulkOver.trim()), campaignOver: Number(v.campaignOver.trim()), ttlMinutes: Number(v.ttlMinutes.trim()) };
    await approvalApi.setPolicy({ orgId, ...policy });
    form.setValues(valuesOf(policy));
    form.resetDirty(valuesOf(policy));
    notifications.show({ color: 'green', message: t('approvals.policy.saved'), autoClose: TOAST_MS });
  });

  const disabled = !mayEdit || !loaded || submitting;
  return (
    <Paper withBorder p="sm" mb="md" data-testid="approval-policy">
      <form onSubmit={save} noValidate>
        <Group justify="space-between" align="flex-start" mb="xs" wrap="nowrap">
          <div>
            <Title order={5}>{t('approvals.policy.title', { name: snap.user?.orgName ?? '' })}</Title>
            <Text size="sm" c="dimmed">
              {t(mayEdit ? 'approvals.policy.help' : 'approvals.policy.readOnly')}
            </Text>
          </div>
          {mayEdit && (
            <Button type="submit" loading={submitting} disabled={!loaded || !form.isDirty()} data-testid="approval-policy-save">
              {t('approvals.policy.save')}
            </Button>
          )}
        </Group>
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }} spacing="md" verticalSpacing="xs">
          <Switch
            mt={{ lg: 28 }}
            label={t('approvals.policy.wipes')}
            checked={form.values.wipes === 'on'}
            disabled={disabled}
            onChange={(e) => form.setFieldValue('wipes', e.currentTarget.checked ? 'on' : 'off')}
            data-testid="approval-policy-wipes"
          />
          <TextInput label={t('approvals.policy.bulkOver')} description={t('approvals.policy.zeroNever')} inputMode="numeric" disabled={disabled} {...field('bulkOver')} data-testid="approval-policy-bulk" />
          <TextInput label={t('approvals.policy.campaignOver')} description={t('approvals.policy.zeroNever')} inputMode="numeric" disabled={disabled} {...field('campaignOver')} data-testid="approval-policy-campaign" />
          <TextInput label={t('approvals.policy.ttlMinutes')} description={t('approvals.policy.ttlHint')} inputMode="numeric" disabled={disabled} {...field('ttlMinutes')} data-testid="approval-policy-ttl" />
        </SimpleGrid>
      </form>
    </Paper>
  );
}
