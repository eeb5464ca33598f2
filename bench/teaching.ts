/**
 * Teaching by showing (spec §23), in figures:
 * - a person's step: from a click (Playwright's, in a plain Chromium) to the
 *   step heard by clawd's watch, on pages of about 600, 6,000 and 30,000
 *   elements, beside the same click with nobody listening: the watch walks
 *   the page to describe the element while the click is dispatched;
 * - a routine's run (the seven steps of a sign-up form, through a real
 *   server on a managed profile), beside an agent doing the same acts by ref
 *   after one snapshot, with no model in either.
 * Run with `npm run bench:teaching`.
 */
import { chromium } from 'playwright-core';
import { personWatchSource } from '../relay/src/page-runtime/runtime-source.js';
import { chromiumPath } from '../tests/harness/chromium.js';
import { startSignupSite } from '../tests/harness/signup-site.js';
import { startControlEnv } from '../tests/harness/control-env.js';
import type { Routine, RoutineRun } from '../relay/src/api/teach-schemas.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const max = (values: number[]) => Math.max(...values);

export interface StepFigure {
  elements: number;
  clickAlone: number;
  heardP50: number;
  heardMax: number;
}

export async function measurePersonSteps(): Promise<StepFigure[]> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  const figures: StepFigure[] = [];
  try {
    for (const rows of [100, 1000, 5000]) {
      const page = await browser.newPage();
      await page.setContent(
        `<h1>Orders</h1><table>${Array.from({ length: rows }, (_, i) => `<tr><td>Order ${i}</td><td><a href="#o${i}">Open</a></td><td><button>Ship ${i}</button></td></tr>`).join('')}</table><button id=go>Create account</button>`,
      );
      const target = (i: number) => (i % 2 ? '#go' : `tr:nth-child(${1 + ((i * 37) % rows)}) a`);
      const alone: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const started = performance.now();
        await page.click(target(i));
        alone.push(performance.now() - started);
      }
      const session = await page.context().newCDPSession(page);
      const heard: number[] = [];
      let clicked = 0;
      session.on('Runtime.bindingCalled', () => heard.push(performance.now() - clicked));
      await session.send('Runtime.enable');
      await session.send('Runtime.addBinding', { name: 'heard', executionContextName: 'bench-person' });
      await session.send('Page.addScriptToEvaluateOnNewDocument', {
        source: personWatchSource('heard', 'demonstrate'),
        worldName: 'bench-person',
        runImmediately: true,
      });
      await page.waitForTimeout(3_000); // the first walk, made once the page is there
      for (let i = 0; i < ROUNDS; i++) {
        clicked = performance.now();
        await page.click(target(i));
        await page.waitForTimeout(50);
      }
      await page.waitForTimeout(500);
      figures.push({
        elements: await page.evaluate(() => document.getElementsByTagName('*').length),
        clickAlone: p50(alone),
        heardP50: p50(heard),
        heardMax: max(heard),
      });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return figures;
}

export interface RunFigure {
  routineP50: number;
  agentP50: number;
}

export async function measureRoutineRuns(): Promise<RunFigure> {
  const site = await startSignupSite();
  const env = await startControlEnv();
  try {
    const field = (name: string) => ({ by: 'role' as const, role: 'textbox', name, exact: true });
    const routine: Routine = {
      name: 'bench-sign-up',
      description: 'sign up',
      createdAt: new Date().toISOString(),
      recordedOn: { profile: 'clawd', url: site.url, title: 'Sign up' },
      owner: { by: 'operator' },
      parameters: [
        { name: 'full_name', kind: 'text', description: 'textbox "Full name"', default: 'Ada' },
        { name: 'email', kind: 'text', description: 'textbox "Email"', default: 'ada@example.com' },
        { name: 'password', kind: 'secret', description: 'textbox "Password"', secret: 'PASSWORD' },
        { name: 'plan', kind: 'choice', description: 'combobox "Plan"', default: 'Pro' },
        { name: 'newsletter', kind: 'toggle', description: 'checkbox', default: true },
      ],
      steps: [
        { kind: 'goto', url: site.url },
        { kind: 'type', element: field('Full name'), what: 'textbox "Full name"', param: 'full_name' },
        { kind: 'type', element: field('Email'), what: 'textbox "Email"', param: 'email' },
        { kind: 'type', element: field('Password'), what: 'textbox "Password"', param: 'password' },
        { kind: 'select', element: { by: 'role', role: 'combobox', name: 'Plan', exact: true }, what: 'combobox "Plan"', param: 'plan' },
        { kind: 'check', element: { by: 'role', role: 'checkbox', name: 'Send me the newsletter', exact: true }, what: 'checkbox', param: 'newsletter' },
        { kind: 'click', element: { by: 'role', role: 'button', name: 'Create account', exact: true }, what: 'button "Create account"' },
      ],
    };
    const { FileRoutineStore } = await import('../relay/src/routines/routine-files.js');
    await new FileRoutineStore(`${env.home}/routines`).save(routine);
    const client = env.client('clawd');
    const { targetId } = await client.openTab('about:blank');
    const routineTimes: number[] = [];
    const agentTimes: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      let started = performance.now();
      const run = (await client.teach.runRoutine('bench-sign-up', { targetId, params: { password: 'a long enough one' } })) as RoutineRun;
      if (!run.ok) throw new Error(`the routine failed: ${JSON.stringify(run.failed)}`);
      routineTimes.push(performance.now() - started);

      // An agent with no model: the page, one snapshot, then the same acts by ref.
      started = performance.now();
      await client.navigate(site.url, targetId);
      const { text } = await client.snapshot({ targetId, interactive: true });
      const ref = (line: string) =>
        new RegExp(`- ${line}[^\\n]*\\[ref=(e\\d+)\\]`).exec(text)?.[1] ??
        (() => {
          throw new Error(`no ${line} in ${text}`);
        })();
      await client.act({ kind: 'type', targetId, ref: ref('textbox "Full name"'), text: 'Ada' });
      await client.act({ kind: 'type', targetId, ref: ref('textbox "Email"'), text: 'ada@example.com' });
      await client.act({ kind: 'type', targetId, ref: ref('textbox "Password"'), text: 'another long one' });
      await client.act({ kind: 'select', targetId, ref: ref('combobox "Plan"'), values: ['Pro'] });
      await client.act({ kind: 'fill', targetId, fields: [{ ref: ref('checkbox "Send me the newsletter"'), value: true }] });
      await client.act({ kind: 'click', targetId, ref: ref('button "Create account"') });
      agentTimes.push(performance.now() - started);
    }
    return { routineP50: p50(routineTimes), agentP50: p50(agentTimes) };
  } finally {
    await env.close();
    await site.close();
  }
}

export function reportTeaching(steps: StepFigure[], runs: RunFigure): void {
  console.log("\nteaching: a person's click → the step heard (the watch describes the element as it is dispatched)");
  for (const step of steps)
    console.log(
      `  ${String(step.elements).padStart(6)} elements: p50 ${step.heardP50.toFixed(0)} ms, max ${step.heardMax.toFixed(0)} ms (a Playwright click with nobody listening: p50 ${step.clickAlone.toFixed(0)} ms)`,
    );
  console.log(
    `teaching: a routine of 7 steps, p50 ${runs.routineP50.toFixed(0)} ms; the same acts by ref after one snapshot (no model): ${runs.agentP50.toFixed(0)} ms`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const steps = await measurePersonSteps();
  const runs = await measureRoutineRuns();
  reportTeaching(steps, runs);
}
