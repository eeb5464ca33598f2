import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { check, computedImportLines, importSites } from '../../scripts/check-layers.js';

describe('the layer check reads every way a file imports a module', () => {
  it('finds static, bare, re-exported and dynamic imports in either quote, each on its line', () => {
    const text = [
      "import { a } from './a.js';",
      'import type { B } from "./b.js";',
      "import './c.js';",
      "export * from '../d.js';",
      'export async function later() {',
      "  const { e } = await import('./e.js');",
      '  const f = await import("./f.js");',
      '  const g = await import(`./g.js`);',
      '  const h = await import(',
      "    '../h.js'",
      '  );',
      "  type I = typeof import('./i.js');",
      "  return import('playwright-core');",
      '}',
    ].join('\n');
    expect(importSites(text)).toEqual([
      { specifier: './a.js', line: 1, dynamic: false },
      { specifier: './b.js', line: 2, dynamic: false },
      { specifier: './c.js', line: 3, dynamic: false },
      { specifier: '../d.js', line: 4, dynamic: false },
      { specifier: './e.js', line: 6, dynamic: true },
      { specifier: './f.js', line: 7, dynamic: true },
      { specifier: './g.js', line: 8, dynamic: true },
      { specifier: '../h.js', line: 9, dynamic: true },
      { specifier: './i.js', line: 12, dynamic: true },
      { specifier: 'playwright-core', line: 13, dynamic: true },
    ]);
  });

  it('takes no word "from" in code or a string for an import', () => {
    expect(importSites("const from = 'x';\nexport const line = `taken from './y.js'`;\nconst said = 'import it from \"./z.js\"';")).toEqual([]);
  });

  it('tells an import() of a computed name from one of a plain string', () => {
    const text = [
      "await import('./plain.js');",
      'await import(name);',
      'await import(new URL(specifier, base).href);',
      'await import(`./${which}.js`);',
      '// `import()` in prose',
    ].join('\n');
    expect(computedImportLines(text)).toEqual([2, 3, 4]);
  });
});

describe('the layer check holds a dynamic import to the rules as it does a static one', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });
  const tree = (files: Record<string, string>): string => {
    root = mkdtempSync(join(tmpdir(), 'clawd-layers-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    return root;
  };
  const ruleProblems = (problems: string[]) => problems.filter((problem) => !problem.startsWith('the rules'));

  it('reports api/ loading server/ on first use, with its file and line, as it reports a static import', () => {
    const problems = check(
      tree({
        'relay/src/api/static-up.ts': "import { serve } from '../server/control-server.js';\nexport const s = serve;\n",
        'relay/src/api/dynamic-up.ts': "export async function late() {\n  return (await import('../server/control-server.js')).serve;\n}\n",
        'relay/src/api/quoted-up.ts': 'export const later = () => import("../driver/profile-driver.js");\n',
        'relay/src/server/control-server.ts': 'export const serve = 1;\n',
        'relay/src/driver/profile-driver.ts': 'export const driver = 1;\n',
      }),
    );
    expect(ruleProblems(problems).sort()).toEqual([
      'relay/src/api/dynamic-up.ts:2: api may not import server (it may import protocol, errors.ts, log.ts, validation.ts)',
      'relay/src/api/quoted-up.ts:1: api may not import driver (it may import protocol, errors.ts, log.ts, validation.ts)',
      'relay/src/api/static-up.ts:1: api may not import server (it may import protocol, errors.ts, log.ts, validation.ts)',
    ]);
  });

  it('lets a layer load what its row allows on first use, and the page runtime load nothing', () => {
    const problems = check(
      tree({
        'relay/src/server/late.ts': "export const late = () => import('../driver/profile-driver.js');\n",
        'relay/src/driver/profile-driver.ts': "export const engine = () => import('../page-runtime/walk.js');\n",
        'relay/src/page-runtime/walk.ts': "export const late = () => import('zod');\nexport const up = () => import('../errors.js');\n",
        'relay/src/errors.ts': 'export class ClawdError extends Error {}\n',
      }),
    );
    expect(ruleProblems(problems).sort()).toEqual([
      'relay/src/page-runtime/walk.ts:1: page-runtime runs in the page and may not import the package zod',
      'relay/src/page-runtime/walk.ts:2: page-runtime runs in the page and may import only its own folder, not errors.ts',
    ]);
  });

  it('finds a circle closed by a dynamic import, and refuses a computed one', () => {
    const problems = check(
      tree({
        'relay/src/driver/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'relay/src/driver/b.ts': "export const b = 1;\nexport const back = () => import('./a.js');\n",
        'relay/src/driver/c.ts': 'export const load = (name: string) => import(name);\n',
      }),
    );
    expect(ruleProblems(problems)).toEqual([
      expect.stringMatching(/^relay\/src\/driver\/c\.ts:1: an import\(\) of a computed name/),
      'a circle of imports among relay/src/driver/a.ts, relay/src/driver/b.ts: each reaches the others (give what they share a file of its own, or pass a port)',
    ]);
  });
});
