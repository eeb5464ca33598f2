import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserClient } from '../../relay/src/client/browser-client.js';
import type { Routine } from '../../relay/src/api/teach-schemas.js';
import { chromiumPath } from '../harness/chromium.js';
import { type SignupSite, startSignupSite } from '../harness/signup-site.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';

/**
 * Teaching in the console's live view (spec §23), on a managed profile's
 * tab: a person, in the operator's console in their own browser, records a
 * demonstration by clicking and typing on the live picture, and saves it;
 * then marks an element with a click on the picture and writes a note, whose
 * words never reach the tab.
 */

const PASSWORD = 'live view password 42';

let env: ControlEnv;
let site: SignupSite;
let browser: Browser;
let page: Page;
let api: BrowserClient;
let targetId: string;

beforeAll(async () => {
  env = await startControlEnv();
  site = await startSignupSite();
  api = env.client('clawd');
  targetId = (await api.openTab(site.url)).targetId;
  browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.goto((await api.dashboardLink()).url);
  await page.locator(`.tab[data-target-id="${targetId}"]`).click();
  await page.waitForFunction(() => (document.getElementById('live-view') as HTMLImageElement).naturalWidth > 0);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await env?.close();
  await site?.close();
});

/** Clicks, in the live view, on the middle of what the label or button names in the remote page, as a person clicks on what they see. */
async function clickInLiveView(selector: string): Promise<void> {
  const at = (
    await api.evaluate(
      `() => { const box = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect(); return { x: (box.left + box.width / 2) / innerWidth, y: (box.top + box.height / 2) / innerHeight }; }`,
      { targetId },
    )
  ).result as { x: number; y: number };
  const view = page.locator('#live-view');
  const box = (await view.boundingBox())!;
  await view.click({ position: { x: at.x * box.width, y: at.y * box.height } });
}

async function fieldValue(name: string): Promise<string> {
  return (await api.evaluate(`() => document.querySelector('[name=${name}]').value`, { targetId })).result as string;
}

describe('teaching in the live view', () => {
  it('records what the person does on the live picture, and saves it as a routine', async () => {
    await page.getByRole('button', { name: 'Demonstrate' }).click();
    await page.locator('#demo-running').waitFor();

    await clickInLiveView('[name=name]');
    await page.keyboard.type('Grace Hopper');
    await expect.poll(() => fieldValue('name')).toBe('Grace Hopper');
    await clickInLiveView('[name=email]');
    await page.keyboard.type('grace@example.com');
    await expect.poll(() => fieldValue('email')).toBe('grace@example.com');
    await clickInLiveView('[name=password]');
    await page.keyboard.type(PASSWORD);
    await expect.poll(() => fieldValue('password')).toBe(PASSWORD);
    await clickInLiveView('[name=newsletter]');
    await clickInLiveView('button');
    await expect.poll(() => site.submissions.length).toBe(1);
    expect(site.submissions[0]).toEqual({ name: 'Grace Hopper', email: 'grace@example.com', password: PASSWORD, plan: 'free', newsletter: true });

    await page.locator('#demo-steps li', { hasText: 'click button "Create account"' }).waitFor();
    await page.getByLabel('Routine name').fill('live-sign-up');
    await page.getByRole('button', { name: 'Stop and save' }).click();
    await expect
      .poll(() => page.locator('#demo-result').textContent())
      .toBe('Saved as routine live-sign-up: 6 steps; parameters full_name, email, password, send_me_the_newsletter.');
    const routine = (await (await env.raw('/routines/live-sign-up')).json()) as Routine;
    expect(routine.recordedOn).toMatchObject({ profile: 'clawd', url: site.url });
    expect(routine.parameters.find((param) => param.name === 'password')).toEqual({
      name: 'password',
      kind: 'secret',
      description: 'textbox "Password"',
      secret: 'PASSWORD',
    });
    expect(JSON.stringify(routine)).not.toContain(PASSWORD);
    expect(await page.locator('#demo-script').textContent()).not.toContain(PASSWORD);
  });

  it('marks an element with a click on the picture and sends a note whose words stay out of the tab', async () => {
    await api.navigate(site.url, targetId);
    await page.getByRole('button', { name: 'Mark for a note' }).click();
    await page.locator('#note-marks li', { hasText: 'nothing yet' }).waitFor();
    await clickInLiveView('button');
    await page.locator('#note-marks li', { hasText: 'button "Create account"' }).waitFor();
    expect(site.submissions.length).toBe(1);

    await page.getByLabel('Note', { exact: true }).fill('Only press this once the email is the work one.');
    await page.getByRole('button', { name: 'Send note' }).click();
    await expect.poll(() => page.locator('#note-result').textContent()).toMatch(/^Note n1 sent, on 1 element/);
    expect(await fieldValue('email')).toBe('');

    const notes = await api.teach.notes({ targetId });
    expect(notes.notes).toMatchObject([{ id: 'n1', text: 'Only press this once the email is the work one.', marks: [{ what: 'button "Create account"' }] }]);
    expect(notes.notes[0].marks[0].ref).toMatch(/^e\d+$/);
  });
});
