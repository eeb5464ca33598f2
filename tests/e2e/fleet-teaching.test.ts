import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../relay/src/api/session-responses.js';
import type { Notes } from '../../relay/src/api/teach-schemas.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { startPostgres, type TestPostgres } from '../harness/postgres.js';
import { refOf } from '../harness/refs.js';
import { GRID_CHROMIUM_CAPABILITIES, startGrid, type TestGrid } from '../harness/selenium-grid.js';
import { type SignupSite, startSignupSite } from '../harness/signup-site.js';
import { freshHome } from '../harness/control-env.js';

/**
 * A fleet shares what people taught (spec §18, §23): two `serve` processes
 * on one store (Debian's PostgreSQL, a cluster of the test's own). A
 * routine taught in a session through A is listed and run through B in
 * another session of its tenant, and B keeps its owner's rules (another
 * tenant neither sees it nor saves over it); a note a person writes in A's
 * console reaches the agent of a session B serves, in its snapshot, and is
 * marked done through either; and a note and the steps of a demonstration
 * on a Grid session A holds are still there for its agent once A is killed
 * and B has taken the session over (B says nobody hears the demonstration
 * now, and its stop makes the routine of what A heard). The site says what it received; the store says where each is kept.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const token = randomBytes(32).toString('hex');
const grantKey = randomBytes(32).toString('hex');
const vaultKey = randomBytes(32).toString('hex');
const PASSWORD = 'first long password 1';
const LEASE_SECONDS = 6;

interface Server {
  name: string;
  home: string;
  control: number;
  process: ChildProcess;
}

let postgres: TestPostgres;
let grid: TestGrid;
let site: SignupSite;
const servers: Server[] = [];
const sessions: Array<{ server: Server; session: SessionInfo }> = [];

async function startServe(name: string): Promise<Server> {
  const ports = await freePortPair();
  const home = freshHome({
    controlUrl: `http://127.0.0.1:${ports.control}`,
    headless: true,
    noSandbox: true,
    sessionSpares: 0,
    grid: { url: grid.url, capabilities: GRID_CHROMIUM_CAPABILITIES, keepAliveSeconds: 3, requestTimeoutSeconds: 20 },
    store: { postgres: { url: postgres.url }, leaseSeconds: LEASE_SECONDS },
  });
  writeFileSync(join(home, 'token'), `${token}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'grant.key'), `${grantKey}\n`, { mode: 0o600 });
  writeFileSync(join(home, 'vault.key'), `${vaultKey}\n`, { mode: 0o600 });
  const child = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  await waitFor(
    () =>
      fetch(`http://127.0.0.1:${ports.control}/`, { headers: { authorization: `Bearer ${token}` } }).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 30_000, message: `${name} did not start` },
  );
  return { name, home, control: ports.control, process: child };
}

/** Kills a server's whole process group, with the browsers it started: a machine that dies. */
function killGroup(server: Server): void {
  try {
    process.kill(-server.process.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A person's one-time login to `server`'s console: its cookie, and the path its calls go under. */
async function consoleOf(server: Server): Promise<{ cookie: string; path: string }> {
  const { url } = await api(server).dashboardLink();
  const login = await fetch(url, { redirect: 'manual' });
  const cookie = login.headers.get('set-cookie')!;
  return { cookie: cookie.split(';')[0], path: /Path=([^;]+)/.exec(cookie)![1] };
}

const api = (server: Server, credential = token) => new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control}`, token: credential });

/** A task session of `tenant`, opened (and so held) by `server`. */
async function sessionOn(server: Server, tenant: string): Promise<SessionInfo> {
  const session = await api(server).openSession({ credential_mode: 'clean', tenant, place: 'local' });
  sessions.push({ server, session });
  return session;
}

/** The key's own acts on the sign-up form, heard as a person's would be, while a demonstration goes on. */
async function demonstrateSignup(client: BrowserClient): Promise<string> {
  const tab = await client.openTab(site.url);
  await client.teach.startDemonstration({ targetId: tab.targetId });
  const shown = await client.snapshot({ targetId: tab.targetId });
  await client.act({ kind: 'type', ref: refOf(shown.text, /textbox "Full name"/), text: 'Ada Lovelace', targetId: tab.targetId });
  await client.act({ kind: 'type', ref: refOf(shown.text, /textbox "Password"/), text: PASSWORD, targetId: tab.targetId });
  await client.act({ kind: 'click', ref: refOf(shown.text, /button "Create account"/), targetId: tab.targetId });
  return tab.targetId;
}

async function call(server: Server, path: string, credential: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${server.control}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

beforeAll(async () => {
  [postgres, grid] = await Promise.all([startPostgres(), startGrid({ nodes: 1, maxSessions: 2, sessionTimeout: 120, requestTimeout: 20 })]);
  site = await startSignupSite();
  servers.push(await startServe('A'), await startServe('B'));
}, 120_000);

afterAll(async () => {
  for (const { server, session } of sessions)
    await api(server)
      .closeSession(session.id)
      .catch(() => {});
  for (const server of servers) {
    if (server.process.exitCode === null && server.process.signalCode === null) {
      server.process.kill('SIGTERM');
      await new Promise((resolve) => server.process.once('exit', resolve));
    }
    killGroup(server);
    rmSync(server.home, { recursive: true, force: true });
  }
  await grid?.close();
  postgres?.close();
  await site?.close();
}, 60_000);

describe('a fleet shares what people taught', () => {
  it("a routine taught through A is listed and run through B, with its owner's rules kept", async () => {
    const [a, b] = servers;
    const teacher = await sessionOn(a, 'acme');
    const taught = await demonstrateSignup(api(a, teacher.key!));
    expect(site.submissions).toHaveLength(1);
    const made = await api(a, teacher.key!).teach.stopDemonstration({ targetId: taught, name: 'fleet-sign-up' });
    expect(made.saved).toBe(true);
    expect(made.routine!.owner).toEqual({ by: 'session', session: teacher.id, tenant: 'acme' });
    // Kept in the store, with its owner's space; no file of A's home holds it.
    const rows = await postgres.query<{ name: string; space: string; routine: object }>('SELECT name, space, routine FROM clawd_routines');
    expect(rows.map((row) => [row.name, row.space])).toEqual([['fleet-sign-up', 'tenant:acme']]);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
    expect(existsSync(join(a.home, 'routines', 'fleet-sign-up.json'))).toBe(false);

    // Another session of the tenant, held by B: it sees the routine and runs it there with its own values.
    const runner = await sessionOn(b, 'acme');
    const agent = api(b, runner.key!);
    const listed = await agent.teach.routines();
    expect(listed.routines.map((routine) => [routine.name, routine.owner])).toEqual([
      ['fleet-sign-up', { by: 'session', session: teacher.id, tenant: 'acme' }],
    ]);
    const tab = await agent.openTab('about:blank');
    const run = await agent.teach.runRoutine('fleet-sign-up', {
      targetId: tab.targetId,
      params: { full_name: 'Grace Hopper', password: 'second long password 2' },
    });
    expect(run.ok, JSON.stringify(run.failed)).toBe(true);
    expect(run.owner).toEqual({ by: 'session', session: teacher.id, tenant: 'acme' });
    expect(site.submissions.at(-1)).toMatchObject({ name: 'Grace Hopper', password: 'second long password 2' });
    // The token, through B, sees it and whose it is.
    expect((await api(b).teach.routine('fleet-sign-up')).owner).toEqual({ by: 'session', session: teacher.id, tenant: 'acme' });

    // Another tenant's key, through B, neither sees it nor runs it, and saves its own work over it never.
    const stranger = await sessionOn(b, 'globex');
    expect((await call(b, '/routines', stranger.key!)).body.routines).toEqual([]);
    expect((await call(b, '/routines/fleet-sign-up', stranger.key!)).status).toBe(404);
    const strangerTab = await api(b, stranger.key!).openTab('about:blank');
    expect((await call(b, `/routines/fleet-sign-up/run`, stranger.key!, { method: 'POST', body: { targetId: strangerTab.targetId, params: {} } })).status).toBe(
      404,
    );
    const own = await demonstrateSignup(api(b, stranger.key!));
    const taken = await call(b, '/demonstrations/stop', stranger.key!, { method: 'POST', body: { targetId: own, name: 'fleet-sign-up' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details).toMatchObject({ routine: 'fleet-sign-up', owner: 'another', free: 'fleet-sign-up-globex' });
    // The demonstration goes on, and saves under its own name, beside the other.
    const saved = await api(b, stranger.key!).teach.stopDemonstration({ targetId: own, name: 'fleet-sign-up-globex' });
    expect(saved.saved).toBe(true);
    expect(
      (await postgres.query<{ name: string; space: string }>('SELECT name, space FROM clawd_routines ORDER BY name')).map((row) => [row.name, row.space]),
    ).toEqual([
      ['fleet-sign-up', 'tenant:acme'],
      ['fleet-sign-up-globex', 'tenant:globex'],
    ]);

    // Deleted through B (the token's to delete), it is gone through A too.
    await api(b).teach.deleteRoutine('fleet-sign-up');
    expect((await api(a).teach.routines()).routines.map((routine) => routine.name)).toEqual(['fleet-sign-up-globex']);
  }, 180_000);

  it("a note written in A's console reaches the agent of a session B serves, and is marked done through either", async () => {
    const [a, b] = servers;
    const served = await sessionOn(b, 'notes');
    const agent = api(b, served.key!);
    const tab = await agent.openTab(site.url);

    // The person, in A's console (its one-time link, its cookie), writes a note on the session's tab.
    const { cookie, path: consolePath } = await consoleOf(a);
    const written = await fetch(`http://127.0.0.1:${a.control}${consolePath}notes?profile=${served.profile}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ targetId: tab.targetId, text: 'Use the work email here, not the personal one.' }),
    });
    expect(written.status).toBe(201);
    const note = (await written.json()) as { id: string };

    // Kept in the store, on the session's tab.
    const rows = await postgres.query<{ profile: string; target_id: string; done: boolean }>('SELECT profile, target_id, done FROM clawd_notes');
    expect(rows).toEqual([{ profile: served.profile, target_id: tab.targetId, done: false }]);
    expect(existsSync(join(a.home, 'notes.json')) || existsSync(join(b.home, 'notes.json'))).toBe(false);

    // The agent's next snapshot through B carries it, fenced as the person's words; so does GET /notes.
    const snapshot = (await agent.snapshot({ targetId: tab.targetId })) as { notes?: string };
    expect(snapshot.notes).toContain('Use the work email here, not the personal one.');
    expect(snapshot.notes).toMatch(/<person [^>]+>/);
    const open = (await agent.teach.notes({ targetId: tab.targetId })) as Notes;
    expect(open.notes.map((each) => [each.id, each.text, each.done])).toEqual([[note.id, 'Use the work email here, not the personal one.', false]]);

    // Marked done through A with the session's own key, it is done in the store and gone from B's snapshot.
    await api(a, served.key!).teach.noteDone(note.id);
    expect((await postgres.query<{ done: boolean }>('SELECT done FROM clawd_notes'))[0].done).toBe(true);
    expect(((await agent.snapshot({ targetId: tab.targetId })) as { notes?: string }).notes).toBeUndefined();
    // Another session's key does not reach it: the note is its tab's.
    const other = await sessionOn(a, 'notes-other');
    expect((await call(a, `/notes?profile=${served.profile}&targetId=${tab.targetId}`, other.key!)).status).toBe(403);
  }, 120_000);

  it('a note and a demonstration on a Grid session A holds are there for its agent through B once A is killed and B has taken the session over', async () => {
    const [a, b] = servers;
    // A Grid session, opened (and so held) by A; B answers for it once A is gone.
    const opened = await api(a).openSession({ credential_mode: 'clean', tenant: 'takeover', place: 'grid' });
    sessions.push({ server: b, session: opened });
    const agent = api(b, opened.key!);
    const tab = await agent.openTab(site.url);
    // Written in A's console while A holds the session: A hears it and keeps it in the store.
    const { cookie, path } = await consoleOf(a);
    const written = await fetch(`http://127.0.0.1:${a.control}${path}notes?profile=${opened.profile}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ targetId: tab.targetId, text: 'The second plan is the one we pay for.' }),
    });
    expect(written.status).toBe(201);
    // A demonstration in the session, heard by A: what it hears is written to the store as it hears it.
    await agent.teach.startDemonstration({ targetId: tab.targetId });
    const shown = await agent.snapshot({ targetId: tab.targetId });
    await agent.act({ kind: 'type', ref: refOf(shown.text, /textbox "Full name"/), text: 'Ada Lovelace', targetId: tab.targetId });
    await agent.act({ kind: 'click', ref: refOf(shown.text, /textbox "Email"/), targetId: tab.targetId });
    await waitFor(
      async () => {
        const [row] = await postgres.query<{ demonstration: { steps: Array<{ kind: string }> } }>(
          'SELECT demonstration FROM clawd_demonstrations WHERE profile = $1',
          [opened.profile],
        );
        return row?.demonstration.steps.some((step) => step.kind === 'type') ?? false;
      },
      { message: 'the demonstration heard by A was not kept in the store' },
    );

    killGroup(a);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${b.control}/tabs`, { headers: { authorization: `Bearer ${opened.key}` } })).ok, {
      timeoutMs: (LEASE_SECONDS + 20) * 1000,
      intervalMs: 250,
      message: 'B did not take the Grid session over',
    });
    // B drives the same tab now, and the agent's next snapshot through B carries the person's note.
    const snapshot = (await agent.snapshot({ targetId: tab.targetId })) as { notes?: string };
    expect(snapshot.notes).toContain('The second plan is the one we pay for.');
    // The demonstration A heard: B says it is heard no more, and its stop makes the routine of the steps A kept.
    const { demonstrations } = await agent.teach.demonstrations({ targetId: tab.targetId });
    expect(demonstrations).toHaveLength(1);
    expect(demonstrations[0].steps).toContain('type into textbox "Full name"');
    expect(demonstrations[0].unheard).toMatch(/^Server \S+, which heard it, was lost: nothing you do in the tab is heard now/);
    // Starting again in the tab does not write over what A heard.
    const again = await call(b, `/demonstrations/start`, opened.key!, { method: 'POST', body: { targetId: tab.targetId } });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/heard by a server that was lost/);
    const made = await agent.teach.stopDemonstration({ targetId: tab.targetId, name: 'kept-from-a' });
    expect(made.saved).toBe(true);
    expect(made.routine!.parameters.map((param) => param.name)).toContain('full_name');
    expect(await postgres.query('SELECT 1 FROM clawd_demonstrations')).toEqual([]);
    expect((await agent.teach.demonstrations()).demonstrations).toEqual([]);
    // And what A's people taught is still there without A.
    expect((await api(b).teach.routines()).routines.map((routine) => routine.name)).toEqual(['fleet-sign-up-globex', 'kept-from-a']);
  }, 120_000);
});
