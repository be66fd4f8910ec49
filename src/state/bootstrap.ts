import { authApi } from '../api/auth.ts';
import { resetTags } from '../layout/tags-view/store.ts';
import { notifications } from '../layout/toast.ts';
import { RELOAD_AFTER_LOGOUT_MS, TOAST_MS } from '../api/request.ts';
import { currentLanguage, i18next } from '../i18n/index.ts';
import { languageCode } from '../i18n/language.ts';
import { startUnreadPolling, stopUnreadPolling } from './notices.ts';
import { remind } from './remind.ts';
import { endSession, LOGIN_PAGE_URL, session, setUser } from './session.ts';

let loading: Promise<void> | undefined;

/**
 * The realtime layer (the engine's worker client, device presence, the command map's decoders), loaded
 * with the first signed-in page rather than with the login page. Its first load also arranges what happens
 * when the session ends elsewhere.
 */
let realtimeModule: Promise<typeof import('../realtime/realtime.ts')> | undefined;
function realtime(): Promise<typeof import('../realtime/realtime.ts')> {
  realtimeModule ??= import('../realtime/realtime.ts').then((m) => {
    // The session ended elsewhere (kick-out, logout in another place, expiry): warn, forget it, and reload
    // into the login page after 3 s, as the request layer does for the login-expiry code.
    m.whenTokenRejected(() => {
      notifications.show({ color: 'yellow', message: i18next.t('shell.tokenRejected'), autoClose: TOAST_MS });
      forgetSession();
      setTimeout(() => window.location.reload(), RELOAD_AFTER_LOGOUT_MS);
    });
    return m;
  });
  return realtimeModule;
}

/** On the first navigation after login: fetch the user, then open the realtime socket. Shared by concurrent callers. */
export function ensureUser(): Promise<void> {
  if (session.user || !session.token) return Promise.resolve();
  loading ??= (async () => {
    try {
      const detail = await authApi.accountDetail();
      setUser(
        {
          id: detail.id,
          account: detail.account,
          nickname: detail.nickname,
          orgId: detail.org.id,
          orgName: detail.org.name,
          updatePasswordLastTime: detail.updatePasswordLastTime,
          expireTime: detail.expireTime,
          customerType: detail.customerType,
        },
        detail.roles,
        detail.permissionList,
      );
      // The console's language (cookie, browser) is the one the user sees: the server follows it.
      if (detail.languageType !== languageCode[currentLanguage]) void authApi.modifyLanguage(languageCode[currentLanguage]).catch(() => undefined);
      if (session.token) (await realtime()).connectRealtime(session.token, detail.id, detail.org.id);
      // Loaded with the shell, not the login page: it brings the command map's decoders and the device channel.
      void import('./approval-decisions.ts').then((m) => m.listenForApprovalDecisions());
      startUnreadPolling();
      if (session.user) remind(session.user);
    } catch (err) {
      endSession();
      throw err;
    } finally {
      loading = undefined;
    }
  })();
  return loading;
}

function forgetSession(): void {
  stopUnreadPolling();
  resetTags();
  endSession();
}

/**
 * Logs out on the server and here; the socket closes first (so its 'session ended' is not news), then
 * the login page loads afresh: the next account to log in in this tab finds nothing of this session in
 * memory (shell terminals and their output, live views, kept pages).
 */
export async function logout(): Promise<void> {
  if (realtimeModule) (await realtimeModule).disconnectRealtime();
  try {
    await authApi.logout();
  } finally {
    forgetSession();
    window.location.replace(LOGIN_PAGE_URL);
  }
}
