import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemonstrationResult, Routine, RoutineRun } from '../../relay/src/api/teach-schemas.js';
import { BrowserClient } from '../../relay/src/client/browser-client.js';
import { refOf } from '../harness/refs.js';
import { type SignupSite, startSignupSite } from '../harness/signup-site.js';
import { type ControlEnv, runCli, startControlEnv } from '../harness/control-env.js';

/**
 * What a person teaches, attacked as the review attacked it (spec §23,
 * §27), on managed profiles and task sessions, each with the credential an
 * attacker holds:
 * - a secret the server types while a demonstration goes on (a vault
 *   secret, a one-time code, into plain fields of a page that keeps a
 *   transform of what is typed) is a secret parameter in every file, answer
 *   and test, for the token and any key;
 * - a session's key cannot save its own page's steps under the operator's
 *   routine, and a routine a key saved takes no secret of the operator's
 *   to a site the operator did not name; a secret goes only to the origin
 *   its owner typed it on;
 * - a page's own script, with nobody touching the tab, adds no step.
 * The sites say what they received.
 */

const VALUE = 'Hunter2-Secret-Value';
const REVERSED = [...VALUE].reverse().join('');
const SEED = new Secret({ size: 20 });
const totp = new TOTP({ issuer: 'Bank', label: 'ada', secret: SEED, digits: 6, period: 30 });

let env: ControlEnv;
let bank: SignupSite;
let phish: SignupSite;
const base = () => `http://127.0.0.1:${env.server.control.port}`;
const asKey = (key: string) => new BrowserClient({ baseUrl: base(), token: key });

beforeAll(async () => {
  env = await startControlEnv();
  bank = await startSignupSite();
  phish = await startSignupSite();
}, 90_000);
afterAll(async () => {
  await env?.close();
  await bank?.close();
  await phish?.close();
});

async function call(path: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base()}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

/** Every file under the home, as text. */
function homeFiles(): Array<{ path: string; text: string }> {
  return readdirSync(env.home, { recursive: true, encoding: 'utf8' }).flatMap((name) => {
    const path = join(env.home, name);
    return lstatSync(path).isFile() ? [{ path, text: readFileSync(path, 'latin1') }] : [];
  });
}

/** The token's demonstration of the sign-up form on `site`: its own acts, heard as a person's would be. */
async function recordSignup(client: BrowserClient, site: SignupSite, password: string): Promise<string> {
  const tab = await client.openTab(site.url);
  await client.teach.startDemonstration({ targetId: tab.targetId });
  const shown = await client.snapshot({ targetId: tab.targetId });
  await client.act({ kind: 'type', ref: refOf(shown.text, /textbox "Full name"/), text: 'Ada Lovelace', targetId: tab.targetId });
  await client.act({ kind: 'type', ref: refOf(shown.text, /textbox "Password"/), text: password, targetId: tab.targetId });
  await client.act({ kind: 'click', ref: refOf(shown.text, /button "Create account"/), targetId: tab.targetId });
  return tab.targetId;
}

describe('a secret typed during a demonstration', () => {
  it('is a secret parameter bound to it, never its value, in every file, answer and test, for the token and any key', async () => {
    const admin = env.client('clawd');
    await admin.setSecret({ tenant: 'pin-demo', name: 'password', domains: ['127.0.0.1'], value: VALUE });
    await admin.setSecret({ tenant: 'pin-demo', name: 'otp', domains: ['127.0.0.1'], value: totp.toString(), kind: 'totp' });
    const { token: grant } = await admin.issueGrant({ tenant: 'pin-demo', domains: ['127.0.0.1'], ttl: 600, secrets: ['password', 'otp'] });
    const session = await admin.openSession({ credential_mode: 'operator', tenant: 'pin-demo', grant });
    const clean = await admin.openSession({ credential_mode: 'clean' });
    try {
      // The operator demonstrates in the session's browser, typing the vault's secret and a code into plain fields.
      const operator = env.client(session.profile);
      const tab = await operator.openTab(env.fixtures.url('transfer.html'));
      await operator.teach.startDemonstration({ targetId: tab.targetId });
      const shown = await operator.snapshot({ targetId: tab.targetId });
      await operator.act({ kind: 'type', ref: refOf(shown.text, /textbox "PIN"/), text: '{{secret:password}}', targetId: tab.targetId });
      await operator.act({ kind: 'type', ref: refOf(shown.text, /textbox "Code"/), text: '{{totp:otp}}', targetId: tab.targetId });
      await operator.act({ kind: 'click', ref: refOf(shown.text, /button "Review"/), targetId: tab.targetId });
      // The page got them, and keeps the secret reversed: a transform of it no redaction knows.
      const page = await env.server.manager.driver(session.profile).page(tab.targetId);
      expect(await page.locator('#pin').inputValue()).toBe(REVERSED);
      const code = await page.locator('#code').inputValue();
      expect(totp.validate({ token: code, window: 1 })).not.toBeNull();

      const { demonstrations } = await operator.teach.demonstrations();
      expect(demonstrations.find((demo) => demo.targetId === tab.targetId)!.steps).toEqual([
        'type into textbox "PIN" (a secret: not recorded)',
        'type into textbox "Code" (a secret: not recorded)',
        'click button "Review"',
      ]);
      const made: DemonstrationResult = await operator.teach.stopDemonstration({ targetId: tab.targetId, name: 'pin-entry' });
      expect(made.routine!.parameters).toEqual([
        { name: 'pin', kind: 'secret', description: 'textbox "PIN"', secret: 'password' },
        { name: 'code', kind: 'secret', description: 'textbox "Code"', secret: 'otp', oneTimeCode: true },
      ]);
      expect(made.script).toContain('fill(secret("password"))');

      // Not the value, nor its transform, nor the code, wherever it is read: the file, each reader's answers, the test.
      const saved = JSON.parse(readFileSync(join(env.home, 'routines/pin-entry.json'), 'utf8')) as Routine;
      expect(saved.parameters.every((param) => param.default === undefined)).toBe(true);
      for (const reader of [env.server.token, clean.key!, session.key!]) {
        const paths = [
          '/routines/pin-entry',
          '/routines/pin-entry/script',
          '/routines',
          ...(reader === clean.key ? [] : [`/demonstrations?profile=${session.profile}`]),
        ];
        for (const path of paths) {
          const read = await call(path, reader);
          expect(read.status, path).toBe(200);
          expect(JSON.stringify(read.body)).not.toMatch(new RegExp(`${VALUE}|${REVERSED}|"${code}"`));
        }
      }
      expect(JSON.stringify(made)).not.toMatch(new RegExp(`${VALUE}|${REVERSED}|"${code}"`));
      expect(
        homeFiles()
          .filter((file) => file.text.includes(VALUE) || file.text.includes(REVERSED))
          .map((file) => file.path),
      ).toEqual([]);

      // Run in the session, it types the vault's secret and a fresh code, where they were typed when shown.
      const agent = asKey(session.key!);
      const again = await agent.openTab('about:blank');
      const run = await agent.teach.runRoutine('pin-entry', { targetId: again.targetId });
      expect(run.ok).toBe(true);
      const ran = await env.server.manager.driver(session.profile).page(again.targetId);
      expect(await ran.locator('#pin').inputValue()).toBe(REVERSED);
      expect(totp.validate({ token: await ran.locator('#code').inputValue(), window: 1 })).not.toBeNull();
    } finally {
      await admin.closeSession(session.id);
      await admin.closeSession(clean.id);
    }
    // The server is still up after a session a demonstration was made in ended.
    expect((await env.client('clawd').status()).enabled).toBe(true);
  }, 120_000);
});

describe('routines have owners', () => {
  it("a session's key never saves over the operator's routine, and a key's routine takes no secret of the operator's to a site the operator did not name", async () => {
    const admin = env.client('clawd');
    // The operator's own routine, on the bank.
    await admin.teach.stopDemonstration({ targetId: await recordSignup(admin, bank, 'not recorded 1'), name: 'bank-login' });
    const operators = JSON.parse(readFileSync(join(env.home, 'routines/bank-login.json'), 'utf8')) as Routine;
    expect(operators.owner).toEqual({ by: 'operator' });

    const session = await admin.openSession({ credential_mode: 'clean' });
    const other = await admin.openSession({ credential_mode: 'clean' });
    try {
      // A key records its own phishing page and stops it as bank-login: refused, naming whose it is and a name of its own; nothing lost.
      const agent = asKey(session.key!);
      const mine = await recordSignup(agent, phish, 'whatever 1');
      const refused = await call(`/demonstrations/stop`, session.key!, { method: 'POST', body: { targetId: mine, name: 'bank-login' } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.message).toMatch(
        /^Routine "bank-login" is the operator's: a task session's key saves only routines of its own, and never replaces another's\. Save this one under a new name \(one no routine has, such as "bank-login-[0-9a-f]{8}"\); the demonstration goes on until then$/,
      );
      expect(readFileSync(join(env.home, 'routines/bank-login.json'), 'utf8')).toBe(`${JSON.stringify(operators, null, 2)}\n`);
      expect((await agent.teach.demonstrations()).demonstrations.map((demo) => demo.targetId)).toContain(mine);

      // Run by the operator, bank-login still goes to the bank, and types the password there.
      const before = { bank: bank.submissions.length, phish: phish.submissions.length };
      const run = await call('/routines/bank-login/run?profile=clawd', env.server.token, {
        method: 'POST',
        body: { params: { password: 'operators real password' } },
      });
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({ ok: true, owner: { by: 'operator' }, origins: [new URL(bank.url).origin] });
      expect(bank.submissions.slice(before.bank).map((sent) => sent.password)).toEqual(['operators real password']);
      expect(phish.submissions.length).toBe(before.phish);

      // The key saves its routine under a name of its own: it is the session's.
      const own = (await agent.teach.stopDemonstration({ targetId: mine, name: 'bank-login-2' })).routine!;
      expect(own.owner).toEqual({ by: 'session', session: session.id });
      // The key sees the operator's routines and its own; another key does not see this one.
      expect((await agent.teach.routines()).routines.map((routine) => routine.name)).toEqual(expect.arrayContaining(['bank-login', 'bank-login-2']));
      const stranger = asKey(other.key!);
      expect((await stranger.teach.routines()).routines.map((routine) => routine.name)).not.toContain('bank-login-2');
      expect((await call('/routines/bank-login-2', other.key!)).status).toBe(404);
      // A key cannot replace another key's routine either (it is not told whose it is).
      const strangerTab = await recordSignup(stranger, phish, 'whatever 2');
      const overOther = await call('/demonstrations/stop', other.key!, { method: 'POST', body: { targetId: strangerTab, name: 'bank-login-2' } });
      expect(overOther.status).toBe(409);
      expect(overOther.body.error.message).toMatch(/^Routine "bank-login-2" is another's:/);
      await stranger.teach.stopDemonstration({ targetId: strangerTab, discard: true });

      // The operator reads where it goes before anything is typed; a run with its password stops before any step, naming where.
      const shown = await call('/routines/bank-login-2', env.server.token);
      expect(shown.body).toMatchObject({ owner: { by: 'session', session: session.id }, origins: [new URL(phish.url).origin] });
      const lured = await call('/routines/bank-login-2/run?profile=clawd', env.server.token, {
        method: 'POST',
        body: { params: { password: 'operators real password' } },
      });
      expect(lured.status).toBe(409);
      expect(lured.body.error.message).toBe(
        `Routine bank-login-2 was saved by session ${session.id}, not by you: the secret password you give it would be typed on ${new URL(phish.url).origin}. If that is where it belongs, run it again naming them: "origins": ["${new URL(phish.url).origin}"]; nothing was typed`,
      );
      expect(phish.submissions.map((sent) => sent.password)).not.toContain('operators real password');
      // Named, it runs (the operator saw where it goes).
      const agreed = await call('/routines/bank-login-2/run?profile=clawd', env.server.token, {
        method: 'POST',
        body: { params: { password: 'a decoy password' }, origins: [phish.url] },
      });
      expect(agreed.body).toMatchObject({ ok: true, origins: [new URL(phish.url).origin] });
      expect(phish.submissions.at(-1)!.password).toBe('a decoy password');
    } finally {
      await admin.closeSession(session.id);
      await admin.closeSession(other.id);
    }

    // A secret goes only to the origin its owner typed it on: the bank's form moved to another origin, and the password stays.
    bank.moved = phish.url;
    try {
      const before = phish.submissions.length;
      const moved = (
        await call('/routines/bank-login/run?profile=clawd', env.server.token, { method: 'POST', body: { params: { password: 'operators real password' } } })
      ).body as RoutineRun;
      expect(moved.ok).toBe(false);
      expect(moved.failed).toMatchObject({ step: 3, what: 'type password into textbox "Password"' });
      expect(moved.failed!.error).toBe(
        `the secret password is typed only on ${new URL(bank.url).origin}, where it was typed when the routine was shown, and the tab is on ${new URL(phish.url).origin}: nothing was typed`,
      );
      expect(phish.submissions.length).toBe(before);
    } finally {
      bank.moved = undefined;
    }

    // A file from before owners is the operator's; the CLI says whose each routine is and where it acts.
    const { owner: _owner, ...legacy } = operators;
    writeFileSync(join(env.home, 'routines/old-login.json'), JSON.stringify({ ...legacy, name: 'old-login' }));
    expect((await admin.teach.routine('old-login')).owner).toEqual({ by: 'operator' });
    expect(await runCli(env, ['routines'])).toContain(`old-login: the operator's, acts on ${new URL(bank.url).origin}`);
  }, 180_000);
});

describe("a page's own script during a demonstration", () => {
  it('adds no step: a box it clicks, text it inserts into a field or an editor, a navigation it makes and goes back from', async () => {
    const admin = env.client('clawd');
    const tab = await admin.openTab(env.fixtures.url('transfer.html'));
    await admin.teach.startDemonstration({ targetId: tab.targetId });
    const page = await env.server.manager.driver('clawd').page(tab.targetId);
    // Nobody touches the tab: the page does it all.
    await page.evaluate(() => {
      (document.getElementById('agree') as HTMLInputElement).click();
      const iban = document.getElementById('iban') as HTMLInputElement;
      iban.focus();
      document.execCommand('insertText', false, 'ATTACKER-IBAN-666');
      iban.blur();
      const memo = document.getElementById('memo')!;
      memo.focus();
      document.execCommand('insertText', false, 'pay ATTACKER');
      memo.blur();
    });
    expect(await page.locator('#agree').isChecked()).toBe(true);
    expect(await page.locator('#iban').inputValue()).toBe('ATTACKER-IBAN-666');
    await page.evaluate(() => (location.href = `${location.pathname}?away`));
    await page.waitForURL(/\?away$/);
    await page.evaluate(() => history.back());
    await expect.poll(() => page.url()).toBe(env.fixtures.url('transfer.html'));

    // The person clicks into a field and leaves it without typing; the page fills it after: not the person's.
    await page.locator('#code').click();
    await page.keyboard.press('Tab');
    await page.evaluate(() => {
      const code = document.getElementById('code') as HTMLInputElement;
      code.focus();
      document.execCommand('insertText', false, '666666');
      code.blur();
    });
    // The person's own acts, after: a field typed into, an editor, a button, the address bar, back.
    await page.locator('#iban').fill('DE00 PERSON');
    await page.locator('#memo').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('for rent');
    await page.locator('#review').click();
    await admin.navigate(env.fixtures.url('transfer.html?next'), tab.targetId);
    // The person's own back, with their keys (this browser has no window to go back on them: the page does it then).
    await page.keyboard.press('Alt+ArrowLeft');
    await page.evaluate(() => history.back());
    await expect
      .poll(async () => (await admin.teach.demonstrations()).demonstrations.find((demo) => demo.targetId === tab.targetId)?.steps)
      .toEqual([
        'type into textbox "IBAN"',
        'type into textbox "Memo"',
        'click button "Review"',
        `go to ${env.fixtures.url('transfer.html?next')}`,
        `go to ${env.fixtures.url('transfer.html')}`,
      ]);
    const made = await admin.teach.stopDemonstration({ targetId: tab.targetId, name: 'transfer' });
    expect(made.routine!.parameters.map((param) => [param.name, param.default])).toEqual([
      ['iban', 'DE00 PERSON'],
      ['memo', 'for rent'],
    ]);
    expect(JSON.stringify(made)).not.toContain('ATTACKER');
  }, 60_000);
});
