import { authApi } from '../api/auth.ts';
import { resetTags } from '../layout/tags-view/store.ts';
import { connectRealtime, disconnectRealtime } from '../realtime/realtime.ts';
import { startUnreadPolling, stopUnreadPolling } from './notices.ts';
import { remind } from './remind.ts';
import { endSession, session, setUser } from './session.ts';

let loading: Promise<void> | undefined;

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
      if (session.token) connectRealtime(session.token, detail.id, detail.org.id);
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

/** Logs out on the server and here; the socket closes with the session and the open tabs are forgotten. */
export async function logout(): Promise<void> {
  try {
    await authApi.logout();
  } finally {
    disconnectRealtime();
    stopUnreadPolling();
    resetTags();
    endSession();
  }
}
