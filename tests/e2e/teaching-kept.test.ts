import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Notes } from '../../relay/src/api/teach-schemas.js';
import { waitFor } from '../harness/chromium.js';
import { refOf } from '../harness/refs.js';
import { type SignupSite, startSignupSite } from '../harness/signup-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * What a person taught outlives the server that heard it, without a store
 * (spec §23): a note on a tab of the person's own Chrome (an element marked
 * with their own click) and a routine, both kept in the server's home; the
 * server restarts on the same home, the Chrome and its tab stay, and the
 * agent's next snapshot there still carries the open note, its element
 * found again, and the routine still runs.
 */

let env: ControlEnv;
let site: SignupSite;
let hands: Browser;

beforeAll(async () => {
  site = await startSignupSite();
  env = await startControlEnv({ userBrowserPort: true });
  hands = await chromium.connectOverCDP(env.userBrowser.wsEndpoint!);
}, 60_000);

afterAll(async () => {
  await hands?.close().catch(() => {});
  await env?.close();
  await site?.close();
});

/** The person's shared tab, as their Chrome has it. */
async function personsTab(): Promise<Page> {
  let found: Page | undefined;
  await waitFor(
    () =>
      !!(found = hands
        .contexts()[0]
        ?.pages()
        .find((page) => page.url().includes('user=1') || page.url().startsWith(site.url))),
    { message: "the shared tab is not in the person's Chrome" },
  );
  return found!;
}

async function post<T>(path: string, body: object, profile = 'extension'): Promise<T> {
  const response = await env.raw(`${path}?profile=${profile}`, { method: 'POST', body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer as T;
}

describe('what a person taught, across a restart', () => {
  it('keeps open notes and routines in the home: the next server shows the note on the same tab, its element found again', async () => {
    const page = await personsTab();
    await page.goto(site.url);
    await waitFor(() => env.server.relay.bridge.sharedTabs()[0]?.url.startsWith(site.url), { message: 'the relay never saw the form' });
    const { targetId } = env.server.relay.bridge.sharedTabs()[0];

    // The person marks the button with their own click, and writes the note; the agent marks another done.
    await post('/notes/start', { targetId });
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(async () => (await post<{ marking: string[] }>('/notes/start', { targetId })).marking).toEqual(['button "Create account"']);
    const kept = await post<{ id: string }>('/notes', { targetId, text: 'Only press this once the plan is Team.' });
    const finished = await post<{ id: string }>('/notes', { targetId, text: 'Fill in the name first.' });
    await post('/notes/done', { id: finished.id });
    expect(site.submissions).toEqual([]);

    // A routine of the operator's, shown on the managed profile.
    const admin = env.client('clawd');
    const tab = await admin.openTab(site.url);
    await admin.teach.startDemonstration({ targetId: tab.targetId });
    const shown = await admin.snapshot({ targetId: tab.targetId });
    await admin.act({ kind: 'type', ref: refOf(shown.text, /textbox "Full name"/), text: 'Ada Lovelace', targetId: tab.targetId });
    // Moving on to the next field is what makes the typing a step.
    await admin.act({ kind: 'click', ref: refOf(shown.text, /textbox "Email"/), targetId: tab.targetId });
    await expect
      .poll(async () => (await admin.teach.demonstrations({ targetId: tab.targetId })).demonstrations[0]?.steps)
      .toContain('type into textbox "Full name"');
    await admin.teach.stopDemonstration({ targetId: tab.targetId, name: 'kept-name' });
    expect(existsSync(join(env.home, 'notes.json'))).toBe(true);

    await env.restart();
    await waitFor(() => env.server.relay.bridge.sharedTabs().some((shared) => shared.targetId === targetId), {
      timeoutMs: 20_000,
      message: 'the extension did not bring the tab back',
    });

    // The open note, on the same tab, its element found again on the page; the one marked done stays done.
    const agent = env.client('extension');
    const snapshot = (await agent.snapshot({ targetId })) as { text: string; notes?: string };
    expect(snapshot.notes).toContain('Only press this once the plan is Team.');
    expect(snapshot.notes).not.toContain('Fill in the name first.');
    const button = refOf(snapshot.text, /button "Create account"/);
    expect(snapshot.notes).toContain(`${kept.id} on ${button}`);
    const all = (await agent.teach.notes({ targetId, all: true })) as Notes;
    expect(all.notes.map((note) => [note.id, note.done])).toEqual([
      [kept.id, false],
      [finished.id, true],
    ]);
    // A new note's id is none an old one had.
    const next = await post<{ id: string }>('/notes', { targetId, text: 'And then the receipt.' });
    expect([kept.id, finished.id]).not.toContain(next.id);

    // The routine is there, and runs.
    const again = await admin.openTab('about:blank');
    const run = await admin.teach.runRoutine('kept-name', { targetId: again.targetId, params: { full_name: 'Grace Hopper' } });
    expect(run.ok, JSON.stringify(run.failed)).toBe(true);
    expect((await admin.evaluate('() => document.querySelector("[name=name]").value', { targetId: again.targetId })).result).toBe('Grace Hopper');
  }, 120_000);
});
