import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import nodeModule, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';

/**
 * What bin/clawd-browser.js runs (bundled to dist/cli/launch.js): the CLI's
 * bundle (dist/cli/clawd-browser.cjs) with its compiled code kept between
 * runs, so a command compiles little of it again. On Node ≥ 22.1 that is
 * Node's own compile cache (`module.enableCompileCache`); before it, V8's
 * code cache through `vm.Script` (what Node 20 offers): one file per build
 * of the bundle, Node version and V8 flags (V8 refuses a cache made under
 * other flags), the last few kept. Without a private place to keep it the
 * bundle runs uncached.
 *
 * Compiled code from a cache is run as it is: a cache another user could
 * write would be theirs to run as you. So it is kept only in
 * `$CLAWD_HOME/code-cache`, a folder made 0700, and used only while it and
 * each file in it are yours and writable by no one else; a home that does
 * not exist yet is not made for it.
 */

/** The bundle's content hash, set by scripts/build-cli.ts: a cache is for one build's bytes (V8 checks only their length). */
declare const CLI_BUNDLE_HASH: string | undefined;

const BUNDLE = join(dirname(fileURLToPath(import.meta.url)), 'clawd-browser.cjs');
/** The commands that run for long: a server, with its heap under load. */
const SERVING = new Set(['serve', 'mcp', 'native-host']);
/**
 * The young generation stays at its first size rather than doubling under load: a client flooding
 * the relay otherwise grows the heap by about 25 MiB that is never given back (bench:flood), and the
 * relay's round trips measured the same either way. A command that asks one question and exits goes without.
 */
const SERVING_V8_FLAGS = '--semi-space-growth-factor=1';
const CACHE_SUFFIX = '.v8';
/** Caches of other builds and flags kept beside this one's (another checkout's, the version before an upgrade, `serve`'s). */
const CACHES_KEPT = 8;

export function launch(bundle = BUNDLE, args = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): void {
  const v8Flags = args.some((arg) => SERVING.has(arg)) ? SERVING_V8_FLAGS : '';
  // Set before anything else allocates (only this launcher and node:v8 are loaded by now).
  if (v8Flags) (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(v8Flags);
  const cache = privateCacheDir(env);
  // Runs under other flags keep their caches apart: each would refuse the other's and write its own over it.
  const flags = fnv1a([v8Flags, ...process.execArgv, env.NODE_OPTIONS ?? ''].join(' '));
  const enableCompileCache = (nodeModule as { enableCompileCache?: (dir: string) => { status: number } }).enableCompileCache;
  const { FAILED, DISABLED } =
    (nodeModule as { constants?: { compileCacheStatus?: { FAILED: number; DISABLED: number } } }).constants?.compileCacheStatus ?? {};
  const nodeCache = cache && enableCompileCache && privateDir(join(cache, `node-${flags}`));
  if (nodeCache && enableCompileCache) {
    const { status } = enableCompileCache(nodeCache);
    if (status !== FAILED && status !== DISABLED) return void createRequire(bundle)(bundle);
  }
  if (cache && typeof CLI_BUNDLE_HASH === 'string') {
    // A run naming no command (`--version`, `--help`) compiles too little of the bundle to be worth keeping.
    const worthKeeping = args.some((arg) => !arg.startsWith('-'));
    return runWithCodeCache(bundle, join(cache, `${CLI_BUNDLE_HASH}-${process.version}-${process.arch}-${flags}${CACHE_SUFFIX}`), worthKeeping);
  }
  createRequire(bundle)(bundle);
}

/** `$CLAWD_HOME/code-cache`, made 0700 if the home exists; undefined where it is not private to this user (or no user owns files: Windows). */
export function privateCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return privateDir(join(env.CLAWD_HOME || join(homedir(), '.clawd'), 'code-cache'));
}

/** `dir`, made 0700 if its parent exists, when it is this user's and closed to others. */
function privateDir(dir: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
  }
  try {
    const stat = statSync(dir);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The CommonJS bundle compiled with V8's code cache from `cacheFile`; with
 * none to use, one is written at exit (holding what this run compiled),
 * unless another process wrote one meanwhile.
 */
function runWithCodeCache(bundle: string, cacheFile: string, worthKeeping: boolean): void {
  const cachedData = readPrivateFile(cacheFile);
  // Node's own CommonJS wrapper, on the bundle's first line: its line numbers stay the file's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${readFileSync(bundle, 'utf8')}\n});`, {
    filename: bundle,
    cachedData,
  });
  if (worthKeeping && (!cachedData || script.cachedDataRejected)) {
    process.once('exit', () => {
      try {
        if (!script.cachedDataRejected && isPrivateFile(cacheFile)) return;
        // Written aside and renamed: a reader never sees half of one.
        const aside = `${cacheFile}.${process.pid}`;
        writeFileSync(aside, script.createCachedData(), { mode: 0o600 });
        renameSync(aside, cacheFile);
        pruneCaches(dirname(cacheFile));
      } catch {
        // A full disk or a read-only home: the next run compiles again.
      }
    });
  }
  // An import() in code run from a code cache fails on Node 20 ("no dynamic import callback"): the bundle's
  // modules of the build are loaded here, in a module of Node's own loading (the bundle's banner uses this).
  const base = pathToFileURL(bundle);
  const module = { exports: {}, fromBuild: (specifier: string) => import(new URL(specifier, base).href) };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

/** The newest CACHES_KEPT caches stay; older builds' go. */
function pruneCaches(dir: string): void {
  const caches = readdirSync(dir)
    .filter((name) => name.endsWith(CACHE_SUFFIX))
    .map((name) => ({ path: join(dir, name), written: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.written - a.written);
  for (const { path } of caches.slice(CACHES_KEPT)) rmSync(path, { force: true });
}

/** Whether a file is this user's and no one else may write it. */
function isPrivate(stat: { uid: number; mode: number; isFile(): boolean }): boolean {
  return stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
}

function isPrivateFile(file: string): boolean {
  try {
    return isPrivate(statSync(file));
  } catch {
    return false;
  }
}

/** The file's bytes when it is this user's and no one else may write it (checked on the file opened, not on its name). */
function readPrivateFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return isPrivate(fstatSync(fd)) ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A short name for the flags a cache was made under (not a secret: FNV-1a). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
