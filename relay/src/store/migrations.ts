/**
 * The store's schema, as numbered steps (spec §18). Each server runs the
 * steps its database lacks when it starts, under one advisory lock, so
 * servers starting together apply each step once; a step is never edited
 * once released, only followed by another.
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'audit',
    sql: `
      CREATE TABLE clawd_audit (
        id bigserial PRIMARY KEY,
        time timestamptz NOT NULL,
        event text NOT NULL,
        tenant text,
        session text,
        grant_id text,
        -- The whole entry as the API answers it; the columns above are what queries filter on.
        entry jsonb NOT NULL,
        -- Which server wrote it.
        server text NOT NULL
      );
      CREATE INDEX clawd_audit_by_tenant ON clawd_audit (tenant, id DESC);
      CREATE INDEX clawd_audit_by_session ON clawd_audit (session, id DESC);
      CREATE INDEX clawd_audit_by_event ON clawd_audit (event, id DESC);
      CREATE INDEX clawd_audit_by_time ON clawd_audit (time);
      CREATE INDEX clawd_audit_grants ON clawd_audit (id) WHERE event IN ('grant', 'grant-revoked', 'inject');
    `,
  },
  {
    version: 2,
    name: 'revoked grants',
    sql: `
      CREATE TABLE clawd_revoked_grants (
        grant_id text PRIMARY KEY,
        revoked_at timestamptz NOT NULL DEFAULT now(),
        server text NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'vault',
    sql: `
      -- Sealed by clawd-browser before they leave the process: ciphertext and counts, never a cookie.
      CREATE TABLE clawd_vault (
        tenant text NOT NULL,
        domain text NOT NULL,
        saved_at timestamptz NOT NULL,
        cookies int NOT NULL,
        origins int,
        iv text NOT NULL,
        tag text NOT NULL,
        data text NOT NULL,
        server text NOT NULL,
        PRIMARY KEY (tenant, domain)
      );
    `,
  },
  {
    version: 4,
    name: 'secrets',
    sql: `
      -- Sealed by clawd-browser before they leave the process: ciphertext and the domains, never a value.
      CREATE TABLE clawd_secrets (
        tenant text NOT NULL,
        name text NOT NULL,
        domains text[] NOT NULL,
        saved_at timestamptz NOT NULL,
        iv text NOT NULL,
        tag text NOT NULL,
        data text NOT NULL,
        server text NOT NULL,
        PRIMARY KEY (tenant, name)
      );
    `,
  },
];
