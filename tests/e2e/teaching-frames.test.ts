import type { Protocol } from 'devtools-protocol';
import { type Browser, chromium, type FrameLocator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemonstrationResult, Note, RoutineRun } from '../../relay/src/api/teach-schemas.js';
import { chromiumPath, waitFor } from '../harness/chromium.js';
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
  await waitFor(
    () =>
      !!(page = hands
        .contexts()[0]
        ?.pages()
        .find((tab) => tab.url().includes('user=1')) as Page),
    { message: "the shared tab is not in the person's Chrome" },
  );
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
      .poll(
        async () =>
          ((await (await env.raw(`/demonstrations?profile=extension&targetId=${targetId}`)).json()) as { demonstrations: Array<{ steps: string[] }> })
            .demonstrations[0]?.steps,
      )
      .toEqual([
        `type into textbox "Email" in frame ${SIGNUP}`,
        `type into textbox "Card number" ${inPayment}`,
        `type into textbox "Name on card" ${inPayment}`,
        `click button "Use this card" ${inPayment}`,
      ]);

    made = await post<DemonstrationResult>('/demonstrations/stop', { targetId, name: 'framed-checkout', description: 'Pay for the basket' });
    const routine = made.routine!;
    expect(routine.steps.map((step) => step.kind)).toEqual(['goto', 'type', 'type', 'type', 'click']);
    expect(routine.steps[1]).toMatchObject({
      kind: 'type',
      element: { by: 'role', role: 'textbox', name: 'Email', frames: [SIGNUP] },
      what: `textbox "Email" in frame ${SIGNUP}`,
    });
    expect(routine.steps[4]).toMatchObject({ kind: 'click', element: { by: 'role', role: 'button', name: 'Use this card', frames: [SIGNUP, PAYMENT] } });
    expect(routine.parameters.map((param) => [param.name, param.default])).toEqual([
      ['email', 'ada@example.com'],
      ['card_number', '4242 4242 4242 4242'],
      ['name_on_card', 'Ada Lovelace'],
    ]);
    // Each frame found by its element in its parent's document, as Playwright's codegen writes it.
    expect(made.script).toContain(
      `await page.locator(${JSON.stringify(SIGNUP)}).contentFrame().getByRole("textbox", { name: "Email", exact: true }).fill("ada@example.com");`,
    );
    expect(made.script).toContain(
      `await page.locator(${JSON.stringify(SIGNUP)}).contentFrame().locator(${JSON.stringify(PAYMENT)}).contentFrame().getByRole("button", { name: "Use this card", exact: true }).click();`,
    );
  }, 60_000);

  it('its test passes against the site with @playwright/test as it is', async () => {
    const run = await runPlaywrightTest(made.script!);
    // Each fill and click waits for its element inside its frames, so a step that missed would time the test out.
    // The test ends at its last click, as the demonstration did: whether that click's form reaches the site before
    // the test's browser closes is a race of the test's own, so the routine's run below checks what the frame sends.
    expect(run.output).toContain('1 passed');
    expect(run.code).toBe(0);
  }, 150_000);

  it('its routine runs with other values on a managed profile, finding each element inside its frames', async () => {
    const before = site.paid.length;
    const run = await post<RoutineRun>(
      '/routines/framed-checkout/run',
      { params: { email: 'grace@example.com', card_number: '5555 4444 3333 1111', name_on_card: 'Grace Hopper' } },
      'clawd',
    );
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
    await expect
      .poll(async () => ((await (await env.raw(`/notes?profile=extension&targetId=${targetId}`)).json()) as { marking?: string[] }).marking)
      .toEqual(marked);
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
    expect(notes.map((note) => note.marks)).toEqual([
      [
        { what: marked[0], ref: payRef },
        { what: marked[1], ref: emailRef },
      ],
    ]);

    // The refs are the elements': the agent acts on one inside the out-of-process frame, and the page shows it.
    await agent.act({ kind: 'type', ref: emailRef!, text: 'work@example.com', targetId });
    expect(await signup.getByLabel('Email').inputValue()).toBe('work@example.com');
  }, 60_000);
});

describe("a demonstration inside frames in the console's live view", () => {
  it("hears the person's clicks and typing on the live picture of a managed tab, in both frames", async () => {
    const api = env.client('clawd');
    // An address of its own: the routine's run left another tab of this profile on the shop.
    const shop = `${site.url}?live`;
    const tab = (await api.openTab(shop)).targetId;
    // A Playwright beside the managed browser only measures where the fields are on the tab's picture; the person clicks on it.
    const beside = await chromium.connectOverCDP(`ws://127.0.0.1:${env.server.relay.port}/cdp?profile=clawd`, {
      headers: { authorization: `Bearer ${env.server.token}` },
    });
    const person = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
    try {
      let remote: Page | undefined;
      await waitFor(
        () =>
          !!(remote = beside
            .contexts()
            .flatMap((context) => context.pages())
            .find((candidate) => candidate.url() === shop)),
        { message: 'the managed tab is not there' },
      );
      const payment = remote!.frameLocator(SIGNUP).frameLocator(PAYMENT);
      await payment.getByLabel('Card number').waitFor();
      const console = await person.newPage({ viewport: { width: 1280, height: 1000 } });
      await console.goto((await api.dashboardLink()).url);
      await console.locator(`.tab[data-target-id="${tab}"]`).click();
      await console.waitForFunction(() => (document.getElementById('live-view') as HTMLImageElement).naturalWidth > 0);
      const [width, height] = await remote!.evaluate(() => [innerWidth, innerHeight]);
      const clickOn = async (element: ReturnType<Page['getByLabel']>) => {
        const at = (await element.boundingBox())!;
        const view = console.locator('#live-view');
        const box = (await view.boundingBox())!;
        await view.click({ position: { x: ((at.x + at.width / 2) / width) * box.width, y: ((at.y + at.height / 2) / height) * box.height } });
      };

      await console.getByRole('button', { name: 'Demonstrate' }).click();
      await console.locator('#demo-running').waitFor();
      await clickOn(remote!.frameLocator(SIGNUP).getByLabel('Email'));
      await console.keyboard.type('live@example.com');
      await clickOn(payment.getByLabel('Card number'));
      await console.keyboard.type('4000 0000 0000 0002');
      await clickOn(payment.getByLabel('Name on card'));
      await console.keyboard.type('Hedy Lamarr');
      const before = site.paid.length;
      await clickOn(payment.getByRole('button', { name: 'Use this card' }));
      await expect.poll(() => site.paid.slice(before)).toEqual([{ card: '4000 0000 0000 0002', holder: 'Hedy Lamarr' }]);

      const inPayment = `in frame ${SIGNUP} > ${PAYMENT}`;
      await console.locator('#demo-steps li', { hasText: 'click button "Use this card"' }).waitFor();
      expect(await console.locator('#demo-steps li').allTextContents()).toEqual([
        `type into textbox "Email" in frame ${SIGNUP}`,
        `type into textbox "Card number" ${inPayment}`,
        `type into textbox "Name on card" ${inPayment}`,
        `click button "Use this card" ${inPayment}`,
      ]);
      const stopped = await post<DemonstrationResult>('/demonstrations/stop', { targetId: tab, discard: true }, 'clawd');
      expect(stopped.saved).toBe(false);
    } finally {
      await person.close();
      await beside.close().catch(() => {});
    }
  }, 90_000);
});
