import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/chromium.js';
import { freePortPair } from '../harness/ports.js';
import { refOf } from '../harness/refs.js';
import { startTestSite } from '../harness/test-site.js';

/**
 * clawd-browser as a newcomer gets it: the packed tarball installed with
 * `npm install -g --prefix`, in a fresh HOME (no CLAWD_HOME, no CLAWD_URL),
 * used through the installed binary, its CLI and its MCP server under the
 * MCP SDK's own client, on a real Chromium. What stopped or misled the
 * newcomer of the issue, each said now in words that name what happened
 * and what to do: where the extension is, URLs typed without a scheme, a
 * site that cannot be reached, a task session's refusal and its fix, acting
 * with a session's key, a server of another home or something that is not
 * clawd-browser at the address, a port taken.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const npm = (args: string[], cwd: string) =>
  process.env.npm_execpath ? run(process.execPath, [process.env.npm_execpath, ...args], { cwd }) : run('npm', args, { cwd });

const scratch = mkdtempSync(join(tmpdir(), 'clawd-npm-user-'));
const prefix = join(scratch, 'prefix');
const userHome = join(scratch, 'home');
const clawdHome = join(userHome, '.clawd');
const installed = join(prefix, 'lib', 'node_modules', 'clawd-browser');
const bin = join(prefix, 'bin', 'clawd-browser');
let control: number;
let serve: ChildProcess;
let site: Awaited<ReturnType<typeof startTestSite>>;
/** A port nothing listens on. */
let closedPort: number;

/** The newcomer's environment: their HOME, the install's bin first on PATH, nothing of clawd-browser's own. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: userHome, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, ...extra };
  for (const name of ['CLAWD_HOME', 'CLAWD_URL', 'CLAWD_KEY']) if (!(name in extra)) delete env[name];
  return env;
}
const cli = async (args: string[], extra?: Record<string, string>) => (await run(bin, args, { env: userEnv(extra), timeout: 60_000 })).stdout.trim();
const cliFailure = (args: string[], extra?: Record<string, string>) =>
  run(bin, args, { env: userEnv(extra), timeout: 60_000 }).then(
    ({ stdout }) => {
      throw new Error(`clawd-browser ${args.join(' ')} succeeded: ${stdout}`);
    },
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr.trim() }),
  );

const PAGE = (title: string) => `<!doctype html><title>${title}</title><h1>${title}</h1><a href="http://pixel.invalid/">Leave</a>`;

beforeAll(async () => {
  const { stdout } = await npm(['pack', '--pack-destination', scratch, '--silent'], ROOT);
  const tarball = join(scratch, stdout.trim().split('\n').pop()!);
  await npm(['install', '-g', '--prefix', prefix, '--omit=dev', '--no-audit', '--no-fund', '--silent', tarball], scratch);

  site = await startTestSite((_request, response, url) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE(url.pathname === '/' ? 'Local app' : url.pathname.slice(1))),
  );
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));

  // A first run uses the default ports; this machine's tests never do, so the only setting is the port.
  ({ control } = await freePortPair());
  mkdirSync(clawdHome, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(clawdHome, 'config.json'),
    JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true, sessionIsolation: 'process', sessionSpares: 0 }),
  );
  serve = spawn(bin, ['serve'], { env: userEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  serve.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await waitFor(() => log.includes('control API listening'), { timeoutMs: 30_000, message: 'the installed serve did not start' }).catch((error: Error) => {
    throw new Error(`${error.message}: ${log}`);
  });
}, 240_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  await site?.close();
  rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

describe('a new user, from the npm package', () => {
  it('finds the extension: a command prints its absolute folder, doctor names it; the README is for them, its picture in the package', async () => {
    const folder = join(installed, 'dist', 'extension');
    expect(await cli(['extension-path'])).toBe(folder);
    expect(JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')).manifest_version).toBe(3);
    const doctor = await cli(['doctor']);
    expect(doctor).toContain(`ok    extension files  ${folder} (load it in Chrome: chrome://extensions, Developer mode, Load unpacked)`);

    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    for (const [, picture] of readme.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) expect(existsSync(join(installed, picture)), picture).toBe(true);
    // Their path first (install, doctor, first commands), the checkout's two commands kept.
    expect(readme).toMatch(/npm install -g \.\/clawd-browser-[\d.]+\.tgz\nclawd-browser doctor/);
    expect(readme).toContain('clawd-browser extension-path');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('bash .ci/run');
    // The MCP snippet works as pasted: no placeholder home that would start a second server.
    const snippet = /```json\n(\{\n  "mcpServers"[\s\S]*?)```/.exec(readme)![1];
    expect(JSON.parse(snippet)).toEqual({ mcpServers: { 'clawd-browser': { command: 'clawd-browser', args: ['mcp'] } } });
  });

  it('types URLs as in an address bar, and a wrong one is said in plain words', async () => {
    // The tab's id (clawd's) first; its title and URL are the page's words, inside the answer's fence.
    expect(await cli(['open', `localhost:${site.port}`])).toMatch(
      new RegExp(`^[0-9A-F]+\n<page (\\d+)>\nLocal app  http://localhost:${site.port}/\n</page \\1>$`),
    );
    expect(await cli(['navigate', `127.0.0.1:${site.port}/two`])).toMatch(
      new RegExp(`^[0-9A-F]+\n<page (\\d+)>\ntwo  http://127\\.0\\.0\\.1:${site.port}/two\n</page \\1>$`),
    );
    expect(await cliFailure(['open', 'not a url'])).toEqual({
      code: 1,
      stderr: 'clawd-browser: url: "not a url" is not a web address: give one like https://example.com, example.com or localhost:3000',
    });
  }, 60_000);

  it('says why a site cannot be reached, as the egress proxy knows it: on open, navigate, an act that navigates, and MCP', async () => {
    // `.invalid` never resolves, on any machine; and it is read as https://, as a browser would.
    expect(await cliFailure(['open', 'pixel.invalid'])).toEqual({
      code: 1,
      stderr:
        'clawd-browser: Navigating to https://pixel.invalid failed: pixel.invalid does not resolve: the name is unknown, or this machine has no network or DNS (getaddrinfo ENOTFOUND pixel.invalid)',
    });
    for (const url of [`http://127.0.0.1:${closedPort}/`, `https://127.0.0.1:${closedPort}/`])
      expect((await cliFailure(['navigate', url])).stderr).toBe(
        `clawd-browser: Navigating to ${url} failed: 127.0.0.1:${closedPort} refused the connection: nothing listens there (ECONNREFUSED)`,
      );

    const tab = (await cli(['open', `${site.url}/start`])).split('\n')[0];
    const outline = await cli(['snapshot', '-i', '--target', tab]);
    const clicked = await cli(['click', refOf(outline, 'link "Leave"'), '--target', tab]);
    expect(clicked).toContain(
      '- navigation to http://pixel.invalid/ failed: pixel.invalid does not resolve: the name is unknown, or this machine has no network or DNS',
    );

    const transport = new StdioClientTransport({
      command: bin,
      args: ['mcp'],
      env: { ...getDefaultEnvironment(), HOME: userHome, PATH: userEnv().PATH! },
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'newcomer', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const answer = (await mcp.callTool({ name: 'browser_navigate', arguments: { targetId: tab, url: 'pixel.invalid' } })) as {
        content: Array<{ text: string }>;
        isError: boolean;
      };
      expect(answer.isError).toBe(true);
      expect(answer.content[0].text).toBe(
        'Error: Navigating to https://pixel.invalid failed: pixel.invalid does not resolve: the name is unknown, or this machine has no network or DNS (getaddrinfo ENOTFOUND pixel.invalid)',
      );
      const opened = (await mcp.callTool({ name: 'browser_tabs', arguments: { action: 'open', url: `localhost:${site.port}` } })) as {
        content: Array<{ text: string }>;
      };
      // clawd's words, then the page's (its title and URL) inside the answer's fence.
      expect(opened.content[0].text).toMatch(new RegExp(`^Opened \\S+\n<page (\\d+)>\n"Local app" http://localhost:${site.port}/\n</page \\1>$`));
    } finally {
      await mcp.close();
    }
  }, 90_000);

  it("a task session's refusal names its fix; the token's holder opens one that may reach a local app; a session's key cannot", async () => {
    const first = await cli(['--json', 'session-open', '--ttl', '5m']).then((out) => JSON.parse(out) as { id: string; profile: string; key: string });
    const refused = await cliFailure(['--profile', first.profile, 'open', `127.0.0.1:${site.port}`]);
    expect(refused.stderr).toBe(
      'clawd-browser: Navigation refused: urlPolicy public-only: 127.0.0.1 is a loopback address. To allow 127.0.0.1: add "127.0.0.1" to urlPolicy.private in config.json; or, for one task session, whoever holds the token opens it with allowPrivate ["127.0.0.1"] (clawd-browser session-open --allow-private 127.0.0.1)',
    );
    // The session's own key cannot widen what a session reaches: opening sessions is the token's.
    expect((await cliFailure(['session-open', '--allow-private', '127.0.0.1'], { CLAWD_KEY: first.key })).stderr).toMatch(
      /^clawd-browser: A task session's key reaches its own session's browser routes and \/mcp only: this route is the main token's/,
    );

    const local = await cli(['--json', 'session-open', '--ttl', '5m', '--allow-private', '127.0.0.1']).then(
      (out) => JSON.parse(out) as { id: string; profile: string; key: string; allowPrivate: string[] },
    );
    expect(local.allowPrivate).toEqual(['127.0.0.1']);
    expect(await cli(['--profile', local.profile, 'open', `127.0.0.1:${site.port}`])).toMatch(/^Local app  /m);
    // Only that one: the first session is still held to public addresses.
    expect((await cliFailure(['--profile', first.profile, 'open', `127.0.0.1:${site.port}`])).stderr).toMatch(/Navigation refused: urlPolicy public-only/);

    // An agent given only a key: the CLI acts within its session, with --key or CLAWD_KEY.
    expect(await cli(['--key', local.key, 'tabs'])).toMatch(/  Local app  http:\/\/127\.0\.0\.1:\d+\/$/m);
    expect(await cli(['snapshot', '-i'], { CLAWD_KEY: local.key })).toContain('link "Leave"');
    expect((await cliFailure(['--key', local.key, '--profile', 'clawd', 'tabs'])).stderr).toMatch(/this one reaches profile session-[0-9a-f]+, not "clawd"/);
    expect(await cli(['--key', local.key, 'cdp-url'])).toMatch(new RegExp(`/cdp\\?profile=${local.profile}&token=${local.key}$`));

    // session-close takes the profile name session-open printed.
    expect(await cli(['session-close', first.profile])).toBe(`closed ${first.id}`);
    expect(await cli(['session-close', local.id])).toBe(`closed ${local.id}`);
    expect((await cliFailure(['--key', local.key, 'tabs'])).stderr).toMatch(/^clawd-browser: /);
  }, 120_000);

  it("tells another home's server, and something that is not clawd-browser, apart; a server.json of a pid that is no server is not trusted; a taken port is named", async () => {
    const other = join(scratch, 'other-home');
    mkdirSync(other, { mode: 0o700 });
    writeFileSync(join(other, 'config.json'), JSON.stringify({ controlUrl: `http://127.0.0.1:${control}`, headless: true }));
    writeFileSync(join(other, 'token'), 'a-token-of-another-home\n', { mode: 0o600 });
    const otherEnv = { CLAWD_HOME: other };
    expect((await cliFailure(['tabs'], otherEnv)).stderr).toBe(
      `clawd-browser: The clawd-browser server at http://127.0.0.1:${control} is another CLAWD_HOME's: it refuses this home's token (${other}). Run with that server's CLAWD_HOME, or stop it and start this home's (\`clawd-browser serve\`)`,
    );
    expect((await cliFailure(['tabs'], { CLAWD_URL: site.url })).stderr).toBe(
      `clawd-browser: Something other than clawd-browser answers at ${site.url} (HTTP 200, text/html): check --url, CLAWD_URL and controlUrl in config.json (\`clawd-browser doctor\` says what answers there)`,
    );
    // A record whose pid lives but is no clawd-browser server (pids are reused): this home's config is used, not the record.
    writeFileSync(
      join(other, 'server.json'),
      JSON.stringify({
        pid: process.pid,
        controlUrl: `http://127.0.0.1:${closedPort}`,
        relayPort: closedPort + 1,
        version: '0',
        startedAt: new Date().toISOString(),
      }),
    );
    expect((await cliFailure(['tabs'], otherEnv)).stderr).toContain(`at http://127.0.0.1:${control} is another CLAWD_HOME's`);
    // Serving that home on the port the running server holds: the port named is the control API's, with the ways to choose another.
    rmSync(join(other, 'server.json'));
    expect((await cliFailure(['serve'], otherEnv)).stderr).toBe(
      `clawd-browser: Port ${control} on 127.0.0.1 (the control API's) is already in use: another clawd-browser server (another CLAWD_HOME's; \`clawd-browser doctor\` says) or another program holds it. Stop it, or choose other ports: run \`serve --port N\`, or set controlUrl in config.json (the relay takes the port above)`,
    );
  }, 60_000);
});
