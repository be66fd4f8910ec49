// Names the server's single sign-on redirect and the login page share. Kept apart from protocol/api/sso.ts,
// whose TypeBox schemas would otherwise come with the constant into the login page's bundle (11 kB gzip).

/** Query parameter of the login page that carries a failed single sign-on's message key. */
export const SSO_ERROR_PARAM = 'sso_error';
