/**
 * The layer check (run by `npm run typecheck`): each folder of relay/src may
 * import only the folders listed for it below (type-only imports and modules
 * loaded on first use, `import()`, included), and the extension only the
 * shared protocol. An import that goes up a
 * layer fails the check with the file, the line and the rule. The table is
 * the one in docs/architecture.md ("The layers"); change both together.
 * Inside a folder too, no file leads back to itself through its imports
 * (type-only ones count: a circle of types is a circle a reader follows).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Shared by everything: the wire protocol and the error family, the logger, the zod error wording. */
const BASE = ['protocol', 'errors.ts', 'log.ts', 'validation.ts'];

/** Folder of relay/src → the folders (or top-level files) it may import, besides BASE and itself. */
export const LAYERS: Record<string, string[]> = {
  api: [],
  runtime: ['api'],
  config: ['api', 'runtime'],
  'page-runtime': [],
  snapshot: ['page-runtime'],
  bridge: ['runtime'],
  attach: ['config'],
  profiles: ['api', 'config'],
  egress: ['profiles', 'runtime'],
  jail: ['egress', 'profiles'],
  vision: ['api'],
  replay: ['api'],
  driver: ['api', 'attach', 'bridge', 'config', 'egress', 'jail', 'page-runtime', 'profiles', 'runtime', 'snapshot', 'vision', 'replay'],
  vault: ['api'],
  routines: ['api', 'vault'],
  notes: ['api', 'vault'],
  demonstrations: ['api', 'replay'],
  sessions: ['api', 'config', 'driver', 'egress', 'jail', 'profiles', 'vault'],
  service: ['api', 'attach', 'demonstrations', 'driver', 'notes', 'replay', 'routines', 'runtime', 'sessions', 'vault'],
  mcp: ['api', 'config'],
  browse: ['api', 'config', 'mcp', 'runtime'],
  pages: ['api'],
  server: ['api', 'attach', 'bridge', 'browse', 'client', 'config', 'driver', 'mcp', 'pages', 'routines', 'runtime', 'service'],
  'native-host': ['config'],
  client: ['api', 'config'],
  store: ['api', 'demonstrations', 'notes', 'replay', 'routines', 'sessions', 'vault'],
  cli: [
    'api',
    'attach',
    'client',
    'config',
    'driver',
    'jail',
    'mcp',
    'native-host',
    'notes',
    'profiles',
    'routines',
    'runtime',
    'server',
    'sessions',
    'store',
    'vault',
  ],
};

/**
 * Layers whose code runs in the page (bundled into the source injected there, scripts/page-runtime.ts):
 * they import nothing outside their folder, not even the base, and no package or Node module.
 */
const SEALED = new Set(['page-runtime']);

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * Files that may load a module whose name is computed (`import(url)`), which
 * no check can follow, with why: anywhere else such an import is refused.
 */
const COMPUTED_IMPORTS_ALLOWED: Record<string, string> = {
  'relay/src/cli/launch.ts': "the CLI bundle's loader: it runs what a command loads from the build in dist/node",
};

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** `relay/src/driver/x.ts` → `driver`; `relay/src/errors.ts` → `errors.ts`; `protocol/wire.ts` → `protocol`. */
function unitOf(root: string, path: string): string | undefined {
  const relay = join(root, 'relay', 'src');
  if (path.startsWith(join(root, 'protocol') + sep)) return 'protocol';
  if (!path.startsWith(relay + sep)) return undefined;
  return relative(relay, path).split(sep)[0];
}

/** An import in a file's text: what it names, on which line, and whether it is loaded on first use (`import()`). */
export interface ImportSite {
  specifier: string;
  line: number;
  dynamic: boolean;
}

/** `import … from 'x'`, `import type … from "x"`, `export … from 'x'`. */
const STATIC_IMPORT = /^\s*(?:import|export)\b[^'"`;]*?\bfrom\s*(['"])([^'"\n]+)\1/gm;
/** `import 'x'`: a module run for what it does on loading. */
const BARE_IMPORT = /^\s*import\s*(['"])([^'"\n]+)\1/gm;
/** A module loaded on first use (`await import('./x.js')`, `typeof import("./x.js")`) is as much a dependency as one imported at the top. */
const DYNAMIC_IMPORT = /\bimport\(\s*(?:(['"])([^'"\n]+)\1|`([^`$\n]+)`)\s*[,)]/g;
/** `import(` with no plain string in it (a variable, a URL made, a template with `${…}`): where it leads cannot be checked. */
const COMPUTED_IMPORT = /\bimport\(\s*(?!\)|(['"])[^'"\n]+\1\s*[,)]|`[^`$\n]+`\s*[,)])/g;

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

/** Every import of a module in `text`, static or dynamic, relative or a package's. */
export function importSites(text: string): ImportSite[] {
  return [
    ...[...text.matchAll(STATIC_IMPORT), ...text.matchAll(BARE_IMPORT)].map((match) => ({
      specifier: match[2],
      line: lineAt(text, match.index),
      dynamic: false,
    })),
    ...[...text.matchAll(DYNAMIC_IMPORT)].map((match) => ({ specifier: match[2] ?? match[3], line: lineAt(text, match.index), dynamic: true })),
  ].sort((a, b) => a.line - b.line);
}

/** The lines of `text` that load a module named by a computed value. */
export function computedImportLines(text: string): number[] {
  return [...text.matchAll(COMPUTED_IMPORT)].map((match) => lineAt(text, match.index));
}

function importsOf(file: string): Array<{ target: string; line: number }> {
  return importSites(readFileSync(file, 'utf8'))
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier, line }) => ({ target: resolve(dirname(file), specifier.replace(/\.js$/, '.ts')), line }));
}

/**
 * The circles among files (Tarjan's strongly connected components): each
 * group of two or more files that reach one another through their imports.
 */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, order.get(target)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

/** Every import against the rules in the tree at `root` (this repository unless told). */
export function check(root = ROOT): string[] {
  const relay = join(root, 'relay', 'src');
  const extension = join(root, 'extension', 'src');
  const where = (file: string, line: number) => `${relative(root, file)}:${line}`;
  const problems: string[] = [];
  for (const [unit, allowed] of Object.entries(LAYERS)) {
    for (const dep of allowed) if (!(dep in LAYERS)) problems.push(`rule for ${unit} names ${dep}, which is not a layer`);
  }
  for (const file of files(relay)) {
    const from = unitOf(root, file)!;
    const allowed = from in LAYERS ? LAYERS[from] : null;
    for (const { target, line } of importsOf(file)) {
      const to = unitOf(root, target);
      if (to === from) continue;
      if (SEALED.has(from)) {
        problems.push(`${where(file, line)}: ${from} runs in the page and may import only its own folder, not ${to ?? target}`);
        continue;
      }
      if (to === undefined || BASE.includes(to)) continue;
      if (allowed === null) problems.push(`${where(file, line)}: ${from} is a base module and may import only ${BASE.join(', ')}, not ${to}`);
      else if (!allowed.includes(to))
        problems.push(`${where(file, line)}: ${from} may not import ${to} (it may import ${[...allowed, ...BASE].join(', ') || 'only itself'})`);
    }
  }
  for (const file of [...files(relay), ...files(extension), ...files(join(root, 'protocol'))]) {
    if (relative(root, file).split(sep).join('/') in COMPUTED_IMPORTS_ALLOWED) continue;
    for (const line of computedImportLines(readFileSync(file, 'utf8'))) {
      problems.push(
        `${where(file, line)}: an import() of a computed name, which the layer check cannot follow: name the module in a string (or allow the file in COMPUTED_IMPORTS_ALLOWED, saying why)`,
      );
    }
  }
  for (const unit of SEALED) {
    for (const file of files(join(relay, unit))) {
      for (const { specifier, line } of importSites(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) problems.push(`${where(file, line)}: ${unit} runs in the page and may not import the package ${specifier}`);
      }
    }
  }
  for (const file of files(extension)) {
    for (const { target, line } of importsOf(file)) {
      const to = unitOf(root, target);
      if (to !== undefined && to !== 'protocol') problems.push(`${where(file, line)}: the extension may import only protocol/, not relay/src/${to}`);
    }
  }
  for (const dir of [relay, extension, join(root, 'protocol')]) {
    const graph = new Map(files(dir).map((file) => [file, importsOf(file).map(({ target }) => target)]));
    for (const group of circles(graph))
      problems.push(
        `a circle of imports among ${group.map((file) => relative(root, file)).join(', ')}: each reaches the others (give what they share a file of its own, or pass a port)`,
      );
  }
  // The rules themselves form no cycle, so no chain of allowed imports leads back up.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const walk = (unit: string, path: string[]): void => {
    if (done.has(unit)) return;
    if (visiting.has(unit)) return void problems.push(`the rules have a cycle: ${[...path, unit].join(' → ')}`);
    visiting.add(unit);
    for (const dep of LAYERS[unit] ?? []) walk(dep, [...path, unit]);
    visiting.delete(unit);
    done.add(unit);
  };
  for (const unit of Object.keys(LAYERS)) walk(unit, []);
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const problems = check();
  if (problems.length) {
    console.error(`layer check: ${problems.length} import(s) against the rules (scripts/check-layers.ts):\n${problems.join('\n')}`);
    process.exit(1);
  }
  console.log(`layer check: ${Object.keys(LAYERS).length} layers, no import against the rules`);
}
