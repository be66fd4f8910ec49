import { Alert, Anchor, Button, Center, Divider, Group, Image, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useSearch } from 'wouter';
import type { SsoConfig } from '../../../protocol/api/sso.ts';
import { formatMessage, isMessageKey, SSO_ERROR_PARAM } from '../../../protocol/index.ts';
import { authApi, type Captcha, hashPassword } from '../../api/auth.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { RequestError } from '../../api/request.ts';
import { afterLogin } from '../../router/guard.ts';
import { layout } from '../../state/layout.ts';
import { ensureUser } from '../../state/bootstrap.ts';
import { beginSession } from '../../state/session.ts';
import { checkAccount, checkCode, checkPassword, type RuleResult } from '../../validation/login-rules.ts';

type Field = 'account' | 'password' | 'code';
const rules: Record<Field, (v: string) => RuleResult> = { account: checkAccount, password: checkPassword, code: checkCode };

/** Login: account, password and verification code, checked on blur (platform-core section 5). */
export function LoginPage() {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const search = useSearch();
  const [values, setValues] = useState<Record<Field, string>>({ account: '', password: '', code: '' });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [captcha, setCaptcha] = useState<Captcha>();
  const [busy, setBusy] = useState(false);
  // Asked for once the server says the account has two-step verification (issue 23).
  const [totpNeeded, setTotpNeeded] = useState(false);
  const [totp, setTotp] = useState('');

  const refreshCaptcha = useCallback(() => {
    authApi.captcha().then(setCaptcha, () => undefined);
  }, []);
  useEffect(refreshCaptcha, [refreshCaptcha]);
  // Single sign-on, when the server offers it (issue 23); a refused one comes back with its reason's key.
  const [sso, setSso] = useState<SsoConfig>();
  useEffect(() => {
    authApi.ssoConfig().then(setSso, () => undefined);
  }, []);
  const ssoError = new URLSearchParams(search).get(SSO_ERROR_PARAM);

  const fields: Field[] = captcha?.enabled === false ? ['account', 'password'] : ['account', 'password', 'code'];
  const check = (field: Field, value = values[field]) => {
    const key = rules[field](value);
    setErrors((e) => ({ ...e, [field]: key && t(key) }));
    return key === undefined;
  };

  const submit = async () => {
    if (!fields.map((f) => check(f)).every(Boolean)) return;
    setBusy(true);
    try {
      const data = await authApi.login({
        username: values.account.trim(),
        id: captcha?.id ?? '',
        password: await hashPassword(values.password),
        authCode: values.code.trim(),
        ...(totpNeeded ? { totpCode: totp.trim() } : {}),
      });
      beginSession(data.token);
      await ensureUser();
      // An account whose organisation requires two-step verification sets it up before anything else.
      navigate(data.totpSetupRequired ? '/integrations/two-step' : afterLogin(search ? `?${search}` : ''), { replace: true });
    } catch (err) {
      if (err instanceof RequestError && (err.key === 'auth.totpRequired' || err.key === 'auth.totpWrong')) setTotpNeeded(true);
      setTotp('');
      // The request layer has shown the server's message; a spent captcha needs a new image.
      refreshCaptcha();
      setValues((v) => ({ ...v, code: '' }));
    } finally {
      setBusy(false);
    }
  };

  const input = (field: Field) => ({
    value: values[field],
    error: errors[field],
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [field]: value }));
    },
    onBlur: () => check(field),
    name: field,
  });

  return (
    <Center h="100vh" bg="gray.1">
      <Paper w="100%" maw={400} m="sm" p="xl" shadow="md" radius="md" data-testid="login-form">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <Stack>
            <Title order={3} ta="center">
              {t('app.title')}
            </Title>
            {ssoError && isMessageKey(ssoError) && (
              <Alert color="red" variant="light" data-testid="sso-error">
                {formatMessage(currentLanguage, ssoError)}
              </Alert>
            )}
            <TextInput label={t('login.account')} autoComplete="username" {...input('account')} />
            <PasswordInput label={t('login.password')} autoComplete="current-password" {...input('password')} />
            {totpNeeded && (
              <TextInput
                label={t('integrations.twoStep.loginCode')}
                value={totp}
                onChange={(e) => setTotp(e.currentTarget.value)}
                autoComplete="one-time-code"
                name="totp"
                maxLength={32}
                data-autofocus
                data-testid="login-totp"
              />
            )}
            {captcha?.enabled !== false && (
              <Group align="flex-start" wrap="nowrap">
                <TextInput label={t('login.code')} style={{ flex: 1 }} {...input('code')} />
                {captcha?.image && (
                  <Image
                    src={captcha.image}
                    alt={t('login.code')}
                    title={t('login.refreshCode')}
                    // The server draws a 200x70 GIF.
                    w={143}
                    h={50}
                    mt={24}
                    style={{ cursor: 'pointer' }}
                    onClick={refreshCaptcha}
                    data-testid="captcha-image"
                  />
                )}
              </Group>
            )}
            <Button type="submit" loading={busy} fullWidth>
              {t('login.submit')}
            </Button>
            {sso?.enabled && (
              <>
                <Divider label={t('login.or')} labelPosition="center" />
                {/* A full navigation: the provider's pages are not the console's. */}
                <Button component="a" href="/login/oidc/start" variant="default" fullWidth data-testid="sso-login">
                  {t('login.sso', { name: sso.name })}
                </Button>
              </>
            )}
            <Text size="sm" ta="right">
              {/* A full load: the layout mode is read once, as the app starts (src/state/layout.ts). */}
              {layout.mode === 'mobile' ? (
                <Anchor href="/user/login?mobile=0" data-testid="desktop-version">
                  {t('mobile.desktop')}
                </Anchor>
              ) : (
                <Anchor href="/user/login?mobile=1" data-testid="mobile-version">
                  {t('app.mobileVersion')}
                </Anchor>
              )}
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
