import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The CLI's compiled code, kept between runs in `$CLAWD_HOME/code-cache`
 * (relay/src/cli/launch.ts), is run as it is: V8 checks a cache against
 * its source's length only. A cache another local user could write is
 * code they would run as you, so one is used only from a folder that is
 * yours and closed to others, and only a file no one else may write.
 * Each hostile case plants a working cache for other code (it prints
 * PWNED) of the bundle's exact length; the first shows that it would run.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'bin/clawd-browser.js');
const BUNDLE = join(ROOT, 'dist/cli/clawd-browser.cjs');
const scratch = mkdtempSync(join(tmpdir(), 'clawd-code-cache-'));
const asRoot = process.getuid?.() === 0;
let cacheName = '';

/** A command that names one (a run of `--version` alone keeps no cache). */
const cli = async (home: string, args = ['token']) => (await run(process.execPath, [CLI, ...args], { env: { ...process.env, CLAWD_HOME: home } })).stdout;

/** A fresh home holding a cache of this build written by the CLI itself. */
async function homeWithCache(name: string): Promise<{ home: string; dir: string; file: string }> {
  const home = join(scratch, name);
  mkdirSync(home, { mode: 0o700 });
  await cli(home);
  const dir = join(home, 'code-cache');
  return { home, dir, file: join(dir, cacheName) };
}

/** What launch.ts compiles, with other code of the same length in it, compiled and run so its body is in the cache. */
function plantForeignCache(file: string): void {
  const length = readFileSync(BUNDLE, 'utf8').length;
  const foreign = 'process.stdout.write("PWNED\\n");';
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${foreign.padEnd(length)}\n});`, { filename: BUNDLE });
  const body = script.runInThisContext() as () => void;
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    body();
  } finally {
    process.stdout.write = write;
  }
  writeFileSync(file, script.createCachedData(), { mode: 0o600 });
  chmodSync(file, 0o600);
}

beforeAll(async () => {
  const home = join(scratch, 'first');
  mkdirSync(home, { mode: 0o700 });
  expect(await cli(home)).toMatch(/^[0-9a-f]{64}\n$/);
  [cacheName] = readdirSync(join(home, 'code-cache'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the CLI's code cache", () => {
  it('is written by the first command, closed to others, and used as it is by the next', async () => {
    const { home, dir, file } = await homeWithCache('reused');
    expect(cacheName).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version}-${process.arch}-[0-9a-f]{8}\\.v8$`));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file);
    const { mtimeMs } = statSync(file);
    expect(await cli(home, ['tabs', '--help'])).toContain('Usage: clawd-browser tabs');
    // Used, not rejected and written again.
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
    expect(readFileSync(file).equals(written)).toBe(true);
  });

  it("keeps the newest eight builds' caches: other builds' go as new ones come", async () => {
    const { home, dir, file } = await homeWithCache('pruned');
    rmSync(file);
    const old = Array.from({ length: 10 }, (_, i) => join(dir, `${String(i).padStart(16, '0')}-${process.version}-${process.arch}.v8`));
    old.forEach((path, i) => {
      writeFileSync(path, 'an older build', { mode: 0o600 });
      utimesSync(path, new Date(Date.now() - (i + 1) * 60_000), new Date(Date.now() - (i + 1) * 60_000));
    });
    await cli(home);
    expect(readdirSync(dir).sort()).toEqual([cacheName, ...old.slice(0, 7).map((path) => path.slice(dir.length + 1))].sort());
  });

  it('makes no home: a command before any server ran writes nothing', async () => {
    const home = join(scratch, 'never-made');
    expect(await cli(home, ['--version'])).toMatch(/^\d/);
    expect(await cli(home, ['extension-path'])).toContain('extension');
    expect(existsSync(home)).toBe(false);
  });

  it("keeps serve's apart (it runs under another V8 flag, which V8 checks), so neither is written again by the other", async () => {
    const home = join(scratch, 'two-flags');
    mkdirSync(home, { mode: 0o700 });
    // A run naming no command keeps nothing.
    await cli(home, ['--version']);
    expect(readdirSync(join(home, 'code-cache'))).toEqual([]);
    await cli(home, ['tabs', '--help']);
    await cli(home, ['serve', '--help']);
    const dir = join(home, 'code-cache');
    const written = () =>
      readdirSync(dir)
        .map((name) => `${name} ${statSync(join(dir, name)).mtimeMs}`)
        .sort();
    const first = written();
    expect(first).toHaveLength(2);
    await cli(home, ['snapshot', '--help']);
    await cli(home, ['mcp', '--help']);
    expect(written()).toEqual(first);
  });

  it('runs a cache in your own closed folder as it is (what each case below keeps others from)', async () => {
    const { home, file } = await homeWithCache('own');
    plantForeignCache(file);
    expect(await cli(home)).toContain('PWNED');
  });

  it('is not read from a file others may write, and is replaced by one of its own', async () => {
    const { home, file } = await homeWithCache('loose-file');
    plantForeignCache(file);
    chmodSync(file, 0o666);
    expect(await cli(home)).not.toContain('PWNED');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await cli(home)).not.toContain('PWNED');
  });

  it('is neither read nor written in a folder others may write', async () => {
    const { home, dir, file } = await homeWithCache('loose-dir');
    plantForeignCache(file);
    chmodSync(dir, 0o777);
    expect(await cli(home)).not.toContain('PWNED');
    rmSync(file);
    expect(await cli(home)).toMatch(/^[0-9a-f]{64}\n$/);
    expect(existsSync(file)).toBe(false);
  });

  it.skipIf(!asRoot)("is not read from a file or folder of another user's", async () => {
    const file = await homeWithCache('their-file');
    plantForeignCache(file.file);
    chownSync(file.file, 4321, 4321);
    expect(await cli(file.home)).not.toContain('PWNED');

    const dir = await homeWithCache('their-dir');
    plantForeignCache(dir.file);
    chownSync(dir.dir, 4321, 4321);
    expect(await cli(dir.home)).not.toContain('PWNED');
  });
});
