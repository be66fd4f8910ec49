import { Box, Center, Loader } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import { Redirect, Route, Router, Switch, useLocation, useSearch } from 'wouter';
import { ErrorPage } from './pages/errors/ErrorPage.tsx';
import { AreaPlaceholder } from './pages/placeholder/AreaPlaceholder.tsx';
import { guard, HOME_PATH, LOGIN_PATH, REDIRECT_PREFIX, redirectTarget } from './router/guard.ts';
import { lazyComponent } from './router/lazy-page.tsx';
import { canReach, firstMenuPath } from './router/menu.ts';
import { builtPublicPages } from './router/pages.ts';
import { findPublicRoute, findShellRoute, MOBILE_HOME } from './router/routes.ts';
import { ensureUser } from './state/bootstrap.ts';
import { layout, updateScale } from './state/layout.ts';
import { session } from './state/session.ts';
import { withPageAssets } from './router/page-assets.ts';

// The login page, the desktop shell and the phone layout are chunks of their own (issue 21): a visit of
// the login page does not fetch the shell, and a logged-in visit does not fetch the login page.
const LoginPage = lazyComponent(() => import('./pages/login/LoginPage.tsx').then((m) => m.LoginPage));
const Shell = lazyComponent(() => import('./layout/Shell.tsx').then((m) => m.Shell));
// The phone layout's drawers, inputs and device texts are not the shell's: it loads the pages' assets.
const MobileShell = lazyComponent(() => withPageAssets(() => import('./layout/MobileShell.tsx')).then((m) => m.MobileShell));

/** The page title: translated route title plus the product title (platform-core section 2). */
function usePageTitle(titleKey: string | undefined): void {
  const { t } = useTranslation();
  useEffect(() => {
    document.title = titleKey ? `${t(titleKey)} - ${t('app.title')}` : t('app.title');
  }, [t, titleKey]);
}

/**
 * Screens narrower than 1340 px show the desktop layout scaled as if 1600 px wide (platform-core section
 * 9); the phone layout is never scaled.
 */
function useViewportScale(): void {
  const { mode, scale } = useSnapshot(layout);
  useEffect(() => {
    const onResize = () => updateScale(window.innerWidth);
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);
  useEffect(() => {
    const zoom = mode === 'desktop' && scale !== 1 ? scale : 1;
    document.documentElement.style.zoom = zoom === 1 ? '' : String(zoom);
    // Viewport units are zoomed too: the shell divides its full heights by this (Shell.module.css).
    document.documentElement.style.setProperty('--app-scale', String(zoom));
  }, [mode, scale]);
}

/** Pages inside the shell: loads the user on first visit, then checks the route's permission key. */
function ShellPages() {
  const [location] = useLocation();
  const search = useSearch();
  const snap = useSnapshot(session);
  const { mode } = useSnapshot(layout);
  const [failed, setFailed] = useState(false);
  const route = findShellRoute(location);
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
  // Unknown paths go to /login (platform-core section 2), for logged-in users too (docs/DECISIONS.md).
  if (!route) return <Redirect to={LOGIN_PATH} replace />;
  if (!canReach(route, snap)) {
    // A role without the dashboard starts on its first menu page rather than on 401.
    const first = route.path === HOME_PATH ? firstMenuPath(snap) : undefined;
    return <Redirect to={first ?? '/401'} replace />;
  }
  if (mode === 'mobile') {
    // The phone layout opens on the device list when the user may see it.
    const home = findShellRoute(MOBILE_HOME);
    if (route.path === HOME_PATH && home && canReach(home, snap)) return <Redirect to={MOBILE_HOME} replace />;
    return <MobileShell route={route} />;
  }
  return <Shell route={route} fullPath={search ? `${location}?${search}` : location} />;
}

/** A public page outside the shell (order-demand detail, licence activation, …), or its placeholder. */
function PublicPage({ path, titleKey }: { path: string; titleKey: string }) {
  usePageTitle(titleKey);
  const Page = builtPublicPages[path];
  return <Box maw={960} mx="auto" p="xl">{Page ? <Page /> : <AreaPlaceholder titleKey={titleKey} />}</Box>;
}

function Guarded() {
  useViewportScale();
  const [location] = useLocation();
  const search = useSearch();
  const snap = useSnapshot(session);
  const decision = guard(location, search ? `?${search}` : '', Boolean(snap.token));
  // Keyed, so consecutive redirects (/ -> /dashboard/index -> /login) each navigate.
  if (decision.kind === 'redirect') return <Redirect key={decision.to} to={decision.to} replace />;
  if (location.startsWith(REDIRECT_PREFIX)) {
    const to = redirectTarget(location, search ? `?${search}` : '');
    return <Redirect key={to} to={to} replace />;
  }
  const publicRoute = findPublicRoute(location);
  if (publicRoute) return <PublicPage path={publicRoute.path} titleKey={publicRoute.titleKey} />;
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
