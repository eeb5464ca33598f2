import type { z } from 'zod';
import type { Demonstration, DemonstrationResult, Routine } from '../api/teach-schemas.js';
import type { teachSchemas } from '../api/teach-schemas.js';
import type { DriverTab } from '../driver/driver-tab.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { type PersonStep, routineFromSteps, stepLine } from '../replay/person-steps.js';
import { routineScript } from '../replay/routine-script.js';
import type { RoutineStore } from '../routines/routine-store.js';
import type { ControlService } from './control-service.js';

/**
 * Demonstrations (spec §23): a person does a task once in a tab, with their
 * own mouse and keyboard (a shared tab of their Chrome) or through the live
 * view (any tab of a profile or task session), and it becomes a routine
 * (saved under a name, run by agents: routine-service.ts) and a Playwright
 * test. The tab's PersonWatch hears the steps; they are kept in this
 * server's memory until the person stops, and hold no password's value.
 */

/** The most steps one demonstration keeps; past this it stops taking more, and says so at the stop. */
const MAX_STEPS = 500;
/** How long a tab whose page went is looked for again (the extension attaching to it anew). */
const FOLLOW_MS = 5_000;

interface Active {
  profile: string;
  targetId: string;
  tab: DriverTab;
  since: Date;
  url: string;
  title: string;
  steps: PersonStep[];
  dropped: number;
}

export class DemonstrationService {
  private readonly active = new Map<string, Active>();

  constructor(
    private readonly control: ControlService,
    private readonly store: RoutineStore,
  ) {}

  /** `POST /demonstrations/start`: what the person does in the tab is heard from now on. */
  async start(profile: string | undefined, request: z.output<typeof teachSchemas.demonstrationStart>): Promise<Demonstration> {
    const driver = this.control.manager.driver(profile);
    const tab = await driver.tabFor(request.targetId);
    const targetId = await tab.targetId();
    const key = keyOf(driver.profile.name, targetId);
    const running = this.active.get(key);
    if (running) return describe(running);
    if (tab.person.mode === 'mark') throw new ConflictError(`A note is being written in tab ${targetId}: send it or cancel it first`);
    const active: Active = { profile: driver.profile.name, targetId, tab, since: new Date(), url: tab.page.url(), title: await tab.page.title().catch(() => ''), steps: [], dropped: 0 };
    await this.watch(active, tab);
    this.active.set(key, active);
    return describe(active);
  }

  /**
   * Hears the person in `tab` for `active`. A page object can go while its
   * tab stays (a shared tab whose debugger Chrome detached and the extension
   * attached again): the tab is then found again by its target and followed.
   * A tab that closed keeps what was heard, for the stop.
   */
  private async watch(active: Active, tab: DriverTab): Promise<void> {
    active.tab = tab;
    await tab.person.watch('demonstrate', (step) => {
      if (step.kind === 'mark') return;
      if (active.steps.length >= MAX_STEPS) active.dropped++;
      else active.steps.push(step);
    });
    tab.page.once('close', () => void this.follow(active, tab));
  }

  private async follow(active: Active, gone: DriverTab): Promise<void> {
    const driver = this.control.manager.driver(active.profile);
    for (let waited = 0; waited < FOLLOW_MS && this.active.get(keyOf(active.profile, active.targetId)) === active; waited += 250) {
      const again = await driver.tabFor(active.targetId).catch(() => undefined);
      if (again && again !== gone && !again.page.isClosed()) return this.watch(active, again).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** `GET /demonstrations`: those going on, a profile's (or one tab's). */
  list(profile: string | undefined, targetId?: string): Demonstration[] {
    const name = this.control.manager.driver(profile).profile.name;
    return [...this.active.values()].filter((active) => active.profile === name && (!targetId || active.targetId.startsWith(targetId))).map(describe);
  }

  /** The demonstration of a tab, if one goes on (the console and the extension show it). */
  of(profile: string, targetId: string): Demonstration | undefined {
    const active = this.active.get(keyOf(profile, targetId));
    return active && describe(active);
  }

  /** `POST /demonstrations/stop`: the steps as a routine (saved when named) and its Playwright test. */
  async stop(profile: string | undefined, request: z.output<typeof teachSchemas.demonstrationStop>): Promise<DemonstrationResult> {
    const active = this.find(profile, request.targetId);
    await this.stopWatching(active);
    if (request.discard) return { saved: false, notes: ['discarded: nothing was made'] };
    const name = request.name ?? draftName(active);
    const { routine, notes } = await routineFromSteps(active.steps, {
      name,
      description: request.description ?? `What a person showed on ${active.title || active.url}`,
      profile: active.profile,
      startUrl: active.url,
      title: active.title,
      now: new Date(),
    });
    if (active.dropped) notes.unshift(`${active.dropped} steps past the first ${MAX_STEPS} were not kept`);
    if (request.name) this.store.save(routine);
    const written = routineScript(routine);
    return { routine, saved: request.name !== undefined, script: written.script, notes: [...notes, ...written.notes] };
  }

  // ---- routines ---------------------------------------------------------------

  routines(): Routine[] {
    return this.store.list();
  }

  routine(name: string): Routine {
    return this.store.get(name);
  }

  deleteRoutine(name: string): Routine {
    return this.store.delete(name);
  }

  /** A saved routine as a Playwright test, with its defaults (a secret from SECRET_<NAME> when it runs). */
  script(name: string): { script: string; notes: string[] } {
    return routineScript(this.store.get(name));
  }

  private find(profile: string | undefined, targetId: string | undefined): Active {
    const name = this.control.manager.driver(profile).profile.name;
    const matches = [...this.active.values()].filter((active) => active.profile === name && (!targetId || active.targetId.startsWith(targetId)));
    if (matches.length === 1) return matches[0];
    if (!matches.length) throw new NotFoundError(`No demonstration is going on in ${targetId ? `tab ${JSON.stringify(targetId)} of ` : ''}profile ${name}: start one first (POST /demonstrations/start)`);
    throw new ConflictError(`${matches.length} demonstrations go on in profile ${name}: name the tab (targetId)`);
  }

  private async stopWatching(active: Active): Promise<void> {
    this.active.delete(keyOf(active.profile, active.targetId));
    await active.tab.person.stop().catch(() => {});
  }
}

const keyOf = (profile: string, targetId: string) => `${profile}\n${targetId}`;

function describe(active: Active): Demonstration {
  return { targetId: active.targetId, profile: active.profile, since: active.since.toISOString(), url: active.url, steps: active.steps.map(stepLine) };
}

/** A name for a routine nobody named (not saved): its page's title as words. */
function draftName(active: Active): string {
  const words = (active.title || new URL(active.url).hostname || 'routine').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  return /^[a-z0-9]/.test(words) ? words : 'routine';
}
