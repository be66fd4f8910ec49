/**
 * Single sign-on through an OpenID provider (authorization code with PKCE), configured by environment:
 * OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET (all three, or none for no single sign-on), and
 * OIDC_ROLE_MAP, a JSON list of rules `{"group": "...", "org": "<organisation name or id>", "role":
 * "<role name>"}` read in order: the first rule whose group the ID token's group claim (OIDC_GROUP_CLAIM,
 * default `groups`) holds decides the account's organisation and role. OIDC_NAME names the provider on
 * the login page; OIDC_REDIRECT_URL overrides the callback address (default: the address the browser
 * used, path /login/oidc/callback).
 */
export interface OidcRoleRule {
  readonly group: string;
  readonly org: string | number;
  readonly role: string;
}

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly roleMap: readonly OidcRoleRule[];
  readonly groupClaim: string;
  readonly name: string;
  readonly redirectUrl?: string | undefined;
}

function isRule(value: unknown): value is OidcRoleRule {
  if (typeof value !== 'object' || value === null) return false;
  const { group, org, role } = value as Record<string, unknown>;
  return typeof group === 'string' && group !== '' && (typeof org === 'string' || (typeof org === 'number' && Number.isInteger(org))) && typeof role === 'string' && role !== '';
}

/** The settings, or undefined when single sign-on is off; a half-set or malformed configuration is refused at start. */
export function oidcSettingsFrom(env: NodeJS.ProcessEnv): OidcSettings | undefined {
  const issuer = env.OIDC_ISSUER?.trim();
  const clientId = env.OIDC_CLIENT_ID?.trim();
  const clientSecret = env.OIDC_CLIENT_SECRET ?? '';
  if (!issuer && !clientId) return undefined;
  if (!issuer || !clientId || !clientSecret) throw new Error('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set together (or none of them)');
  let parsed: unknown;
  try {
    parsed = JSON.parse(env.OIDC_ROLE_MAP ?? '[]');
  } catch {
    throw new Error('OIDC_ROLE_MAP is not JSON: expected [{"group": "...", "org": "...", "role": "..."}]');
  }
  if (!Array.isArray(parsed) || !parsed.every(isRule)) throw new Error('OIDC_ROLE_MAP must be a list of {"group", "org", "role"} rules');
  return {
    issuer,
    clientId,
    clientSecret,
    roleMap: parsed,
    groupClaim: env.OIDC_GROUP_CLAIM?.trim() || 'groups',
    name: env.OIDC_NAME?.trim() || 'Single sign-on',
    redirectUrl: env.OIDC_REDIRECT_URL?.trim() || undefined,
  };
}
