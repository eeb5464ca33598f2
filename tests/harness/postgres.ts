import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePortPair } from './ports.js';

/**
 * A private PostgreSQL cluster for a test: Debian's server (installed by
 * `.ci/run`), its own data dir in a temp dir, on loopback at a free port,
 * with a `clawd` database owned by the `clawd` role (password `clawd-test`).
 * As root, it runs as the `postgres` user (the server refuses root).
 * `stop()` and `start()` take it away and bring it back (the same data),
 * `close()` removes it.
 */
export interface TestPostgres {
  url: string;
  /** host:port/database, as the server names its store. */
  name: string;
  port: number;
  stop(): void;
  start(): void;
  close(): void;
  /** A client of the database, for what a test checks in it. */
  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<R[]>;
}

const PASSWORD = 'clawd-test';

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error('PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run installs it)');
  return join(root, versions[0], 'bin');
}

export async function startPostgres(): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'clawd-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const owner = asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) }
    : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (tool: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: dir,
    });
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = (await freePortPair()).control;
  // Quick without being untrue: no fsync (the machine does not crash, only the server stops), but every
  // commit is in the WAL before it is acknowledged, so a server stopped at once (a crash) keeps it.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE ROLE clawd LOGIN PASSWORD '${PASSWORD}'`);
  await admin.query('CREATE DATABASE clawd OWNER clawd');
  await admin.end();
  const url = `postgresql://clawd:${PASSWORD}@127.0.0.1:${port}/clawd`;
  let closed = false;
  return {
    url,
    name: `127.0.0.1:${port}/clawd`,
    port,
    stop,
    start,
    close() {
      if (closed) return;
      closed = true;
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
    async query(sql, values = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
    },
  };
}
