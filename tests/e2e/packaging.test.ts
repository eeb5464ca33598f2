import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { extensionReady, launchChromium, waitFor } from '../harness/chromium.js';
import { EXTENSION_ID } from '../../protocol/constants.js';
import extract from 'extract-zip';
import { type FixtureServer, startFixtureServer } from '../harness/fixture-server.js';
import { freePortPair } from '../harness/ports.js';

/**
 * The package as a user gets it: `npm pack`, installed into an empty
 * directory with no dev dependencies, runs `clawd-browser serve`, and its
 * exported client drives a managed tab.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Under `npm test`, npm says where it is; elsewhere, the npm on PATH.
const npm = (args: string[], cwd: string) =>
  process.env.npm_execpath ? run(process.execPath, [process.env.npm_execpath, ...args], { cwd }) : run('npm', args, { cwd });

const scratch = mkdtempSync(join(tmpdir(), 'clawd-pack-'));
let serve: ChildProcess | undefined;
let fixtures: FixtureServer | undefined;

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await fixtures?.close();
  rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe('the packed package', () => {
  it('installs from its tarball, serves, and its client drives a managed tab', { timeout: 240_000 }, async () => {
    const { stdout } = await npm(['pack', '--pack-destination', scratch, '--silent'], ROOT);
    const tarball = join(scratch, stdout.trim().split('\n').pop()!);

    const app = join(scratch, 'app');
    const home = join(scratch, 'home');
    for (const dir of [app, home]) mkdirSync(dir);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await npm(['install', '--omit=dev', '--no-audit', '--no-fund', '--silent', tarball], app);

    const ports = await freePortPair();
    const cdpPort = (await freePortPair()).control;
    writeFileSync(join(home, 'config.json'), JSON.stringify({ headless: true, noSandbox: true, profiles: { clawd: { cdpPort } } }));
    serve = spawn(join(app, 'node_modules', '.bin', 'clawd-browser'), ['serve', '--port', String(ports.control), '--log-level', 'warn'], {
      env: { ...process.env, CLAWD_HOME: home },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    fixtures = await startFixtureServer();

    // The consumer imports the package by name, as a user's code would.
    writeFileSync(
      join(app, 'drive.mjs'),
      `import { BrowserClient, NotFoundError } from 'clawd-browser';
       const client = new BrowserClient({ baseUrl: 'http://127.0.0.1:${ports.control}', token: process.env.TOKEN, profile: 'clawd' });
       const tab = await client.openTab(${JSON.stringify(fixtures.url('index.html?packed=1'))});
       const { text } = await client.snapshot({ targetId: tab.targetId });
       const missing = await client.focusTab('no-such-tab').catch((error) => error instanceof NotFoundError);
       await client.stop();
       console.log(JSON.stringify({ title: tab.title, url: tab.url, outline: text.length > 0, typedError: missing }));`,
    );
    const tokenOut = await run(join(app, 'node_modules', '.bin', 'clawd-browser'), ['token'], { env: { ...process.env, CLAWD_HOME: home } });
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${ports.control}/`, { headers: { authorization: `Bearer ${tokenOut.stdout.trim()}` } }).catch(() => undefined))?.ok ===
        true,
      {
        timeoutMs: 20_000,
        message: 'the installed clawd-browser serve did not come up',
      },
    );
    const { stdout: driven } = await run(process.execPath, ['drive.mjs'], { cwd: app, env: { ...process.env, TOKEN: tokenOut.stdout.trim() } });
    expect(JSON.parse(driven)).toEqual({ title: 'Fixture Home', url: fixtures.url('index.html?packed=1'), outline: true, typedError: true });
  });
});

describe('the extension as a package', () => {
  it(
    "npm run pack:extension makes a zip that loads as the same extension (its fixed ID), at the package's version, the same bytes each time",
    { timeout: 60_000 },
    async () => {
      const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
      const out = join(scratch, 'zip');
      mkdirSync(out);
      const pack = () => run(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'pack-extension.ts'), '--out', out], { cwd: ROOT });
      await pack();
      const zip = join(out, `clawd-browser-extension-${version}.zip`);
      const first = readFileSync(zip);
      await pack();
      expect(readFileSync(zip).equals(first)).toBe(true);

      // A person unzips it and loads the folder: a zip reader nobody here wrote, then Chromium itself.
      const unpacked = join(scratch, 'unpacked');
      await extract(zip, { dir: unpacked });
      const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as { version: string; key: string };
      expect(manifest.version).toBe(version);
      const browser = await launchChromium({ extensionDir: unpacked });
      try {
        await extensionReady(browser.cdp, EXTENSION_ID);
      } finally {
        await browser.close();
      }
    },
  );
});
