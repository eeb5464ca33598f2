import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleProblems, cliBuildOptions, ROOT, withBuildLoads } from '../../scripts/build-cli.js';

/**
 * What the CLI's client commands load at start is what esbuild bundled
 * (scripts/build-cli.ts): the bundle's own inputs, from its metafile, hold
 * no server module and none of the packages only the server needs.
 */

const scratch = mkdtempSync(join(tmpdir(), 'clawd-cli-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Built where the build puts it (dist/cli), in memory: nothing is written.
const bundled = (entry?: string) => build({ ...cliBuildOptions(undefined, entry), write: false });

describe("the CLI's bundle", () => {
  it('holds the client layers and commander only: no server module, no MCP or model SDK, no Playwright, express or zod', async () => {
    const { metafile, outputFiles } = await bundled();
    expect(bundleProblems(metafile)).toEqual([]);
    const inputs = Object.keys(metafile.inputs);
    for (const layer of [
      'server',
      'service',
      'driver',
      'bridge',
      'sessions',
      'store',
      'profiles',
      'jail',
      'egress',
      'attach',
      'snapshot',
      'browse',
      'native-host',
      'runtime',
      'vault',
    ]) {
      expect(inputs.filter((input) => input.startsWith(`relay/src/${layer}/`))).toEqual([]);
    }
    for (const pkg of ['@modelcontextprotocol/sdk', 'openai', '@anthropic-ai/sdk', 'playwright-core', 'express', 'zod', 'ws', 'pg', 'ajv']) {
      expect(inputs.filter((input) => input.includes(`node_modules/${pkg}/`))).toEqual([]);
    }
    // Every command group is in it, and main.ts's table is what reaches them.
    expect(inputs).toEqual(
      expect.arrayContaining([
        'relay/src/cli/main.ts',
        'relay/src/cli/command-table.ts',
        'relay/src/cli/browser-commands.ts',
        'relay/src/client/browser-client.ts',
      ]),
    );
    // What is left out is loaded from the tsc build, by the launcher's loader: no import() of its own remains.
    const text = withBuildLoads(outputFiles[0].text);
    expect(text).toContain('__fromBuild("../node/relay/src/cli/serve.js")');
    expect(text).toContain('__fromBuild("../node/relay/src/cli/mcp.js")');
    expect(text).toContain('__fromBuild("../node/relay/src/native-host/host.js")');
  });

  it('fails the check when a client command imports a server module, saying through which imports', async () => {
    // A command's code that imports serve.ts statically, instead of when its command runs.
    const entry = join(scratch, 'probe-command.ts');
    writeFileSync(entry, `import { serve } from ${JSON.stringify(join(ROOT, 'relay/src/cli/serve.js'))};\nexport { serve };\n`);
    const problems = bundleProblems((await bundled(entry)).metafile);
    expect(problems).toContainEqual(
      expect.stringMatching(
        /^the CLI bundle holds \d+ module\(s\) of server, which no client command may load; the first: .*probe-command\.ts → relay\/src\/cli\/serve\.ts → relay\/src\/server\//,
      ),
    );
    for (const pkg of ['express', 'playwright-core', 'zod']) expect(problems.some((problem) => problem.includes(`the package ${pkg}`))).toBe(true);
  });

  it("refuses a bundle whose own import() would run from V8's code cache", () => {
    expect(() => withBuildLoads('"use strict";\nconst x = import("./elsewhere.js");')).toThrow(/import\(\) that is not of a module of the build/);
  });
});
