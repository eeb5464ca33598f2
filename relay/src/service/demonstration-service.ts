import type { z } from 'zod';
import { withFence } from '../api/page-content.js';
import type { RoutineSummary } from '../api/teach-api.js';
import type { Demonstration, DemonstrationResult, Routine, RoutineAnswer } from '../api/teach-schemas.js';
import type { teachSchemas } from '../api/teach-schemas.js';
import type { DriverTab } from '../driver/driver-tab.js';
import type { BrowserSecrets } from '../driver/secrets/browser-secrets.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import { type PersonStep, routineFromSteps, stepLine } from '../replay/person-steps.js';
import { routineScript } from '../replay/routine-script.js';
import { nameOfOwn, OPERATOR, ownerName, type RoutineCaller, routineOrigins, routineSummary, sameSpace, visibleTo } from '../routines/routine-owners.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { noRoutine, type RoutineStore } from '../routines/routine-store.js';
import type { KeptDemonstration } from '../demonstrations/demonstration-ledger.js';
import type { KeptDemonstrations } from './kept-demonstrations.js';

/**
 * Demonstrations (spec §23): a person does a task once in a tab, with their
 * own mouse and keyboard (a shared tab of their Chrome) or through the live
 * view (any tab of a profile or task session), and it becomes a routine
 * (saved under a name, run by agents: routine-service.ts) and a Playwright
 * test. The tab's PersonWatch hears the steps; they are kept in this
 * server's memory until the person stops, and hold no password's value nor
 * a secret's the server typed (the watch never reads one; and a step that
 * still holds a value typed as a secret into this browser keeps none of it).
 * Routines have owners (routines/routine-owners.ts): who saves one, and who
 * may see, replace and delete it. In a fleet, what a task session's
 * demonstration heard is written to the store as it is heard
 * (kept-demonstrations.ts): if this server is lost, the server that takes
 * the session over lists it as heard no more, and its stop makes the
 * routine of the steps kept.
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
  /** Steps left out for holding a secret typed into this browser (the second wall). */
  withheld: number;
  /** Who started it: theirs (or the operator's) to stop. */
  startedBy: RoutineCaller;
}

export class DemonstrationService {
  private readonly active = new Map<string, Active>();

  constructor(
    /** The drivers whose tabs are watched. */
    private readonly drivers: Pick<ProfileManager, 'driver'>,
    private readonly store: RoutineStore,
    /** What task sessions' demonstrations heard, kept for the fleet. */
    private readonly kept: KeptDemonstrations,
  ) {}

  /** `POST /demonstrations/start`: what the person does in the tab is heard from now on. */
  async start(
    profile: string | undefined,
    request: z.output<typeof teachSchemas.demonstrationStart>,
    caller: RoutineCaller = OPERATOR,
  ): Promise<Demonstration> {
    const driver = this.drivers.driver(profile);
    const tab = await driver.tabFor(request.targetId);
    const targetId = await tab.targetId();
    const key = keyOf(driver.profile.name, targetId);
    const running = this.active.get(key);
    if (running) return describe(running);
    if (tab.person.mode === 'mark') throw new ConflictError(`A note is being written in tab ${targetId}: send it or cancel it first`);
    // What a lost server heard in this tab is not written over: it is stopped (made a routine) or discarded first.
    if ((await this.kept.unheard(driver.profile.name, () => false)).some((kept) => kept.targetId === targetId))
      throw new ConflictError(
        `The demonstration in tab ${targetId} was heard by a server that was lost, and its steps are kept: stop it (POST /demonstrations/stop, with a name to save them) or discard it, then start again`,
      );
    const active: Active = {
      profile: driver.profile.name,
      targetId,
      tab,
      since: new Date(),
      url: tab.page.url(),
      title: await tab.page.title().catch(() => ''),
      steps: [],
      dropped: 0,
      withheld: 0,
      startedBy: caller,
    };
    await this.watch(active, tab);
    this.active.set(key, active);
    this.heard(active);
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
    await tab.person.watch('demonstrate', (heard) => {
      if (heard.kind === 'mark') return;
      const step = withoutHeldSecrets(heard, tab.secrets);
      if (!step) active.withheld++;
      else if (active.steps.length >= MAX_STEPS) active.dropped++;
      else active.steps.push(step);
      if (this.active.get(keyOf(active.profile, active.targetId)) === active) this.heard(active);
    });
    // A tab whose profile goes (a task session ending) is not followed: nothing is left to look in.
    tab.page.once('close', () => void this.follow(active, tab).catch(() => {}));
  }

  private async follow(active: Active, gone: DriverTab): Promise<void> {
    const going = () => this.active.get(keyOf(active.profile, active.targetId)) === active;
    if (!going()) return;
    const driver = this.drivers.driver(active.profile);
    for (let waited = 0; waited < FOLLOW_MS && going(); waited += 250) {
      const again = await driver.tabFor(active.targetId).catch(() => undefined);
      if (again && again !== gone && !again.page.isClosed()) return this.watch(active, again).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** `GET /demonstrations`: those going on, a profile's (or one tab's); their steps name the page's elements, so the answer is fenced. */
  async list(profile: string | undefined, targetId?: string): Promise<{ demonstrations: Demonstration[]; fence: string }> {
    const name = this.drivers.driver(profile).profile.name;
    const here = [...this.active.values()].filter((active) => active.profile === name && (!targetId || active.targetId.startsWith(targetId))).map(describe);
    // Those the fleet kept that no server hears now; a store that does not answer leaves this server's own.
    const unheard = await this.kept.unheard(name, (tab) => this.active.has(keyOf(name, tab))).catch(() => []);
    return withFence({ demonstrations: [...here, ...unheard.filter((kept) => !targetId || kept.targetId.startsWith(targetId)).map(describeUnheard)] });
  }

  /** The demonstration of a tab, if one goes on (the console and the extension show it). */
  of(profile: string, targetId: string): Demonstration | undefined {
    const active = this.active.get(keyOf(profile, targetId));
    return active && describe(active);
  }

  /** `POST /demonstrations/stop`: the steps as a routine (saved when named) and its Playwright test. */
  /**
   * `POST /demonstrations/stop`: the steps as a routine (saved when named) and its Playwright test. A key stops
   * only a demonstration it started; a name another's routine has is a 409 before anything stops, so the
   * demonstration goes on and a new name saves it.
   */
  async stop(
    profile: string | undefined,
    request: z.output<typeof teachSchemas.demonstrationStop>,
    caller: RoutineCaller = OPERATOR,
  ): Promise<DemonstrationResult> {
    const active = await this.find(profile, request.targetId);
    if (caller.by !== 'operator' && !sameSpace(active.startedBy, caller))
      throw new ConflictError(`The demonstration in tab ${active.targetId} was started by ${ownerName(active.startedBy, caller)}: it is theirs to stop`);
    if (request.name && !request.discard) await this.mayReplace(request.name, caller);
    await this.stopWatching(active);
    if (request.discard) return { saved: false, notes: ['discarded: nothing was made'] };
    const name = request.name ?? draftName(active);
    const { routine, notes } = await routineFromSteps(active.steps, {
      name,
      owner: caller,
      description: request.description ?? `What a person showed on ${active.title || active.url}`,
      profile: active.profile,
      startUrl: active.url,
      title: active.title,
      now: new Date(),
    });
    if (active.dropped) notes.unshift(`${active.dropped} steps past the first ${MAX_STEPS} were not kept`);
    if (active.withheld) notes.unshift(`${active.withheld} steps held a secret typed into this browser (in their element or address) and were left out`);
    if (request.name) {
      await this.mayReplace(name, caller);
      await this.store.save(routine);
    }
    const written = routineScript(routine);
    return withFence({ routine, saved: request.name !== undefined, script: written.script, notes: [...notes, ...written.notes] });
  }

  /** A save replaces only the caller's own routine: another's name is a 409 that says whose it is and a name to use. */
  private async mayReplace(name: string, caller: RoutineCaller): Promise<void> {
    const existing = await this.store.find(name);
    if (!existing || sameSpace(existing.owner, caller)) return;
    const visible = visibleTo(existing, caller);
    const names = new Set((await this.store.list()).map((routine) => routine.name));
    const free = nameOfOwn(name, caller, (candidate) => names.has(candidate));
    const whose = `is ${visible ? ownerName(existing.owner, caller) : 'another'}'s`;
    const who = caller.by === 'operator' ? 'the operator' : "a task session's key";
    const way = caller.by === 'operator' && visible ? ` Delete it first (DELETE /routines/${name}) to replace it, or save` : ' Save';
    throw new ConflictError(
      `Routine ${JSON.stringify(name)} ${whose}: ${who} saves only routines of its own, and never replaces another's.${way} this one under a new name (one no routine has, such as ${JSON.stringify(free)}); the demonstration goes on until then`,
      {
        routine: name,
        owner: visible ? ownerName(existing.owner, caller) : 'another',
        free,
      },
    );
  }

  // ---- routines ---------------------------------------------------------------

  /** The routines the caller may see: the token all; a session's key the operator's and its own space's. */
  async routines(caller: RoutineCaller = OPERATOR): Promise<{ routines: RoutineSummary[]; fence: string }> {
    return withFence({ routines: (await this.store.list()).filter((routine) => visibleTo(routine, caller)).map(routineSummary) });
  }

  /** One routine, with where its steps go; another space's is not there for a key (a 404, as for a name none has). */
  async routine(name: string, caller: RoutineCaller = OPERATOR): Promise<RoutineAnswer> {
    const routine = await this.visible(name, caller);
    return withFence({ ...routine, origins: routineOrigins(routine) });
  }

  async deleteRoutine(name: string, caller: RoutineCaller = OPERATOR): Promise<{ deleted: Routine; fence: string }> {
    const routine = await this.visible(name, caller);
    if (caller.by !== 'operator' && !sameSpace(routine.owner, caller))
      throw new ForbiddenError(`Routine ${JSON.stringify(name)} is ${ownerName(routine.owner, caller)}'s: a task session's key deletes only its own`);
    return withFence({ deleted: await this.store.delete(name) });
  }

  /** A saved routine as a Playwright test, with its defaults (a secret from SECRET_<NAME> when it runs). */
  async script(name: string, caller: RoutineCaller = OPERATOR): Promise<{ script: string; notes: string[]; fence: string }> {
    return withFence(routineScript(await this.visible(name, caller)));
  }

  /** The routine named, when the caller may see it; a 404 the same as for a name no routine has, when not. */
  async visible(name: string, caller: RoutineCaller): Promise<Routine> {
    const routine = await this.store.find(name);
    if (!routine || !visibleTo(routine, caller)) throw noRoutine(name);
    return routine;
  }

  /** The demonstration a stop means: one this server hears, or one the fleet kept that no server hears now. */
  private async find(profile: string | undefined, targetId: string | undefined): Promise<Active | KeptDemonstration> {
    const name = this.drivers.driver(profile).profile.name;
    const mine = (active: { profile: string; targetId: string }) => active.profile === name && (!targetId || active.targetId.startsWith(targetId));
    const here: Array<Active | KeptDemonstration> = [...this.active.values()].filter(mine);
    const matches = here.length ? here : (await this.kept.unheard(name, (tab) => this.active.has(keyOf(name, tab)))).filter(mine);
    if (matches.length === 1) return matches[0];
    if (!matches.length)
      throw new NotFoundError(
        `No demonstration is going on in ${targetId ? `tab ${JSON.stringify(targetId)} of ` : ''}profile ${name}: start one first (POST /demonstrations/start)`,
      );
    throw new ConflictError(`${matches.length} demonstrations go on in profile ${name}: name the tab (targetId)`);
  }

  private async stopWatching(active: Active | KeptDemonstration): Promise<void> {
    if ('tab' in active) {
      this.active.delete(keyOf(active.profile, active.targetId));
      await active.tab.person.stop().catch(() => {});
    }
    await this.kept.ended(active.profile, active.targetId);
  }

  private heard(active: Active): void {
    const { profile, targetId, url, title, startedBy } = active;
    // Read when written: the counts and steps as they are by then.
    this.kept.heard(profile, targetId, () => ({
      profile,
      targetId,
      url,
      title,
      startedBy,
      since: active.since.toISOString(),
      dropped: active.dropped,
      withheld: active.withheld,
      steps: [...active.steps],
    }));
  }
}

const keyOf = (profile: string, targetId: string) => `${profile}\n${targetId}`;

function describe(active: Active): Demonstration {
  return {
    targetId: active.targetId,
    profile: active.profile,
    since: active.since.toISOString(),
    url: active.url,
    steps: active.steps.map(stepLine),
    startedBy: active.startedBy,
  };
}

/** One the fleet kept that no server hears now: said so, with what a stop does. */
function describeUnheard(kept: KeptDemonstration): Demonstration {
  return {
    targetId: kept.targetId,
    profile: kept.profile,
    since: kept.since,
    url: kept.url,
    steps: kept.steps.map(stepLine),
    startedBy: kept.startedBy,
    unheard: `Server ${kept.server}, which heard it, was lost: nothing you do in the tab is heard now. Its ${kept.steps.length} steps are kept: stop it to make them a routine, or discard it and start again`,
  };
}

/**
 * The second wall, behind the watch's own (which never reads a secret's field): a step that holds a value
 * typed as a secret into this browser, in any form redaction knows, keeps none of it. A typed value that
 * holds one becomes a secret's typing, without it; an element or an address that holds one leaves the step out.
 */
function withoutHeldSecrets(step: PersonStep, secrets: BrowserSecrets): PersonStep | undefined {
  if (!secrets.holding) return step;
  const { value, ...rest } = step as PersonStep & { value?: string };
  if (JSON.stringify(secrets.redactDeep(rest)) !== JSON.stringify(rest)) return undefined;
  if (step.kind === 'type' && value !== undefined && secrets.redact(value) !== value) return { ...(rest as Omit<typeof step, 'value'>), secret: true };
  return step;
}

/** A name for a routine nobody named (not saved): its page's title as words. */
function draftName(active: { title: string; url: string }): string {
  const words = (active.title || new URL(active.url).hostname || 'routine')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return /^[a-z0-9]/.test(words) ? words : 'routine';
}
