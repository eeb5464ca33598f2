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
 * code cache through `vm.Script` (what Node 20 offers), one file per build
 * of the bundle and Node version, the last few kept. Without a private
 * place to keep it the bundle runs uncached.
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

export function launch(bundle = BUNDLE, env: NodeJS.ProcessEnv = process.env): void {
  const cache = privateCacheDir(env);
  const enableCompileCache = (nodeModule as { enableCompileCache?: (dir: string) => { status: number } }).enableCompileCache;
  const { FAILED, DISABLED } = (nodeModule as { constants?: { compileCacheStatus?: { FAILED: number; DISABLED: number } } }).constants?.compileCacheStatus ?? {};
  if (cache && enableCompileCache) {
    const { status } = enableCompileCache(cache);
    if (status !== FAILED && status !== DISABLED) return void createRequire(bundle)(bundle);
  }
  if (cache && typeof CLI_BUNDLE_HASH === 'string') return runWithCodeCache(bundle, join(cache, `${CLI_BUNDLE_HASH}-${process.version}-${process.arch}${CACHE_SUFFIX}`));
  createRequire(bundle)(bundle);
}

const CACHE_SUFFIX = '.v8';
/** Caches of other builds kept beside this one's (another checkout's, the version before an upgrade). */
const CACHES_KEPT = 8;

/** `$CLAWD_HOME/code-cache`, made 0700 if the home exists; undefined where it is not private to this user (or no user owns files: Windows). */
export function privateCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = join(env.CLAWD_HOME || join(homedir(), '.clawd'), 'code-cache');
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

/** The CommonJS bundle compiled with V8's code cache from `cacheFile`, and the cache written at exit when there was none to use. */
function runWithCodeCache(bundle: string, cacheFile: string): void {
  const cachedData = readPrivateFile(cacheFile);
  // Node's own CommonJS wrapper, on the bundle's first line: its line numbers stay the file's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${readFileSync(bundle, 'utf8')}\n});`, { filename: bundle, cachedData });
  // At exit the functions this run compiled are in it too. Written aside and renamed: a reader never sees half of one.
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => {
      try {
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

/** The file's bytes when it is this user's and no one else may write it. */
function readPrivateFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0 ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
