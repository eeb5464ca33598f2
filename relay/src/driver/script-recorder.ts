import type { Action } from '../api/schemas.js';
import { playwrightScript, type WrittenScript } from '../replay/playwright-script.js';
import { type ElementLocator, refsOf, type ScriptStep } from '../replay/script-steps.js';
import { chooseLocator } from '../replay/locator-choice.js';
import { playwrightLocator } from './acts/element-locators.js';
import { factsOf, frameOfRef } from '../snapshot/refs.js';
import { describeRef } from '../snapshot/snapshot-engine.js';
import type { DriverTab } from './driver-tab.js';

/**
 * A profile's steps, kept in memory to be exported as a Playwright test
 * (`GET /script`): tabs opened and closed, navigations, acts. For each ref an
 * act names, a locator is chosen *before* it runs, while the ref still means
 * what the agent saw, as replay/locator-choice.ts chooses (role and name,
 * label, test id, text, a CSS path last), each counted by Playwright. The steps live with the
 * profile (a task session's go with it), never on disk, since they hold what
 * was typed; a secret stays a placeholder.
 */

/** The most steps kept per profile; past this the oldest go (the script says so). */
const MAX_STEPS = 2_000;

export class ScriptRecorder {
  private steps: ScriptStep[] = [];
  private dropped = 0;

  add(step: ScriptStep): void {
    this.steps.push(step);
    if (this.steps.length > MAX_STEPS) {
      this.steps.shift();
      this.dropped++;
    }
  }

  /** Before an act runs: a locator for each ref it names (those it could not find are left out). */
  async elementsOf(tab: DriverTab, action: Action): Promise<Record<string, ElementLocator>> {
    const elements: Record<string, ElementLocator> = {};
    for (const ref of refsOf(action)) {
      const found = await locatorFor(tab, ref).catch(() => undefined);
      if (found) elements[ref] = found;
    }
    return elements;
  }

  /** The steps of one tab (or all of them) as a Playwright test. */
  script(targetId: string | undefined, title: string, header: string): WrittenScript & { steps: number } {
    const steps = targetId ? this.steps.filter((step) => step.tab === targetId) : this.steps;
    const written = playwrightScript(steps, title, header);
    if (this.dropped) written.notes.unshift(`the oldest ${this.dropped} steps were dropped (a profile keeps its last ${MAX_STEPS})`);
    return { ...written, steps: steps.length };
  }
}

async function locatorFor(tab: DriverTab, ref: string): Promise<ElementLocator | undefined> {
  const frame = frameOfRef(tab.snapshots, ref);
  if (!frame) return undefined;
  const prefix = /^(f\d+)/.exec(ref)?.[1];
  if (prefix) return { by: 'css', frame: prefix };
  const entry = factsOf(tab.snapshots, ref);
  const described = await describeRef(frame, ref);
  if (!described) return undefined;
  // Counted by Playwright now, before the act, while the ref means what the agent saw.
  return chooseLocator(
    { role: entry?.role, name: entry?.name, label: described.label, testId: described.testId, text: described.text, css: described.css },
    (locator) => playwrightLocator(tab.page, locator).count(),
  );
}
