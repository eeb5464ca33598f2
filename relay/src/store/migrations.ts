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
  {
    version: 5,
    name: 'fleet registry',
    sql: `
      -- The fleet's servers: where each is reached, and until when it counts as alive (renewed while it runs).
      -- A server's token is kept as its SHA-256 digest, only to tell a server whose token differs from the fleet's.
      CREATE TABLE clawd_servers (
        id text PRIMARY KEY,
        control_url text NOT NULL,
        relay_url text NOT NULL,
        token_digest text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL
      );
      -- Task sessions: which server holds each one's browser, and what any server needs to answer for it.
      -- A session's key is kept as its SHA-256 digest only.
      CREATE TABLE clawd_sessions (
        id text PRIMARY KEY,
        key_digest text NOT NULL UNIQUE,
        owner text NOT NULL,
        place text NOT NULL,
        tenant text,
        info jsonb NOT NULL,
        grid jsonb,
        expires_at timestamptz NOT NULL,
        state text NOT NULL DEFAULT 'live',
        ended_at timestamptz,
        why text
      );
      CREATE INDEX clawd_sessions_live ON clawd_sessions (owner) WHERE state = 'live';
    `,
  },
  {
    version: 6,
    name: 'one-time code seeds and passkeys',
    sql: `
      -- A secret that is a one-time code seed says so (its kind is bound into its ciphertext too).
      ALTER TABLE clawd_secrets ADD COLUMN kind text;
      -- How many passkeys a vault entry holds (sealed with its cookies).
      ALTER TABLE clawd_vault ADD COLUMN passkeys integer;
    `,
  },
  {
    version: 7,
    name: 'routines and notes',
    sql: `
      -- What people taught, shared by the fleet. A routine holds no secret's value (its secrets are parameters).
      -- Its owner's space (operator, tenant:<name>, session:<id>) is a column: a save replaces only the same space's.
      CREATE TABLE clawd_routines (
        name text PRIMARY KEY,
        space text NOT NULL,
        routine jsonb NOT NULL,
        saved_at timestamptz NOT NULL DEFAULT now(),
        server text NOT NULL
      );
      -- A person's notes on a tab, until the agent marks them done; any server's snapshot of the tab shows them.
      CREATE TABLE clawd_notes (
        id bigserial PRIMARY KEY,
        profile text NOT NULL,
        target_id text NOT NULL,
        note jsonb NOT NULL,
        done boolean NOT NULL DEFAULT false,
        server text NOT NULL
      );
      CREATE INDEX clawd_notes_by_tab ON clawd_notes (profile, target_id, id);
    `,
  },
  {
    version: 8,
    name: 'demonstrations going on',
    sql: `
      -- What the server hearing a task session's demonstration heard so far: the fleet's, should that server be lost.
      CREATE TABLE clawd_demonstrations (
        profile text NOT NULL,
        target_id text NOT NULL,
        server text NOT NULL,
        demonstration jsonb NOT NULL,
        kept_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (profile, target_id)
      );
    `,
  },
];
