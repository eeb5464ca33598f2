import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClawdServer, startServer } from '../../relay/src/cli/serve.js';
import type { Check } from '../../relay/src/cli/doctor.js';
import { createLogger } from '../../relay/src/log.js';
import { freePortPair } from '../harness/ports.js';

/**
 * `clawd-browser doctor` as a person runs it, the real CLI in its own
 * process: a machine that is ready, one whose browser path and port are
 * wrong, a running server, the native host installed and then broken, an
 * unreachable Grid. Each problem comes with its fix, and the exit says
 * whether anything failed.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(config: (ports: { control: number }) => object) {
  const root = mkdtempSync(join(tmpdir(), 'clawd-doctor-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const ports = await freePortPair();
  const { mkdirSync } = await import('node:fs');
  mkdirSync(home, { mode: 0o700 });
  writeFileSync(join(home, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${ports.control}`, ...config(ports) }));
  // The user's own config folder, where browsers read native-host manifests: empty until install-native-host.
  const env = { ...process.env, CLAWD_HOME: home, HOME: root, XDG_CONFIG_HOME: join(root, 'config'), CLAWD_URL: '' };
  return { root, home, ports, env };
}

function doctor(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, 'doctor'], { env, timeout: 60_000 }, (error, stdout) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
    );
  });
}

async function checks(env: NodeJS.ProcessEnv): Promise<{ code: number; ok: boolean; byName: Record<string, Check> }> {
  const { code, stdout } = await doctor(env, '--json');
  const report = JSON.parse(stdout) as { ok: boolean; checks: Check[] };
  return { code, ok: report.ok, byName: Object.fromEntries(report.checks.map((check) => [check.name, check])) };
}

describe('clawd-browser doctor', () => {
  it('on a machine ready for a first run: exit 0, the browser named with its version, what is not started yet as warnings', async () => {
    const { env, ports } = await setup(() => ({}));
    const { code, ok, byName } = await checks(env);
    expect(code).toBe(0);
    expect(ok).toBe(true);
    expect(byName.browser).toMatchObject({ verdict: 'ok', detail: expect.stringMatching(/chrom.*\(.*\d+\.\d+/i) });
    expect(byName.ports).toMatchObject({ verdict: 'ok', detail: `${ports.control} and ${ports.control + 1} on 127.0.0.1 free` });
    expect(byName.server).toMatchObject({ verdict: 'warn', fix: expect.stringContaining('clawd-browser serve') });
    expect(byName['native host']).toMatchObject({ verdict: 'warn', fix: expect.stringContaining('install-native-host') });
    expect(byName.jails.verdict).toMatch(/ok|warn/);
    // Films: ffmpeg named with its version (the machine has it: .ci/run installs it).
    expect(byName.films).toMatchObject({ verdict: 'ok', detail: expect.stringMatching(/ffmpeg.*\(ffmpeg version /) });
    // The human form: one line per check, each problem followed by its fix.
    const human = await doctor(env);
    expect(human.stdout).toMatch(/^ok +browser +\/.+$/m);
    expect(human.stdout).toMatch(/^warn +server .*\n +fix: start it/m);
  });

  it('a wrong executablePath, a port held by another program, a Grid that does not answer: each fails with its fix, exit 1', async () => {
    const dead = await freePortPair();
    const { env, ports } = await setup(() => ({
      executablePath: '/nonexistent/chrome',
      grid: { url: `http://127.0.0.1:${dead.control}` },
      recordings: { ffmpeg: '/nonexistent/ffmpeg' },
    }));
    const squatter: Server = createHttpServer((_request, response) => response.writeHead(404).end('not clawd'));
    await new Promise<void>((resolve) => squatter.listen(ports.control, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
    const { code, ok, byName } = await checks(env);
    expect(code).toBe(1);
    expect(ok).toBe(false);
    expect(byName.browser).toMatchObject({
      verdict: 'fail',
      detail: expect.stringContaining('/nonexistent/chrome'),
      fix: expect.stringContaining('executablePath'),
    });
    expect(byName.ports).toMatchObject({
      verdict: 'fail',
      detail: expect.stringContaining(`${ports.control} on 127.0.0.1 taken`),
      fix: expect.stringContaining('--port'),
    });
    expect(byName.server).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('another program answers') });
    expect(byName.grid).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('grid.url') });
    // Only films need ffmpeg: a warning, with where it was looked for.
    expect(byName.films).toMatchObject({
      verdict: 'warn',
      detail: 'ffmpeg is not at /nonexistent/ffmpeg (config recordings.ffmpeg)',
      fix: expect.stringContaining('apt-get install ffmpeg'),
    });
  });

  it('a running server and the native host: the ports are its own, the extension is not connected yet; a deleted launcher fails', async () => {
    const { env, home, ports } = await setup(() => ({ headless: true, noSandbox: true }));
    const server: ClawdServer = await startServer({ home, logger: createLogger('silent') });
    cleanups.push(() => server.close());
    expect(server.control.port).toBe(ports.control);
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, [CLI, 'install-native-host', '--browser', 'chromium'], { env }, (error) => (error ? reject(error) : resolve())),
    );

    const running = await checks(env);
    expect(running.code, JSON.stringify(running.byName)).toBe(0);
    expect(running.byName.ports).toMatchObject({ verdict: 'ok', detail: expect.stringContaining("held by this home's server") });
    expect(running.byName.server).toMatchObject({ verdict: 'ok', detail: expect.stringContaining(`127.0.0.1:${ports.control} answers`) });
    expect(running.byName['native host']).toMatchObject({ verdict: 'ok', detail: 'installed for chromium' });
    expect(running.byName.extension).toMatchObject({ verdict: 'warn', detail: 'not connected (absent)', fix: expect.stringContaining('Load unpacked') });

    rmSync(join(home, 'native-host'), { recursive: true, force: true });
    const broken = await checks(env);
    expect(broken.code).toBe(1);
    expect(broken.byName['native host']).toMatchObject({
      verdict: 'fail',
      detail: expect.stringContaining('launcher'),
      fix: expect.stringContaining('install-native-host'),
    });
  });
});
