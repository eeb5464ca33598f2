import type { Protocol } from 'devtools-protocol';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemonstrationResult, Note, RoutineRun } from '../../relay/src/api/teach-schemas.js';
import { waitFor } from '../harness/chromium.js';
import { type ControlEnv, startControlEnv } from '../harness/control-env.js';
import { type FramedSite, startFramedSite } from '../harness/framed-site.js';
import { runPlaywrightTest } from '../harness/playwright-test-run.js';

/**
 * A person teaches inside frames (spec §23): on a tab shared from their own
 * Chrome, a shop's checkout whose sign-up form sits in a same-origin frame
 * and whose payment form sits, inside that, in a frame of another site (an
 * out-of-process frame). What their own hands do in both is recorded with
 * the frames' path; the routine runs on a managed profile, the exported test
 * passes with @playwright/test as it is, and a note on an element inside a
 * frame reaches the agent with that element's ref. The site says what it
 * received.
 */

let env: ControlEnv;
let site: FramedSite;
let hands: Browser;
let page: Page;
let targetId: string;
let made: DemonstrationResult;

const SIGNUP = 'iframe[title="Sign-up"]';
const PAYMENT = 'iframe[title="Payment"]';

beforeAll(async () => {
  site = await startFramedSite();
  env = await startControlEnv({ userBrowserPort: true });
  hands = await chromium.connectOverCDP(env.userBrowser.wsEndpoint!);
  await waitFor(() => !!(page = hands.contexts()[0]?.pages().find((tab) => tab.url().includes('user=1'))!), { message: "the shared tab is not in the person's Chrome" });
  await page.goto(site.url);
  await waitFor(() => env.server.relay.bridge.sharedTabs()[0]?.url === site.url, { message: 'the relay never saw the shop' });
  targetId = env.server.relay.bridge.sharedTabs()[0].targetId;
}, 60_000);

afterAll(async () => {
  await hands?.close().catch(() => {});
  await env?.close();
  await site?.close();
});

async function post<T>(path: string, body: object, profile = 'extension'): Promise<T> {
  const response = await env.raw(`${path}?profile=${profile}`, { method: 'POST', body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer as T;
}

/** The payment form's frame, inside the sign-up form's, as the person's hands reach it. */
function frames(): { signup: FrameLocator; payment: FrameLocator } {
  const signup = page.frameLocator(SIGNUP);
  return { signup, payment: signup.frameLocator(PAYMENT) };
}

describe('a demonstration inside frames', () => {
  it('hears the person in a same-origin frame and in an out-of-process one inside it, each step with its frames', async () => {
    const { signup, payment } = frames();
    await payment.getByLabel('Card number').waitFor();
    // The payment frame is another site's: a target of its own in the person's Chrome, not its parent's renderer.
    const { targetInfos } = await env.userBrowser.cdp.send<Protocol.Target.GetTargetsResponse>('Target.getTargets');
    expect(targetInfos.filter((target) => target.type === 'iframe').map((target) => target.url)).toEqual([`${site.otherOrigin}/pay`]);

    await post('/demonstrations/start', { targetId });
    await signup.getByLabel('Email').fill('ada@example.com');
    await payment.getByLabel('Card number').fill('4242 4242 4242 4242');
    await payment.getByLabel('Name on card').fill('Ada Lovelace');
    await payment.getByRole('button', { name: 'Use this card' }).click();
    await payment.getByRole('heading', { name: 'Card taken, thank you Ada Lovelace' }).waitFor();
    expect(site.paid).toEqual([{ card: '4242 4242 4242 4242', holder: 'Ada Lovelace' }]);

    const inPayment = `in frame ${SIGNUP} > ${PAYMENT}`;
    await expect
      .poll(async () => ((await (await env.raw(`/demonstrations?profile=extension&targetId=${targetId}`)).json()) as { demonstrations: Array<{ steps: string[] }> }).demonstrations[0]?.steps)
      .toEqual([`type into textbox "Email" in frame ${SIGNUP}`, `type into textbox "Card number" ${inPayment}`, `type into textbox "Name on card" ${inPayment}`, `click button "Use this card" ${inPayment}`]);

    made = await post<DemonstrationResult>('/demonstrations/stop', { targetId, name: 'framed-checkout', description: 'Pay for the basket' });
    const routine = made.routine!;
    expect(routine.steps.map((step) => step.kind)).toEqual(['goto', 'type', 'type', 'type', 'click']);
    expect(routine.steps[1]).toMatchObject({ kind: 'type', element: { by: 'role', role: 'textbox', name: 'Email', frames: [SIGNUP] }, what: `textbox "Email" in frame ${SIGNUP}` });
    expect(routine.steps[4]).toMatchObject({ kind: 'click', element: { by: 'role', role: 'button', name: 'Use this card', frames: [SIGNUP, PAYMENT] } });
    expect(routine.parameters.map((param) => [param.name, param.default])).toEqual([
      ['email', 'ada@example.com'],
      ['card_number', '4242 4242 4242 4242'],
      ['name_on_card', 'Ada Lovelace'],
    ]);
    // Each frame found by its element in its parent's document, as Playwright's codegen writes it.
    expect(made.script).toContain(`await page.locator(${JSON.stringify(SIGNUP)}).contentFrame().getByRole("textbox", { name: "Email", exact: true }).fill("ada@example.com");`);
    expect(made.script).toContain(
      `await page.locator(${JSON.stringify(SIGNUP)}).contentFrame().locator(${JSON.stringify(PAYMENT)}).contentFrame().getByRole("button", { name: "Use this card", exact: true }).click();`,
    );
  }, 60_000);

  it('its test passes against the site with @playwright/test as it is', async () => {
    const before = site.paid.length;
    const run = await runPlaywrightTest(made.script!);
    expect(run.output).toContain('1 passed');
    expect(run.code).toBe(0);
    expect(site.paid.slice(before)).toEqual([{ card: '4242 4242 4242 4242', holder: 'Ada Lovelace' }]);
  }, 150_000);

  it('its routine runs with other values on a managed profile, finding each element inside its frames', async () => {
    const before = site.paid.length;
    const run = await post<RoutineRun>('/routines/framed-checkout/run', { params: { email: 'grace@example.com', card_number: '5555 4444 3333 1111', name_on_card: 'Grace Hopper' } }, 'clawd');
    expect(run.failed).toBeUndefined();
    expect(run.steps.map((step) => step.outcome)).toEqual(Array(5).fill('ok'));
    expect(run.ok).toBe(true);
    expect(site.paid.slice(before)).toEqual([{ card: '5555 4444 3333 1111', holder: 'Grace Hopper' }]);
    // The sign-up frame's field holds what the routine typed there, as the agent's snapshot reads it.
    const snapshot = await env.client('clawd').snapshot({ targetId: run.targetId });
    expect(snapshot.text).toMatch(/- textbox "Email" \[value="grace@example\.com"\] \[ref=f\d+e\d+\]/);
  }, 60_000);
});

describe('a note inside frames', () => {
  it("reaches the agent's next snapshot with the ref of the element the person marked in an out-of-process frame", async () => {
    await page.goto(site.url);
    await waitFor(() => env.server.relay.bridge.sharedTabs()[0]?.url === site.url, { message: 'the relay never saw the shop' });
    const { signup, payment } = frames();
    await payment.getByLabel('Card number').waitFor();
    const paidBefore = site.paid.length;

    await post('/notes/start', { targetId });
    await payment.getByRole('button', { name: 'Use this card' }).click();
    await signup.getByLabel('Email').click();
    const marked = [`button "Use this card" in frame ${SIGNUP} > ${PAYMENT}`, `textbox "Email" in frame ${SIGNUP}`];
    await expect.poll(async () => ((await (await env.raw(`/notes?profile=extension&targetId=${targetId}`)).json()) as { marking?: string[] }).marking).toEqual(marked);
    // Marking, the click on the button paid nothing.
    expect(site.paid.length).toBe(paidBefore);
    await post('/notes', { targetId, text: 'Pay only after the email is filled in' });

    const agent = env.client('extension');
    const snapshot = await agent.snapshot({ targetId });
    const payRef = /- button "Use this card" \[ref=(f\d+e\d+)\]/.exec(snapshot.text)?.[1];
    const emailRef = /- textbox "Email" \[ref=(f\d+e\d+)\]/.exec(snapshot.text)?.[1];
    expect(payRef).toBeDefined();
    expect(emailRef).toBeDefined();
    expect(snapshot.notes).toContain(`n1 on ${payRef}, ${emailRef}.`);
    const notes = (await agent.teach.notes({ targetId })).notes as Note[];
    expect(notes.map((note) => note.marks)).toEqual([[{ what: marked[0], ref: payRef }, { what: marked[1], ref: emailRef }]]);

    // The refs are the elements': the agent acts on one inside the out-of-process frame, and the page shows it.
    await agent.act({ kind: 'type', ref: emailRef!, text: 'work@example.com', targetId });
    expect(await signup.getByLabel('Email').inputValue()).toBe('work@example.com');
  }, 60_000);
});
