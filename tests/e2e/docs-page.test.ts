import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refOf } from '../harness/refs.js';
import { startPythonDocsSite } from '../harness/python-docs.js';
import type { startTestSite } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * A page nobody here wrote and longer than a snapshot's budget: Python's own
 * documentation of `os` (Debian's python3-doc, which .ci/run installs; Sphinx
 * marks its main part `<div role="main">`). Its cut note names the sections
 * that follow with a handle the snapshot takes as a scope, and following it
 * reaches the `os.path` link, which the agent then follows: no cap raised.
 */

let env: ControlEnv;
let site: Awaited<ReturnType<typeof startTestSite>>;
beforeAll(async () => {
  site = await startPythonDocsSite();
  env = await startControlEnv();
}, 90_000);
afterAll(async () => {
  await env?.close();
  await site?.close();
});

describe("Python's os documentation", () => {
  it('a landmark is a scope by its role word whether it is <main> or role="main"', async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${site.url}/library/os.html`);
    const main = String((await client.snapshot({ targetId, selector: 'main', maxChars: 2_000 })).text);
    expect(main).toMatch(/^- main:\n  - heading "os — Miscellaneous operating system interfaces" \[level=1\]/);
    expect(main).not.toMatch(/Quick search/);
    await client.closeTab(targetId);
  });

  it("the cut note's handle reaches the os.path link, and the agent follows it", async () => {
    const client = env.client('clawd');
    const { targetId } = await client.openTab(`${site.url}/library/os.html`);
    // A window narrow enough that Sphinx's sidebar comes first, as it did for the MCP client that found this.
    await client.resize(800, 600, { targetId });
    let text = String((await client.snapshot({ targetId, maxChars: 4_000 })).text);
    const note = text.split('\n').at(-1)!;
    expect(note).toMatch(/^\[cut at maxChars=4000: \d+ more lines \(\d+ with refs\) not shown; next: .*\]$/);
    if (!/link "os\.path" \[url=\/library\/os\.path\.html/.test(text)) {
      const handle = /\bmain \[selector=(\w+)\]/.exec(note)?.[1];
      expect(handle, note).toBe('main');
      text = String((await client.snapshot({ targetId, selector: handle, maxChars: 4_000 })).text);
    }
    const answer = await client.click(refOf(text, /link "os\.path" \[url=\/library\/os\.path\.html/), { targetId });
    expect(answer.url).toBe(`${site.url}/library/os.path.html#module-os.path`);
    expect(answer.changed).toBe(true);
    await client.closeTab(targetId);
  });
});
