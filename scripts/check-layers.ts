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
import { readdirSync, readFileSync, statSync } from 'node:fs';
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
  cli: ['api', 'attach', 'client', 'config', 'driver', 'jail', 'mcp', 'native-host', 'notes', 'profiles', 'routines', 'runtime', 'server', 'sessions', 'store', 'vault'],
};

/**
 * Layers whose code runs in the page (bundled into the source injected there, scripts/page-runtime.ts):
 * they import nothing outside their folder, not even the base, and no package or Node module.
 */
const SEALED = new Set(['page-runtime']);

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const RELAY = join(ROOT, 'relay', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** `relay/src/driver/x.ts` → `driver`; `relay/src/errors.ts` → `errors.ts`; `protocol/wire.ts` → `protocol`. */
function unitOf(path: string): string | undefined {
  if (path.startsWith(join(ROOT, 'protocol') + sep)) return 'protocol';
  if (!path.startsWith(RELAY + sep)) return undefined;
  return relative(RELAY, path).split(sep)[0];
}

const IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/gm;
const PACKAGE_IMPORT = /^\s*(?:import|export)\b[^'"]*?from\s+'([^.'][^']*)'/gm;
/** A module loaded on first use (`await import('./x.js')`) is as much a dependency as one imported at the top. */
const DYNAMIC_IMPORT = /\bimport\(\s*'(\.[^']+)'\s*\)/g;

function importsOf(file: string): Array<{ target: string; line: number }> {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT), ...text.matchAll(DYNAMIC_IMPORT)].map((match) => ({
    target: resolve(dirname(file), match[1].replace(/\.js$/, '.ts')),
    line: text.slice(0, match.index).split('\n').length,
  }));
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

export function check(): string[] {
  const problems: string[] = [];
  for (const [unit, allowed] of Object.entries(LAYERS)) {
    for (const dep of allowed) if (!(dep in LAYERS)) problems.push(`rule for ${unit} names ${dep}, which is not a layer`);
  }
  for (const file of files(RELAY)) {
    const from = unitOf(file)!;
    const allowed = from in LAYERS ? LAYERS[from] : null;
    for (const { target, line } of importsOf(file)) {
      const to = unitOf(target);
      if (to === from) continue;
      if (SEALED.has(from)) {
        problems.push(`${relative(ROOT, file)}:${line}: ${from} runs in the page and may import only its own folder, not ${to ?? target}`);
        continue;
      }
      if (to === undefined || BASE.includes(to)) continue;
      if (allowed === null) problems.push(`${relative(ROOT, file)}:${line}: ${from} is a base module and may import only ${BASE.join(', ')}, not ${to}`);
      else if (!allowed.includes(to)) problems.push(`${relative(ROOT, file)}:${line}: ${from} may not import ${to} (it may import ${[...allowed, ...BASE].join(', ') || 'only itself'})`);
    }
  }
  for (const unit of SEALED) {
    for (const file of files(join(RELAY, unit))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(PACKAGE_IMPORT)) problems.push(`${relative(ROOT, file)}:${text.slice(0, match.index).split('\n').length}: ${unit} runs in the page and may not import the package ${match[1]}`);
    }
  }
  for (const file of files(join(ROOT, 'extension', 'src'))) {
    for (const { target, line } of importsOf(file)) {
      const to = unitOf(target);
      if (to !== undefined && to !== 'protocol') problems.push(`${relative(ROOT, file)}:${line}: the extension may import only protocol/, not relay/src/${to}`);
    }
  }
  for (const dir of [RELAY, join(ROOT, 'extension', 'src'), join(ROOT, 'protocol')]) {
    const graph = new Map(files(dir).map((file) => [file, importsOf(file).map(({ target }) => target)]));
    for (const group of circles(graph)) problems.push(`a circle of imports among ${group.map((file) => relative(ROOT, file)).join(', ')}: each reaches the others (give what they share a file of its own, or pass a port)`);
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
