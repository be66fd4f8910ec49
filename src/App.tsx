import { Center, Loader } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { Shell } from './layout/Shell.tsx';
import { ErrorPage } from './pages/errors/ErrorPage.tsx';
import { LoginPage } from './pages/login/LoginPage.tsx';
import { guard, LOGIN_PATH } from './router/guard.ts';
import { canReach, shellRoutes } from './router/routes.ts';
import { ensureUser } from './state/bootstrap.ts';
import { session } from './state/session.ts';

function usePageTitle(titleKey: string | undefined): void {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = titleKey ? `${t(titleKey)} - ${t('app.title')}` : t('app.title');
  }, [t, titleKey]);
}

/** Pages inside the shell: loads the user on first visit, then checks the route's permission key. */
function ShellPages() {
  const [location] = useLocation();
  const snap = useSnapshot(session);
  const [failed, setFailed] = useState(false);
  const route = shellRoutes.find((r) => r.path === location);
  usePageTitle(route?.titleKey);

  useEffect(() => {
    ensureUser().catch(() => setFailed(true));
  }, [snap.token]);

  if (failed || !snap.token) return <Redirect to={LOGIN_PATH} replace />;
  if (!snap.user) {
    return (
      <Center h="100vh">
        <Loader />
      </Center>
    );
  }
  // Unknown paths go to /login (platform-core section 2).
  if (!route) return <Redirect to={LOGIN_PATH} replace />;
  if (!canReach(route, snap.roles, snap.permissions)) return <Redirect to="/401" replace />;
  const Page = route.component;
  return (
    <Shell>
      <Page />
    </Shell>
  );
}

function Guarded() {
  const [location] = useLocation();
  const search = useSearch();
  const snap = useSnapshot(session);
  const decision = guard(location, search ? `?${search}` : '', Boolean(snap.token));
  // Keyed, so consecutive redirects (/ -> /dashboard/index -> /login) each navigate.
  if (decision.kind === 'redirect') return <Redirect key={decision.to} to={decision.to} replace />;
  return (
    <Switch>
      <Route path="/login" component={LoginPage} />
      <Route path="/404">
        <ErrorPage code={404} />
      </Route>
      <Route path="/401">
        <ErrorPage code={401} />
      </Route>
      <Route>
        <ShellPages />
      </Route>
    </Switch>
  );
}

/** The console under base path /user/ with history-style paths. */
export function App() {
  return (
    <Router base="/user">
      <Guarded />
    </Router>
  );
}
