import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import './i18n/index.ts';
import { LOGIN_STORAGE_KEY } from './state/session.ts';

/** Default theme colour #1890ff (platform-core section 9) as a Mantine colour scale. */
const theme = createTheme({
  primaryColor: 'brand',
  colors: {
    brand: ['#e6f4ff', '#bae0ff', '#91caff', '#69b1ff', '#4096ff', '#1890ff', '#0958d9', '#003eb3', '#002c8c', '#001d66'],
  },
  primaryShade: 5,
  defaultRadius: 'sm',
});

// A login or logout in another tab changes the login entry: this tab goes to /login and reloads.
window.addEventListener('storage', (e) => {
  if (e.key === LOGIN_STORAGE_KEY) window.location.replace('/user/login');
});

const root = document.getElementById('root');
if (!root) throw new Error('missing #root');
createRoot(root).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <Notifications position="top-center" />
      <App />
    </MantineProvider>
  </StrictMode>,
);
