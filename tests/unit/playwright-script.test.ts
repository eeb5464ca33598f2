import { describe, expect, it } from 'vitest';
import { playwrightScript } from '../../relay/src/replay/playwright-script.js';
import type { ScriptStep } from '../../relay/src/replay/script-steps.js';

/** Recorded steps as a Playwright test: the pure writer (its run against real pages is in tests/e2e/script-export.test.ts). */

const role = (role: string, name: string) => ({ by: 'role' as const, role, name, exact: true });

describe('playwrightScript', () => {
  it('writes secrets as reads from the environment, never their values', () => {
    const steps: ScriptStep[] = [
      { kind: 'open', tab: 'T1', url: 'https://example.com/login' },
      {
        kind: 'act',
        tab: 'T1',
        url: 'https://example.com/login',
        action: { kind: 'type', ref: 'e3', text: 'pre-{{secret:SHOP_PW}}', submit: true },
        elements: { e3: role('textbox', 'Password') },
      },
    ];
    const { script, notes } = playwrightScript(steps, 'login', 'header');
    expect(script).toContain('await page.getByRole("textbox", { name: "Password", exact: true }).fill("pre-" + secret("SHOP_PW"));');
    expect(script).toContain('await page.getByRole("textbox", { name: "Password", exact: true }).press(\'Enter\');');
    expect(script).toContain('const value = process.env[`SECRET_${name}`];');
    expect(notes).toEqual([]);
  });

  it('marks a CSS path, says what it leaves out, and starts a tab met first by an act where it was', () => {
    const steps: ScriptStep[] = [
      {
        kind: 'act',
        tab: 'T9',
        url: 'https://example.com/a',
        action: { kind: 'click', ref: 'e4' },
        elements: { e4: { by: 'css', value: '#main > div:nth-of-type(2)' } },
      },
      { kind: 'act', tab: 'T9', url: 'https://example.com/a', action: { kind: 'click', ref: 'f1e2' }, elements: { f1e2: { by: 'css', frame: 'f1' } } },
      { kind: 'act', tab: 'T9', url: 'https://example.com/a', action: { kind: 'evaluate', fn: '() => document.title' }, elements: {} },
      { kind: 'act', tab: 'T9', url: 'https://example.com/a', action: { kind: 'click', x: 10, y: 20, double: true }, elements: {} },
      {
        kind: 'act',
        tab: 'T9',
        url: 'https://example.com/a',
        action: {
          kind: 'fill',
          fields: [
            { ref: 'e5', value: true },
            { ref: 'e6', value: 'x' },
          ],
        },
        elements: { e5: role('checkbox', 'Agree'), e6: { by: 'testid', value: 'name' } },
      },
      { kind: 'close', tab: 'T9' },
    ];
    const { script, notes } = playwrightScript(steps, 't', 'h');
    const body = script
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    expect(body).toEqual([
      'await page.goto("https://example.com/a");',
      '// a CSS path: the element had no unique role and name, test id or text; it may break when the page changes',
      'await page.locator("#main > div:nth-of-type(2)").click();',
      '// click on f1e2, inside frame f1: not written out (refs in frames are not exported yet)',
      expect.stringMatching(/^\/\/ the agent evaluated a script here \(\(\) => document\.title…\)/),
      'await page.mouse.click(10, 20, { clickCount: 2 });',
      'await page.getByRole("checkbox", { name: "Agree", exact: true }).setChecked(true);',
      'await page.getByTestId("name").fill("x");',
      'await page.close();',
    ]);
    expect(notes).toHaveLength(2);
    expect(script).not.toContain('function secret');
  });

  it("writes the mouse's own acts as page.mouse calls: counts, steps, a drag from a ref to a point, a text range at the points it was selected", () => {
    const at = (action: ScriptStep & { kind: 'act' }) => action;
    const steps: ScriptStep[] = [
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'click', ref: 'e2', count: 3 }, elements: { e2: role('paragraph', 'Intro') } }),
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'click', x: 5, y: 6, count: 3 }, elements: {} }),
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'move', x: 7, y: 8, steps: 12 }, elements: {} }),
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'mousedown', x: 7, y: 8, button: 'right' }, elements: {} }),
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'mouseup' }, elements: {} }),
      at({
        kind: 'act',
        tab: 'T1',
        url: 'about:blank',
        action: { kind: 'drag', startRef: 'e3', endX: 100, endY: 200, steps: 30 },
        elements: { e3: role('listitem', 'Item 1') },
      }),
      at({
        kind: 'act',
        tab: 'T1',
        url: 'about:blank',
        action: { kind: 'select-text', text: 'lazy dog' },
        elements: {},
        path: { from: { x: 10.5, y: 20 }, to: { x: 80, y: 20 } },
      }),
      at({ kind: 'act', tab: 'T1', url: 'about:blank', action: { kind: 'select-text', ref: 'e4' }, elements: { e4: role('textbox', 'Note') } }),
    ];
    const body = playwrightScript(steps, 't', 'h')
      .script.split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.slice(2));
    expect(body).toEqual([
      'await page.getByRole("paragraph", { name: "Intro", exact: true }).click({ clickCount: 3 });',
      'await page.mouse.click(5, 6, { clickCount: 3 });',
      'await page.mouse.move(7, 8, { steps: 12 });',
      'await page.mouse.move(7, 8);',
      'await page.mouse.down({ button: "right" });',
      'await page.mouse.up();',
      '{',
      '  const dragFrom = (await page.getByRole("listitem", { name: "Item 1", exact: true }).boundingBox())!;',
      '  await page.mouse.move(dragFrom.x + dragFrom.width / 2, dragFrom.y + dragFrom.height / 2);',
      '  await page.mouse.down();',
      '  await page.mouse.move(100, 200, { steps: 30 });',
      '  await page.mouse.up();',
      '}',
      '// the text "lazy dog" selected with the mouse, where it was on the page when recorded',
      'await page.mouse.move(10.5, 20);',
      'await page.mouse.down();',
      'await page.mouse.move(80, 20, { steps: 6 });',
      'await page.mouse.up();',
      'await page.getByRole("textbox", { name: "Note", exact: true }).selectText();',
    ]);
  });
});
