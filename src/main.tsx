import './styles/mantine-base.ts';
import { useNotifications } from '@mantine/notifications';
import { lazy, StrictMode, Suspense, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { i18nReady } from './i18n/index.ts';
import { AppTheme } from './layout/AppTheme.tsx';
import { LOGIN_PAGE_URL, LOGIN_STORAGE_KEY } from './state/session.ts';

// A login or logout in another tab changes the login entry: this tab goes to /login and reloads.
window.addEventListener('storage', (e) => {
  if (e.key === LOGIN_STORAGE_KEY) window.location.replace(LOGIN_PAGE_URL);
});

const ToastStack = lazy(() => import('./layout/toast-stack.tsx').then((m) => ({ default: m.ToastStack })));

/**
 * The notification stack, mounted with the first toast (issue 21: its code is not on the login page's or
 * the dashboard's way). A toast shown before it mounts waits in Mantine's store and appears with it.
 */
function Toasts() {
  const { notifications: shown, queue } = useNotifications();
  const [wanted, setWanted] = useState(false);
  if (!wanted && (shown.length > 0 || queue.length > 0)) setWanted(true);
  return wanted ? (
    <Suspense fallback={null}>
      <ToastStack />
    </Suspense>
  ) : null;
}

const root = document.getElementById('root');
if (!root) throw new Error('missing #root');
// The console renders once its language's texts are in (never a key on screen). Without them there is
// nothing to say in either language but this, in both.
i18nReady.then(
  () =>
    createRoot(root).render(
      <StrictMode>
        <AppTheme>
          <Toasts />
          <App />
        </AppTheme>
      </StrictMode>,
    ),
  () => {
    root.textContent = 'The page could not be loaded; please reload. 页面加载失败，请刷新页面。';
  },
);
