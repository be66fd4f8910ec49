/** Single sign-on links (migration 0020): an OpenID provider's subject and the account it logs in as. */
export interface OidcIdentityTable {
  issuer: string;
  subject: string;
  account_id: number;
  created_at: number;
  last_login: number;
}

export interface OidcTables {
  oidc_identities: OidcIdentityTable;
}
