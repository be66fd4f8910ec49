// Single sign-on through an OpenID provider (issue 23; not in the spec): what the login page asks and
// what the provider sends back to the callback. Schemas written with TypeBox, types derived.
import { type Static, Type } from 'typebox';

/** GET /login/oidc/config: whether the login page offers single sign-on, and under which name. */
export interface SsoConfig {
  readonly enabled: boolean;
  readonly name: string;
}

/**
 * GET /login/oidc/callback: the provider's answer (RFC 6749 4.1.2): a code and our state, or an error.
 * Providers add parameters of their own (session_state, iss), so others are allowed.
 */
export const OidcCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 2048 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: true },
);
export type OidcCallbackQuery = Static<typeof OidcCallbackQuery>;

export { SSO_ERROR_PARAM } from '../catalogue/sso.ts';
