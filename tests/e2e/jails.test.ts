import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient, GoneError } from '../../relay/src/client/browser-client.js';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import { createLogger } from '../../relay/src/log.js';
import { findProfileProcesses } from '../../relay/src/profiles/orphans.js';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { rejection, startTestSite } from '../harness/test-site.js';

/**
 * A task session is a jail (spec §14), on this Linux host as root: its own
 * network namespace, a cgroup with its limits, a user of its own. What is
 * checked, from outside the browser: a page that eats memory ends its own
 * session alone (410, audited) while another session and the server go on;
 * a busy page's CPU stays within `cpus`; Chromium runs unprivileged with its
 * sandbox on; teardown, and the reaper after `kill -9` of serve, leave no
 * namespace, cgroup, process or dir (counted).
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const run = promisify(execFile);
const CAN_JAIL = process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/sys/fs/cgroup');
const LIMITS = { memoryMiB: 768, cpus: 0.5, pids: 4096 };

let home: string;
let server: ClawdServer;
let site: Awaited<ReturnType<typeof startTestSite>>;

function client(profile = 'clawd', token = server.token): BrowserClient {
  return new BrowserClient({ baseUrl: `http://127.0.0.1:${server.control.port}`, token, profile });
}

/** What is left of a jail on this machine: its namespace, cgroup dirs, processes, dirs. */
function leftOf(id: string): string[] {
  const left: string[] = [];
  const namespaces = execFileSync('ip', ['netns', 'list']).toString();
  if (namespaces.includes(`clawd-${id}`)) left.push(`netns clawd-${id}`);
  for (const controller of ['memory', 'cpu', 'cpuacct', 'pids', '']) {
    const dir = join('/sys/fs/cgroup', controller, 'clawd', id);
    if (existsSync(dir)) left.push(`cgroup ${dir}`);
  }
  const dataDir = join(tmpdir(), `clawd-jail-${id}`);
  if (existsSync(dataDir)) left.push(`dir ${dataDir}`);
  for (const pid of findProfileProcesses(join(dataDir, 'user-data'))) left.push(`process ${pid}`);
  if (existsSync(join(tmpdir(), `clawd-egress-${id}.sock`))) left.push('egress socket');
  return left;
}

/** CPU time (µs) the jail's processes used, as its cgroup counts it. */
function cpuMicros(id: string): number {
  const v1 = join('/sys/fs/cgroup/cpuacct/clawd', id, 'cpuacct.usage');
  if (existsSync(v1)) return Number(readFileSync(v1, 'utf8')) / 1000;
  return Number(/usage_usec (\d+)/.exec(readFileSync(join('/sys/fs/cgroup/clawd', id, 'cpu.stat'), 'utf8'))?.[1]);
}

beforeAll(async () => {
  if (!CAN_JAIL) return;
  const ports = await freePortPair();
  home = mkdtempSync(join(tmpdir(), 'clawd-jails-'));
  // Public addresses only, and this machine's test site as a developer's local app would be let through.
  const urlPolicy = { mode: 'public-only', private: ['127.0.0.1'] };
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, sessionSpares: 0, sessionLimits: LIMITS, urlPolicy }),
  );
  server = await startServer({ home, logger: createLogger(process.env.RELAY_LOG === '1' ? 'debug' : 'warn') });
  site = await startTestSite((_request, response, url) => {
    const pages: Record<string, string> = {
      // Touches 20 MiB every 20 ms, outside V8's heap, until something stops it.
      '/hog': `<title>hog</title><script>const kept = []; setInterval(() => kept.push(new Uint8Array(20 * 1024 * 1024).fill(7)), 20);</script>`,
      '/busy': `<title>busy</title><script>const source = 'for (;;) {}'; for (let i = 0; i < 2; i++) new Worker(URL.createObjectURL(new Blob([source])));</script>`,
    };
    response.writeHead(200, { 'content-type': 'text/html' }).end(pages[url.pathname] ?? `<title>${url.pathname}</title><p>quiet`);
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await site?.close();
  if (home) rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe.skipIf(!CAN_JAIL)('a jailed task session', () => {
  it('runs unprivileged with its sandbox on, and a page that eats memory ends its own session alone', async () => {
    const hog = await client().openSession({ credential_mode: 'clean' });
    const calm = await client().openSession({ credential_mode: 'clean' });
    expect(hog.isolation).toBe('jail');
    const hogClient = client(hog.profile, hog.key!);
    const calmClient = client(calm.profile, calm.key!);
    await hogClient.openTab(`${site.url}/quiet`);
    // The same site by a name that is not in `private` is still refused, by the rule that refuses it.
    await expect(hogClient.navigate(`http://localhost:${new URL(site.url).port}/quiet`)).rejects.toThrow(/urlPolicy public-only: localhost is a loopback name/);
    // Its browser is a process of a uid of its own (not root), with Chromium's sandbox on.
    const [pid] = findProfileProcesses(join(tmpdir(), `clawd-jail-${hog.id}`, 'user-data'));
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    expect(Number(/^Uid:\s+(\d+)/m.exec(status)?.[1])).toBeGreaterThanOrEqual(1_000_000);
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain('--no-sandbox');

    await hogClient.navigate(`${site.url}/hog`).catch(() => {});
    // An act in flight when the session is ended for its memory is told why, as later calls are (a 410, not a crash).
    const inFlight = await rejection(hogClient.act({ kind: 'wait', text: 'never shown', timeoutMs: 60_000 }));
    expect(inFlight).toBeInstanceOf(GoneError);
    expect(inFlight.message).toMatch(/used more than its memoryMiB/);
    await waitFor(async () => (await rejection(hogClient.tabs()).catch(() => undefined)) instanceof GoneError, {
      timeoutMs: 60_000,
      message: 'the hog session was never ended',
    });
    const gone = await rejection(hogClient.tabs());
    expect(gone.message).toMatch(new RegExp(`Task session ${hog.id} used more than its memoryMiB \\(${LIMITS.memoryMiB} MiB\\)`));
    const { entries } = await client().audit({ session: hog.id, event: 'session-limit' });
    expect(entries[0]).toMatchObject({ event: 'session-limit', detail: expect.stringMatching(/used more than its memoryMiB/) });
    // The other session and the server go on.
    const { targetId } = await calmClient.openTab(`${site.url}/still-here`);
    expect((await calmClient.evaluate('() => document.title', { targetId })).result).toBe('/still-here');
    await waitFor(() => leftOf(hog.id).length === 0, { timeoutMs: 10_000, message: `the hog's jail was left: ${leftOf(hog.id).join(', ')}` });
    await client().closeSession(calm.id);
    expect(leftOf(calm.id)).toEqual([]);
  }, 120_000);

  it("keeps a busy page's CPU within its cpus", async () => {
    const session = await client().openSession({ credential_mode: 'clean' });
    const busy = client(session.profile, session.key!);
    await busy.openTab(`${site.url}/busy`);
    // Two workers spin; the window starts once they do.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const [startCpu, startWall] = [cpuMicros(session.id), performance.now()];
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const share = (cpuMicros(session.id) - startCpu) / ((performance.now() - startWall) * 1000);
    await client().closeSession(session.id);
    // Two spinning workers would take both cores (2.0); the jail holds them to cpus (0.5), and a little slack.
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(LIMITS.cpus * 1.2);
    expect(leftOf(session.id)).toEqual([]);
  }, 60_000);

  it('leaves no jail after serve is killed with SIGKILL, once reaped (twice is safe)', async () => {
    const other = mkdtempSync(join(tmpdir(), 'clawd-jails-killed-'));
    try {
      const ports = await freePortPair();
      writeFileSync(join(other, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, sessionSpares: 0 }));
      const env = { ...process.env, CLAWD_HOME: other };
      const serve = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env, stdio: 'ignore' });
      await waitFor(() => existsSync(join(other, 'server.json')), { timeoutMs: 20_000, message: 'serve did not start' });
      const owner = new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: readFileSync(join(other, 'token'), 'utf8').trim() });
      const session = await owner.openSession({ credential_mode: 'clean' });
      expect(session.isolation).toBe('jail');
      // With no urlPolicy in config.json, a task session is public-only: this machine's site is refused.
      const refused = await rejection(
        new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: session.key!, profile: session.profile }).openTab(`${site.url}/quiet`),
      );
      expect(refused.message).toMatch(/urlPolicy public-only: 127\.0\.0\.1 is a loopback address/);
      expect(leftOf(session.id).length).toBeGreaterThan(0);
      serve.kill('SIGKILL');
      await new Promise((resolve) => serve.once('exit', resolve));
      await run(process.execPath, [CLI, 'reap'], { env });
      await run(process.execPath, [CLI, 'reap'], { env });
      expect(leftOf(session.id)).toEqual([]);
      expect(readdirSync(join(other, 'sessions')).filter((name) => name !== 'template')).toEqual([]);
    } finally {
      rmSync(other, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 90_000);
});

/** The jailed browser's first process of session `id`, and its user. */
function browserOf(id: string): { pid: number; uid: number } {
  const pids = findProfileProcesses(join(tmpdir(), `clawd-jail-${id}`, 'user-data')).filter(
    (pid) => !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type='),
  );
  const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pids[0]}/status`, 'utf8'))?.[1]);
  return { pid: pids[0], uid };
}

/** Code run inside session `id`'s jail as its user (what a compromised browser could run), in its namespaces. */
function inJail(id: string, script: string, args: string[] = []): Promise<string> {
  const { pid, uid } = browserOf(id);
  return run(
    'nsenter',
    ['-t', String(pid), '-m', '-n', 'setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, '-e', script, ...args],
    { timeout: 60_000 },
  ).then(({ stdout }) => stdout.trim());
}

/**
 * Opens `count` connections to the jail's way out, each a CONNECT to `target`,
 * holds them for a moment, and says how many were established and how many
 * the way out closed.
 */
const FLOOD = `
const net = require('node:net');
const [port, target, count] = process.argv.slice(1);
let established = 0, closed = 0;
for (let i = 0; i < Number(count); i++) {
  const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('CONNECT ' + target + ' HTTP/1.1\\r\\nhost: ' + target + '\\r\\n\\r\\n'));
  let said = '';
  socket.on('data', (chunk) => { said += chunk; if (said.startsWith('HTTP/1.1 200') && !socket.counted) { socket.counted = true; established++; } });
  socket.on('close', () => { if (!socket.counted) closed++; });
  socket.on('error', () => {});
}
setTimeout(() => { console.log(JSON.stringify({ established, closed })); process.exit(0); }, 4000);
`;

describe.skipIf(!CAN_JAIL)('what a jail cannot take from others', () => {
  it('holds its sessionLimits.connections through its way out, however many its code opens, and the server keeps answering; its /tmp and /dev/shm are its own', async () => {
    const other = mkdtempSync(join(tmpdir(), 'clawd-jails-flood-'));
    const ports = await freePortPair();
    const urlPolicy = { mode: 'public-only', private: ['127.0.0.1'] };
    writeFileSync(
      join(other, 'config.json'),
      JSON.stringify({
        controlUrl: `http://127.0.0.1:${ports.control}`,
        headless: true,
        sessionSpares: 0,
        sessionLimits: { ...LIMITS, connections: 100 },
        urlPolicy,
      }),
    );
    // A server with few descriptors (2,048): a flood it did not bound would take them all.
    const serve = spawn('/bin/sh', ['-c', `ulimit -n 2048 && exec "${process.execPath}" "${CLI}" serve --log-level warn`], {
      env: { ...process.env, CLAWD_HOME: other },
      stdio: 'ignore',
    });
    try {
      await waitFor(() => existsSync(join(other, 'server.json')), { timeoutMs: 20_000, message: 'serve did not start' });
      const token = readFileSync(join(other, 'token'), 'utf8').trim();
      const owner = new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token });
      const flooder = await owner.openSession({ credential_mode: 'clean' });
      const calm = await owner.openSession({ credential_mode: 'clean' });
      const own = new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: flooder.key!, profile: flooder.profile });
      await own.openTab(`${site.url}/quiet`);
      const bridge = /127\.0\.0\.1:(\d+)/.exec((await run('ip', ['netns', 'exec', `clawd-${flooder.id}`, 'ss', '-Hltn'])).stdout)![1];
      const flood = inJail(flooder.id, FLOOD, [bridge, new URL(site.url).host, '1500']);
      // While it floods, the control API answers, and the other session browses.
      let answered = 0;
      const polling = (async () => {
        const until = Date.now() + 3_000;
        while (Date.now() < until) {
          if ((await fetch(`http://127.0.0.1:${ports.control}/`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })).ok) answered++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const calmTab = await new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: calm.key!, profile: calm.profile }).openTab(
        `${site.url}/calm`,
      );
      await polling;
      const { established, closed } = JSON.parse(await flood) as { established: number; closed: number };
      expect(established).toBeLessThanOrEqual(100);
      expect(established).toBeGreaterThan(50);
      expect(closed).toBeGreaterThanOrEqual(1400);
      expect(answered).toBeGreaterThan(10);
      expect(calmTab.title).toBe('/calm');
      // Once the flood is over, the session browses again.
      expect((await own.navigate(`${site.url}/after`)).title).toBe('/after');

      // Its /tmp, /var/tmp and /dev/shm are its own: what it writes there is not the host's, and goes with it.
      const mounts = readFileSync(`/proc/${browserOf(flooder.id).pid}/mountinfo`, 'utf8');
      for (const folder of ['/tmp', '/var/tmp', '/dev/shm']) expect(mounts).toMatch(new RegExp(` ${folder} [^\n]* - tmpfs `));
      const mark = `clawd-escape-${flooder.id}`;
      const seen = (
        await inJail(
          flooder.id,
          `for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) require('node:fs').writeFileSync(dir + '/${mark}', 'x'); console.log(require('node:fs').readdirSync('/tmp').join(','))`,
        )
      ).split(',');
      // It sees its own dir and what it wrote, not the host's /tmp (where this test's home is).
      expect(seen).toEqual(expect.arrayContaining([`clawd-jail-${flooder.id}`, mark]));
      expect(seen).not.toContain(basename(other));
      for (const folder of ['/tmp', '/var/tmp', '/dev/shm']) expect(existsSync(join(folder, mark))).toBe(false);
      await owner.closeSession(flooder.id);
      await owner.closeSession(calm.id);
      expect(leftOf(flooder.id)).toEqual([]);
    } finally {
      serve.kill('SIGTERM');
      await new Promise((resolve) => serve.once('exit', resolve));
      rmSync(other, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  }, 120_000);

  it("leaves nothing of a killed server whose home was deleted: another home's reaper finds its jail by its own mark", async () => {
    const gone = mkdtempSync(join(tmpdir(), 'clawd-jails-gone-'));
    const ports = await freePortPair();
    writeFileSync(join(gone, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, headless: true, sessionSpares: 0 }));
    const serve = spawn(process.execPath, [CLI, 'serve', '--log-level', 'warn'], { env: { ...process.env, CLAWD_HOME: gone }, stdio: 'ignore' });
    await waitFor(() => existsSync(join(gone, 'server.json')), { timeoutMs: 20_000, message: 'serve did not start' });
    const owner = new BrowserClient({ baseUrl: `http://127.0.0.1:${ports.control}`, token: readFileSync(join(gone, 'token'), 'utf8').trim() });
    const session = await owner.openSession({ credential_mode: 'clean' });
    expect(leftOf(session.id).length).toBeGreaterThan(0);
    serve.kill('SIGKILL');
    await new Promise((resolve) => serve.once('exit', resolve));
    rmSync(gone, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    const elsewhere = mkdtempSync(join(tmpdir(), 'clawd-jails-elsewhere-'));
    try {
      const { stdout } = await run(process.execPath, [CLI, 'reap'], { env: { ...process.env, CLAWD_HOME: elsewhere } });
      expect(stdout).toContain(`reaped ${session.id}`);
      expect(leftOf(session.id)).toEqual([]);
      expect(existsSync(`/run/clawd-browser/jails/${session.id}.json`)).toBe(false);
      expect((await run(process.execPath, [CLI, 'reap'], { env: { ...process.env, CLAWD_HOME: elsewhere } })).stdout).not.toContain(session.id);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.skipIf(!CAN_JAIL)('a managed profile that opts into the jail', () => {
  it('runs in a jail of its own, keeps its data across launches, and deleting it leaves nothing', async () => {
    const created = await client().createProfile({ name: 'jailed', jail: true });
    expect(created).toMatchObject({
      name: 'jailed',
      driver: 'clawd',
      jail: true,
      userDataDir: expect.stringMatching(/^\/var\/lib\/clawd-browser\/p-[0-9a-f]{12}\/user-data$/),
    });
    const id = /p-[0-9a-f]{12}/.exec(created.userDataDir!)![0];
    const jailed = client('jailed');
    try {
      const tab = await jailed.openTab(`${site.url}/quiet`);
      expect(tab.title).toBe('/quiet');
      // Its browser: another network namespace, its own cgroup, an unprivileged user, its sandbox on.
      const [pid] = findProfileProcesses(created.userDataDir!).filter((candidate) => !readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes('--type='));
      expect(pid).toBeDefined();
      expect(readlinkSync(`/proc/${pid}/ns/net`)).not.toBe(readlinkSync('/proc/self/ns/net'));
      expect(readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toContain(`/clawd/${id}`);
      expect(Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1])).toBeGreaterThanOrEqual(1_000_000);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).not.toContain('--no-sandbox');
      expect(readdirSync(join('/sys/fs/cgroup/memory/clawd'), { withFileTypes: true }).map((entry) => entry.name)).toContain(id);

      // Its data is its own and stays: a cookie set now is there after a stop and a new launch.
      await jailed.evaluate("() => { document.cookie = 'kept=yes; max-age=3600; path=/'; }", { targetId: tab.targetId });
      await jailed.stop();
      const again = await jailed.openTab(`${site.url}/quiet`);
      expect((await jailed.evaluate('() => document.cookie', { targetId: again.targetId })).result).toContain('kept=yes');
    } finally {
      await client().deleteProfile('jailed');
    }
    expect(existsSync(dirname(created.userDataDir!))).toBe(false);
    expect(execFileSync('ip', ['netns', 'list']).toString()).not.toContain(`clawd-${id}`);
    expect(existsSync(join('/sys/fs/cgroup/memory/clawd', id))).toBe(false);
  }, 90_000);

  it('is refused at creation with a cdpUrl, naming the field', async () => {
    const refused = await rejection(client().createProfile({ name: 'nope', jail: true, cdpUrl: 'http://127.0.0.1:9/' }));
    expect(refused.message).toMatch(/jail: a remote profile \(cdpUrl\) runs elsewhere and cannot be jailed here/);
  });
});
