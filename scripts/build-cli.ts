/**
 * The CLI as it ships (run after `build:relay`, so by `npm run build`):
 * relay/src/cli/main.ts and the command groups of its table, bundled by
 * esbuild into one CommonJS file, dist/cli/clawd-browser.cjs; and the
 * launcher bin/clawd-browser.js runs it through (relay/src/cli/launch.ts →
 * dist/cli/launch.js, which keeps its compiled code between runs). One file is
 * read and compiled in a few milliseconds; the graph of modules it replaces
 * took most of a second to resolve and link before any command ran.
 *
 * Every other `import()` in the commands' code (the servers, the native
 * host, doctor, config.json's schema, the session reaper) is left out of
 * the bundle and loaded from the tsc build in dist/node when its command
 * runs, the same modules as ever: `serve`, `mcp` and the native host run
 * the code they always ran. In the bundle each is a call of `__fromBuild`,
 * which the launcher hands it (an `import()` in code compiled with V8's
 * code cache through `vm.Script` fails on Node 20), else Node's `import()`.
 *
 * What the bundle holds is checked here and in
 * tests/unit/cli-bundle.test.ts: only the layers a client command needs and
 * commander, never a server module, a model's SDK, MCP's, Playwright,
 * express or zod.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_ENTRY = join(ROOT, 'relay/src/cli/main.ts');
export const CLI_BUNDLE = join(ROOT, 'dist/cli/clawd-browser.cjs');
const LAUNCHER_ENTRY = join(ROOT, 'relay/src/cli/launch.ts');
const LAUNCHER = join(ROOT, 'dist/cli/launch.js');
/** The one module whose `import()`s are bundled: each command group's. */
const COMMAND_TABLE = join(ROOT, 'relay/src/cli/command-table.ts');
/** Where tsc puts what it builds of relay/ and protocol/ (relay/tsconfig.json). */
const TSC_OUT = join(ROOT, 'dist/node');

/** The layers of relay/src a client command may reach (the rest is the servers'), and the base every layer shares. */
const CLIENT_LAYERS = ['cli', 'client', 'api', 'config', 'mcp', 'errors.ts', 'log.ts', 'validation.ts'];
/** Packages the bundle may hold. */
const CLIENT_PACKAGES = ['commander'];
/** Why the ones asked about most are kept out: each costs every command its load, and none is a client's. */
const WHY_NOT: Record<string, string> = {
  zod: 'its schemas take tens of milliseconds to load and build; the server checks what it is sent',
  '@modelcontextprotocol/sdk': 'the MCP server is `mcp`, loaded from the build',
  openai: "the browse runtime is the server's",
  '@anthropic-ai/sdk': "the browse runtime is the server's",
  'playwright-core': 'only the server drives browsers',
  express: 'only the server serves HTTP',
};

/** Marks the modules of the tsc build in the bundle's output, until they are made calls of `__fromBuild`. */
const FROM_BUILD = 'clawd-from-build:';

/** An `import()` outside the command table → the same module in the tsc build, external to the bundle. */
function fromTheBuild(outFile: string): Plugin {
  return {
    name: 'from-the-build',
    setup(builder) {
      builder.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import' || args.importer === COMMAND_TABLE) return undefined;
        const source = resolve(args.resolveDir, args.path);
        const built = join(TSC_OUT, relative(ROOT, source));
        const path = relative(dirname(outFile), built).split(sep).join('/');
        return { path: `${FROM_BUILD}${path.startsWith('.') ? path : `./${path}`}`, external: true };
      });
    },
  };
}

/**
 * The bundle's text with each module of the build loaded by `__fromBuild`
 * (its banner says what that is). No other `import()` may be left: run
 * from V8's code cache, it would fail.
 */
export function withBuildLoads(text: string): string {
  const out = text.replace(new RegExp(`\\bimport\\("${FROM_BUILD}([^"]+)"\\)`, 'g'), '__fromBuild("$1")');
  if (out.includes(FROM_BUILD) || /\bimport\(/.test(out.replace(BANNER, '')))
    throw new Error('the CLI bundle has an import() that is not of a module of the build: the code cache cannot run it');
  return out;
}

/**
 * The modules that find the package from their own place (config/package-root.ts) find it from the bundle's;
 * a module of the build is loaded by the launcher's loader (launch.ts), or by Node's import() when Node loads the bundle.
 */
const BANNER = [
  // The banner goes above esbuild's own "use strict", which would then no longer be the directive: the modules are strict code.
  '"use strict";',
  'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;',
  'var __fromBuild = module.fromBuild || ((specifier) => import(specifier));',
].join('\n');

/** How the bundle is built; `entry` another than main.ts is for the check's own test. */
export function cliBuildOptions(outFile = CLI_BUNDLE, entry = CLI_ENTRY): BuildOptions & { metafile: true } {
  return {
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    // CommonJS: what V8's code cache takes on Node 20 (a vm.Script), and what Node's compile cache takes everywhere.
    format: 'cjs',
    target: 'node20',
    metafile: true,
    logLevel: 'warning',
    banner: { js: BANNER },
    define: { 'import.meta.url': '__bundleUrl' },
    plugins: [fromTheBuild(outFile)],
  };
}

/** relay/src/driver/x.ts → `driver`; relay/src/errors.ts → `errors.ts`; protocol/… → `protocol`; a package → its name. */
function unitOf(input: string): { layer?: string; pkg?: string } {
  const at = input.lastIndexOf('node_modules/');
  if (at >= 0) {
    const [first, second] = input.slice(at + 'node_modules/'.length).split('/');
    return { pkg: first.startsWith('@') ? `${first}/${second}` : first };
  }
  if (input.startsWith('protocol/')) return { layer: 'protocol' };
  if (input.startsWith('relay/src/')) return { layer: input.slice('relay/src/'.length).split('/')[0] };
  return {};
}

/** How the entry reaches `input`: the chain of imports, for the message. */
function chainTo(metafile: Metafile, input: string): string[] {
  const entry = Object.values(metafile.outputs).find((output) => output.entryPoint)?.entryPoint ?? '';
  const from = new Map<string, string>();
  const queue = [entry];
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at];
    if (file === input) break;
    for (const { path, external } of metafile.inputs[file]?.imports ?? []) {
      if (external || from.has(path) || path === entry) continue;
      from.set(path, file);
      queue.push(path);
    }
  }
  const chain = [input];
  while (from.has(chain[0])) chain.unshift(from.get(chain[0])!);
  return chain;
}

/** What in the bundle's graph a client command must not load: each layer and package, with how the first of it got there. */
export function bundleProblems(metafile: Metafile): string[] {
  const problems: string[] = [];
  const layers = new Map<string, string[]>();
  const packages = new Map<string, string>();
  for (const input of Object.keys(metafile.inputs)) {
    const { layer, pkg } = unitOf(input);
    if (pkg) {
      if (!CLIENT_PACKAGES.includes(pkg) && !packages.has(pkg)) packages.set(pkg, input);
    } else if (layer !== 'protocol' && !(layer && CLIENT_LAYERS.includes(layer))) {
      const name = layer ?? 'outside relay/src';
      layers.set(name, [...(layers.get(name) ?? []), input]);
    }
    for (const { path, external, kind } of metafile.inputs[input].imports) {
      if (!external || path.startsWith('node:') || builtinModules.includes(path) || (kind === 'dynamic-import' && path.startsWith(FROM_BUILD))) continue;
      problems.push(`${input} imports ${path}, left outside the bundle: a client command would load it at start`);
    }
  }
  for (const [layer, inputs] of layers) {
    problems.push(
      `the CLI bundle holds ${inputs.length} module(s) of ${layer}, which no client command may load; the first: ${chainTo(metafile, inputs[0]).join(' → ')}`,
    );
  }
  for (const [pkg, input] of packages) {
    const chain = chainTo(metafile, input);
    // Up to the package's first module: where clawd-browser's code reaches it.
    const into = chain.findIndex((file) => unitOf(file).pkg === pkg);
    problems.push(`the CLI bundle holds the package ${pkg}${WHY_NOT[pkg] ? ` (${WHY_NOT[pkg]})` : ''}: ${chain.slice(0, into + 1).join(' → ')}`);
  }
  return problems;
}

/** The bundle, checked, then its launcher, which names the bundle's bytes (its cache is for them alone). */
export async function buildCli(): Promise<Metafile> {
  const { metafile, outputFiles } = await build({ ...cliBuildOptions(), write: false });
  const problems = bundleProblems(metafile);
  if (problems.length) throw new Error(`the client commands load what they must not (scripts/build-cli.ts):\n${problems.join('\n')}`);
  const text = withBuildLoads(outputFiles[0].text);
  mkdirSync(dirname(CLI_BUNDLE), { recursive: true });
  writeFileSync(CLI_BUNDLE, text);
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  await build({
    absWorkingDir: ROOT,
    entryPoints: [LAUNCHER_ENTRY],
    outfile: LAUNCHER,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    define: { CLI_BUNDLE_HASH: JSON.stringify(hash) },
  });
  return metafile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const metafile = await buildCli();
    const kib = (file: string) => `${(statSync(file).size / 1024).toFixed(0)} KiB`;
    console.log(
      `build-cli: ${relative(ROOT, CLI_BUNDLE)} ${kib(CLI_BUNDLE)} from ${Object.keys(metafile.inputs).length} modules, ${relative(ROOT, LAUNCHER)} ${kib(LAUNCHER)}`,
    );
  } catch (error) {
    console.error(`build-cli: ${(error as Error).message}`);
    process.exit(1);
  }
}
