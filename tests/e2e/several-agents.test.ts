import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { startPackageSite } from '../harness/package-site.js';
import { rejection } from '../harness/test-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Several agents at once on one profile (spec §21): two MCP clients (the
 * SDK's, over /mcp) and a third over stdio (`clawd-browser mcp`), each doing
 * its own TodoMVC task at the same time on the default profile, never naming
 * a tab. Each works in its own tab: nobody's navigate lands in another's
 * tab, nobody's act reaches another's page, and each app holds exactly its
 * own agent's todos (read from the page itself). An agent can still be
 * pointed at another's tab by its targetId; a CLI caller that names itself
 * (--agent) gets the same.
 */

const CLI = fileURLToPath(new URL('../../bin/clawd-browser.js', import.meta.url));
let env: ControlEnv;
let todomvc: Awaited<ReturnType<typeof startPackageSite>>;

beforeAll(async () => {
  env = await startControlEnv();
  todomvc = await startPackageSite('todomvc');
}, 90_000);
afterAll(async () => {
  await env?.close();
  await todomvc?.close();
});

type Said = { content: Array<{ text: string }>; isError?: boolean };
const said = (answer: unknown) => (answer as Said).content[0].text;

async function httpAgent(name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${env.server.control.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.server.token}` } },
    }),
  );
  return client;
}

/** Adds `todos` to the TodoMVC app at `app`, by refs alone, never naming a tab; answers the tab it worked in. */
async function todoTask(agent: Client, app: string, todos: string[]): Promise<string> {
  const went = said(await agent.callTool({ name: 'browser_navigate', arguments: { url: todomvc.url(`/examples/${app}/index.html`) } }));
  const targetId = /^At (\S+)$/m.exec(went)![1];
  for (const todo of todos) {
    const outline = said(await agent.callTool({ name: 'browser_snapshot', arguments: { interactive: true } }));
    const field = /textbox "What needs to be done\?"[^\n]*\[ref=(\w+)\]/.exec(outline)?.[1];
    expect(field, outline).toBeDefined();
    const typed = await agent.callTool({ name: 'browser_act', arguments: { kind: 'type', ref: field, text: todo, submit: true } });
    expect((typed as Said).isError, said(typed)).toBeFalsy();
  }
  return targetId;
}

/** The todos the app in tab `targetId` holds, as it renders them. */
async function appTodos(targetId: string): Promise<string[]> {
  const { result } = await env
    .client('clawd')
    .evaluate("() => [...document.querySelectorAll('.todo-list li label, #todo-list li label')].map((label) => label.textContent.trim())", { targetId });
  return result as string[];
}

describe('several agents on one profile', () => {
  it("each MCP connection works in its own tabs, at the same time, and reaches another's only by naming it", async () => {
    const [alice, bob] = await Promise.all([httpAgent('alice'), httpAgent('bob')]);
    const carol = new Client({ name: 'carol', version: '1' });
    await carol.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'mcp', '--url', `http://127.0.0.1:${env.server.control.port}`],
        env: { ...process.env, CLAWD_HOME: env.home } as Record<string, string>,
        stderr: 'inherit',
      }),
    );
    try {
      const [aliceTab, bobTab, carolTab] = await Promise.all([
        todoTask(alice, 'react', ['alice one', 'alice two', 'alice three']),
        todoTask(bob, 'vue', ['bob one', 'bob two']),
        todoTask(carol, 'vanillajs', ['carol one']),
      ]);
      expect(new Set([aliceTab, bobTab, carolTab]).size).toBe(3);
      expect(await appTodos(aliceTab)).toEqual(['alice one', 'alice two', 'alice three']);
      expect(await appTodos(bobTab)).toEqual(['bob one', 'bob two']);
      expect(await appTodos(carolTab)).toEqual(['carol one']);

      // Each tab is said to be its agent's; each agent's next call without targetId is still its own tab.
      const listed = said(await bob.callTool({ name: 'browser_tabs', arguments: {} }));
      expect(listed).toMatch(new RegExp(`${aliceTab} .*\\(agent mcp-[0-9a-f]{8}\\)`));
      expect(said(await alice.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('alice three');
      expect(said(await bob.callTool({ name: 'browser_snapshot', arguments: {} }))).not.toContain('alice');

      // Pointed on purpose, an agent reaches another's tab; its own stays its default.
      expect(said(await bob.callTool({ name: 'browser_snapshot', arguments: { targetId: aliceTab } }))).toContain('alice one');
      expect(said(await bob.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('bob one');
      // Focused on purpose, another's tab becomes the agent's default.
      await bob.callTool({ name: 'browser_tabs', arguments: { action: 'focus', targetId: aliceTab } });
      expect(said(await bob.callTool({ name: 'browser_snapshot', arguments: {} }))).toContain('alice one');

      // A new agent with no tab of its own is told so, and is never given someone else's.
      const dave = await httpAgent('dave');
      const none = await dave.callTool({ name: 'browser_snapshot', arguments: {} });
      expect(none.isError).toBe(true);
      expect(said(none)).toMatch(/^Error: Agent mcp-[0-9a-f]{8} has no tab of its own in profile clawd: open one/);
      await dave.close();
    } finally {
      await Promise.all([alice.close(), bob.close(), carol.close()]);
    }
  });

  it('a CLI caller or an API client that names itself gets its own tabs too', async () => {
    const named = (agent: string) =>
      new BrowserClient({ baseUrl: `http://127.0.0.1:${env.server.control.port}`, token: env.server.token, profile: 'clawd', agent });
    const first = await named('erin').navigate(todomvc.url('/examples/vanillajs/index.html'));
    const second = await named('frank').navigate(todomvc.url('/examples/vanillajs/index.html'));
    expect(first.targetId).not.toBe(second.targetId);
    expect(first.agent).toBe('erin');
    expect((await named('erin').snapshot({})).targetId).toBe(first.targetId);
    expect((await named('frank').snapshot({})).targetId).toBe(second.targetId);
    expect((await rejection(named('bad name!').tabs())).message).toMatch(/^Invalid x-clawd-agent header/);
  });
});
