import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import { startPackageSite } from '../harness/package-site.js';
import { refOf } from '../harness/refs.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Apps nobody here wrote that handle their events in their own way, driven as
 * an agent drives them: through the control API, by snapshot refs alone, on
 * the managed and the extension profile. Both come from the `todomvc` npm
 * package (its examples, served as they are):
 * - Polymer (0.3, examples/polymer): web components under platform.js, whose
 *   Shadow DOM polyfill replaces the page's DOM globals (Element, Document,
 *   MutationObserver, querySelector...) with wrappers; each todo is a custom
 *   element (`<li is="td-item">`) with its checkbox inside its shadow tree,
 *   bound two-way to the model; filters are links read by a router element.
 * - React (0.12, examples/react): JSX compiled in the page, every handler
 *   delegated to the document through React's synthetic events; the todo
 *   checkbox is a controlled input whose `onChange` React makes from clicks.
 * Each step is checked against the app's own state (its model or storage and
 * what it renders), never only against our snapshot.
 */

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

/** The ref of the checkbox in the todo whose text is `title`: the checkbox line just above the text, in the same list item. */
function todoCheckbox(text: string, title: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.trim() === `- text: ${JSON.stringify(title)}`);
  for (let i = at - 1; at > 0 && i >= 0 && !/- listitem/.test(lines[i]); i--) {
    const ref = /^\s*- checkbox\b.*\[ref=(\w+)\]/.exec(lines[i])?.[1];
    if (ref) return ref;
  }
  throw new Error(`No checkbox for the todo ${JSON.stringify(title)} in:\n${text.slice(0, 3000)}`);
}

/** What a TodoMVC app shows and holds, in one shape for both apps. */
interface TodoState {
  /** The model (Polymer) or the stored list (React): every todo, `+` completed, `-` not. */
  model: string[];
  /** The todos the list renders now: title, `+` when its checkbox is checked, and `completed` when its row is styled so. */
  shown: string[];
}

/**
 * The model from the app itself, in the main world (where platform.js's wrappers are the DOM); the rows
 * as the browser renders them, read by Playwright in its own world, as the snapshot and a click see
 * them. The polyfill renders the app's changes at the next animation frame, so the two can differ for
 * a moment; a test that waits for both never snapshots between them.
 */
async function polymerState(page: Page): Promise<TodoState> {
  const model = await page.evaluate(() =>
    (document.querySelector('#model') as unknown as { items: Array<{ title: string; completed: boolean }> }).items.map(
      (item) => `${item.completed ? '+' : '-'} ${item.title}`,
    ),
  );
  const rows = page.locator('li[is=td-item]');
  const shown: string[] = [];
  try {
    for (let i = 0, count = await rows.count(); i < count; i++) {
      const row = rows.nth(i);
      const checked = await row.locator('input.toggle').isChecked({ timeout: 500 });
      const title = ((await row.locator('.view label').textContent({ timeout: 500 })) ?? '').trim();
      const styled = ((await row.locator('.view').getAttribute('class', { timeout: 500 })) ?? '').split(/\s+/).includes('completed');
      shown.push(`${checked ? '+' : '-'} ${title}${styled ? ' completed' : ''}`);
    }
  } catch {
    // A row went or came while it was read: the poll reads again.
    shown.push('(changing)');
  }
  return { model, shown };
}

const reactState = (page: Page): Promise<TodoState> =>
  page.evaluate(() => {
    const stored = JSON.parse(localStorage.getItem('react-todos') ?? '[]') as Array<{ title: string; completed: boolean }>;
    return {
      model: stored.map((todo) => `${todo.completed ? '+' : '-'} ${todo.title}`),
      shown: [...document.querySelectorAll('#todo-list > li')].map((row) => {
        const checked = (row.querySelector('input.toggle') as HTMLInputElement).checked;
        return `${checked ? '+' : '-'} ${row.querySelector('label')!.textContent!.trim()}${row.classList.contains('completed') ? ' completed' : ''}`;
      }),
    };
  });

/** Waits until the app holds and shows what is expected (its bindings update a moment after the event). */
async function expectTodos(read: () => Promise<TodoState>, expected: TodoState): Promise<void> {
  await expect.poll(read, { timeout: 5_000 }).toEqual(expected);
}

/** Adds todos as an agent does: type into the new-todo textbox by its ref, then Enter (a key, or `submit`). */
async function addTodos(client: BrowserClient, targetId: string, titles: string[], how: 'press' | 'submit'): Promise<void> {
  const box = refOf((await client.snapshot({ targetId })).text, 'textbox "What needs to be done?"');
  for (const title of titles) {
    if (how === 'submit') await client.type(box, title, { targetId, submit: true });
    else {
      await client.type(box, title, { targetId });
      await client.press('Enter', { targetId });
    }
  }
}

for (const profile of ['clawd', 'extension'] as const) {
  describe(`on the ${profile} profile`, () => {
    const tab = async (client: BrowserClient): Promise<string> =>
      profile === 'clawd' ? (await client.openTab('about:blank')).targetId : (await client.tabs())[0].targetId;

    it('Polymer TodoMVC (web components, DOM globals replaced by a polyfill): add, tick, untick, filter, clear, by refs alone', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(todomvc.url('/examples/polymer/index.html'), targetId);
      // The textbox is inside <td-todos>'s shadow tree: there once the HTML imports have loaded and the element upgraded.
      await client.wait({ selector: '#new-todo', targetId });
      const page = await env.server.manager.driver(profile).page(targetId);
      const state = () => polymerState(page);
      await expectTodos(state, { model: [], shown: [] });

      await addTodos(client, targetId, ['Buy milk', 'Walk the dog', 'Write the report'], 'press');
      await expectTodos(state, {
        model: ['- Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '- Walk the dog', '- Write the report'],
      });

      // Tick the second todo by its ref: the model, the checkbox and the row's style all follow.
      let { text } = await client.snapshot({ targetId });
      expect(text).toContain('3 items left');
      // The act's own answer says what changed, read where the app's polyfills (which replace
      // HTMLInputElement and MutationObserver in the page's world) cannot change what is read.
      const ticked = await client.click(todoCheckbox(text, 'Walk the dog'), { targetId });
      expect(ticked).toMatchObject({ changed: true, state: { checked: true } });
      await expectTodos(state, {
        model: ['- Buy milk', '+ Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '+ Walk the dog completed', '- Write the report'],
      });
      ({ text } = await client.snapshot({ targetId }));
      expect(text).toMatch(/- checkbox \[checked\][^\n]*\n\s*- text: "Walk the dog"/);
      // (Its "N items left" lags one change behind under any click, Playwright's own too: the app's
      // click handler counts and filters before its two-way binding writes the todo, on the `change` after.)

      // Untick it with the same ref (the element is the same; no new snapshot needed), then tick the last.
      await client.click(todoCheckbox(text, 'Walk the dog'), { targetId });
      await expectTodos(state, {
        model: ['- Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '- Walk the dog', '- Write the report'],
      });
      await client.click(todoCheckbox(text, 'Write the report'), { targetId });
      await expectTodos(state, {
        model: ['- Buy milk', '- Walk the dog', '+ Write the report'],
        shown: ['- Buy milk', '- Walk the dog', '+ Write the report completed'],
      });

      // Filters are links that a router element (flatiron-director) reads from the URL's hash.
      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "Active"'), { targetId });
      await expectTodos(state, { model: ['- Buy milk', '- Walk the dog', '+ Write the report'], shown: ['- Buy milk', '- Walk the dog'] });
      ({ text } = await client.snapshot({ targetId }));
      expect(text).not.toContain('Write the report');
      // Ticked under "Active", the todo is completed; the app leaves it in the list, ticked, until the
      // next change (as under Playwright's own click: it filters before its binding writes the todo).
      await client.click(todoCheckbox(text, 'Buy milk'), { targetId });
      await expectTodos(state, { model: ['+ Buy milk', '- Walk the dog', '+ Write the report'], shown: ['+ Buy milk completed', '- Walk the dog'] });

      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "Completed"'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '- Walk the dog', '+ Write the report'],
        shown: ['+ Buy milk completed', '+ Write the report completed'],
      });
      ({ text } = await client.snapshot({ targetId }));
      // Unticked under "Completed": active again (and, as above, still listed until the next change).
      await client.click(todoCheckbox(text, 'Write the report'), { targetId });
      await expectTodos(state, { model: ['+ Buy milk', '- Walk the dog', '- Write the report'], shown: ['+ Buy milk completed', '- Write the report'] });

      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "All"'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['+ Buy milk completed', '- Walk the dog', '- Write the report'],
      });

      // "Mark all as complete" (a checkbox named by its <label for>), then "Clear completed".
      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'checkbox "Mark all as complete"'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '+ Walk the dog', '+ Write the report'],
        shown: ['+ Buy milk completed', '+ Walk the dog completed', '+ Write the report completed'],
      });
      ({ text } = await client.snapshot({ targetId }));
      await client.click(todoCheckbox(text, 'Walk the dog'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '- Walk the dog', '+ Write the report'],
        shown: ['+ Buy milk completed', '- Walk the dog', '+ Write the report completed'],
      });
      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, /button "Clear completed/), { targetId });
      await expectTodos(state, { model: ['- Walk the dog'], shown: ['- Walk the dog'] });
      expect((await client.snapshot({ targetId })).text).toContain('1 item left');
    });

    it('React TodoMVC (synthetic events delegated to the document, controlled checkboxes): add, tick, untick, filter, clear, by refs alone', async () => {
      const client = env.client(profile);
      const targetId = await tab(client);
      await client.navigate(todomvc.url('/examples/react/index.html'), targetId);
      // The app renders once the page has compiled its JSX.
      await client.wait({ selector: '#new-todo', targetId });
      const page = await env.server.manager.driver(profile).page(targetId);
      const state = () => reactState(page);
      await expectTodos(state, { model: [], shown: [] });

      await addTodos(client, targetId, ['Buy milk', 'Walk the dog', 'Write the report'], 'submit');
      await expectTodos(state, {
        model: ['- Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '- Walk the dog', '- Write the report'],
      });

      let { text } = await client.snapshot({ targetId });
      expect(await client.click(todoCheckbox(text, 'Walk the dog'), { targetId })).toMatchObject({ changed: true, state: { checked: true } });
      await expectTodos(state, {
        model: ['- Buy milk', '+ Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '+ Walk the dog completed', '- Write the report'],
      });
      ({ text } = await client.snapshot({ targetId }));
      expect(text).toMatch(/- checkbox \[checked\][^\n]*\n\s*- text: "Walk the dog"/);
      await client.click(todoCheckbox(text, 'Walk the dog'), { targetId });
      await expectTodos(state, {
        model: ['- Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['- Buy milk', '- Walk the dog', '- Write the report'],
      });
      await client.click(todoCheckbox(text, 'Buy milk'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '- Walk the dog', '- Write the report'],
        shown: ['+ Buy milk completed', '- Walk the dog', '- Write the report'],
      });

      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "Active"'), { targetId });
      await expectTodos(state, { model: ['+ Buy milk', '- Walk the dog', '- Write the report'], shown: ['- Walk the dog', '- Write the report'] });
      ({ text } = await client.snapshot({ targetId }));
      await client.click(todoCheckbox(text, 'Write the report'), { targetId });
      await expectTodos(state, { model: ['+ Buy milk', '- Walk the dog', '+ Write the report'], shown: ['- Walk the dog'] });

      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "Completed"'), { targetId });
      await expectTodos(state, {
        model: ['+ Buy milk', '- Walk the dog', '+ Write the report'],
        shown: ['+ Buy milk completed', '+ Write the report completed'],
      });
      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, /button "Clear completed/), { targetId });
      await expectTodos(state, { model: ['- Walk the dog'], shown: [] });

      ({ text } = await client.snapshot({ targetId }));
      await client.click(refOf(text, 'link "All"'), { targetId });
      await expectTodos(state, { model: ['- Walk the dog'], shown: ['- Walk the dog'] });
    });
  });
}
