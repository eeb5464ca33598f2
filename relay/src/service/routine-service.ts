import type { z } from 'zod';
import { withFence } from '../api/page-content.js';
import type { Action } from '../api/schemas.js';
import type { Routine, RoutineParameter, RoutineRun, RoutineStep, teachSchemas } from '../api/teach-schemas.js';
import { originOf } from '../api/web-address.js';
import { refForLocator } from '../driver/acts/locator-refs.js';
import type { SecretOpener } from '../driver/secrets/secret-typing.js';
import { BadRequestError, ConflictError, ForbiddenError } from '../errors.js';
import { ownerName, type RoutineCaller, routineOrigins, sameSpace } from '../routines/routine-owners.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import type { ControlService } from './control-service.js';
import type { Operations } from './operation-runner.js';
import type { SessionSecrets } from './act-performer.js';

/** What a routine's run needs: the control service's own acts (guardrails, confirmations), operations, drivers, and the secrets a session lends. */
export interface RoutinePorts {
  browser: Pick<ControlService, 'act' | 'navigate' | 'fileChooser'>;
  operations: Operations;
  drivers: Pick<ProfileManager, 'driver'>;
  secrets: Pick<SessionSecrets, 'secretOpener'>;
}

/**
 * Running a routine by name (spec §23) on any profile or task session: each
 * step is an act through the control service's own path (guardrails, the
 * URL policy, the action log, films, confirmations of consequential acts),
 * its element found by the routine's locator on the page as it is, and the
 * run stops at the first step that fails, saying which and why. What it may
 * reach is what the profile running it may reach. A secret it is given is
 * typed as the server types secrets: never in the log, the agent's script
 * or an answer; and only on the origin its owner typed it on when the
 * routine was shown. A run says where its steps go (`origins`); a routine
 * saved by another's key types a secret's value only on origins the caller
 * named for it, so no key's routine takes the operator's password elsewhere
 * unseen (routines/routine-owners.ts).
 */

/** How long a step waits for its element to be there (a page still rendering after the step before). */
const ELEMENT_WAIT_MS = 10_000;

type ParamValue = string | boolean | string[];

export class RoutineService {
  constructor(
    private readonly ports: RoutinePorts,
    /** The routine of a name, as the caller may see it (a 404 otherwise: demonstration-service.ts). */
    private readonly routines: { visible(name: string, caller: RoutineCaller): Promise<Routine> },
  ) {}

  /** `POST /routines/{name}/run`. The parameters, and where a secret would go, are checked before any step runs. */
  async run(
    profile: string | undefined,
    name: string,
    request: z.output<typeof teachSchemas.routineRun>,
    signal: AbortSignal | undefined,
    caller: RoutineCaller,
  ): Promise<RoutineRun> {
    const routine = await this.routines.visible(name, caller);
    // A task session whose grant lends secrets types the vault's for a secret the run does not give.
    const lends = this.ports.secrets.secretOpener(this.ports.drivers.driver(profile).profile.name) !== undefined;
    const values = bind(routine, request.params, lends);
    const origins = routineOrigins(routine);
    agreedWhereSecretsGo(routine, values, request.origins, caller);
    const said = { owner: routine.owner, origins };
    return withFence(
      await this.ports.operations.operation(profile, { kind: 'routine', targetId: request.targetId }, signal, async (driver, bounded): Promise<RoutineRun> => {
        const secrets = runSecrets(routine, values, this.ports.secrets.secretOpener(driver.profile.name));
        const steps: RoutineRun['steps'] = [];
        let targetId = request.targetId;
        let url: string | undefined;
        for (const [index, step] of routine.steps.entries()) {
          const what = describeStep(step);
          try {
            if (step.kind === 'goto') {
              const tab = await this.ports.browser.navigate(driver.profile.name, step.url, targetId, bounded);
              targetId = tab.targetId;
              url = tab.url;
              steps.push({ step: index + 1, what, outcome: 'ok', url });
              continue;
            }
            const tab = await driver.tabFor(targetId);
            targetId = await tab.targetId();
            let action: Action;
            if (step.kind === 'press') action = { kind: 'press', key: step.key, targetId };
            else {
              const found = await refForLocator(tab, step.element, { waitMs: ELEMENT_WAIT_MS });
              if ('problem' in found) throw new Error(found.problem);
              if (step.kind === 'upload') {
                const paths = values[step.param];
                await this.ports.browser.fileChooser(
                  driver.profile.name,
                  { targetId, inputRef: found.ref, paths: Array.isArray(paths) ? paths : [String(paths)] },
                  bounded,
                );
                steps.push({ step: index + 1, what, outcome: 'ok', url: tab.page.url() });
                continue;
              }
              if (step.kind === 'type') typedWhereShown(routine, step, found.url);
              action = actionOf(step, found.ref, targetId, values, routine);
            }
            const result = await this.ports.browser.act(driver.profile.name, action, bounded, { secrets });
            url = result.url;
            // A step that took the tab elsewhere changed the page, as much as one that changed it in place.
            const changed = result.navigated || result.url === undefined ? true : result.changed;
            steps.push({ step: index + 1, what, outcome: 'ok', ...(changed !== undefined ? { changed } : {}), ...(url ? { url } : {}) });
          } catch (error) {
            if (bounded.aborted) throw error;
            const message = (error as Error).message.split('\n')[0];
            const at = await driver.tabFor(targetId).then(
              (tab) => tab.page.url(),
              () => url,
            );
            steps.push({ step: index + 1, what, outcome: 'failed', error: message, ...(at ? { url: at } : {}) });
            return {
              routine: routine.name,
              targetId,
              ok: false,
              steps,
              failed: { step: index + 1, what, error: message, ...(at ? { url: at } : {}) },
              ...(at ? { url: at } : {}),
              ...said,
            };
          }
        }
        return { routine: routine.name, targetId, ok: true, steps, ...(url ? { url } : {}), ...said };
      }),
    );
  }
}

/**
 * A routine saved by another's key (the operator running a session's) types a secret's value the caller gives
 * only on origins the caller named for it: the 409 says where before anything is typed. A vault secret given as
 * `{{secret:NAME}}` is bound to its own domains already; the operator's routines are the operator's own.
 */
function agreedWhereSecretsGo(routine: Routine, values: Record<string, ParamValue>, agreed: string[] | undefined, caller: RoutineCaller): void {
  if (routine.owner.by === 'operator' || sameSpace(routine.owner, caller)) return;
  const given = routine.parameters.filter((param) => param.kind === 'secret' && !isPlaceholder(String(values[param.name])));
  if (!given.length) return;
  const where = secretOrigins(
    routine,
    given.map((param) => param.name),
  );
  const named = new Set((agreed ?? []).map((origin) => originOf(origin) ?? origin));
  if (where.length && where.every((origin) => named.has(origin))) return;
  throw new ConflictError(
    `Routine ${routine.name} was saved by ${ownerName(routine.owner, caller)}, not by you: the secret ${given.map((param) => param.name).join(', ')} you give it would be typed on ${where.join(', ') || 'pages it did not record'}. If that is where it belongs, run it again naming them: "origins": ${JSON.stringify(where)}; nothing was typed`,
    { routine: routine.name, origins: where.join(' ') },
  );
}

/** Where a routine types these secret parameters: the origin each was typed on when shown (a routine from before that: where it was shown). */
function secretOrigins(routine: Routine, params: string[]): string[] {
  const typed = routine.steps.flatMap((step) => (step.kind === 'type' && params.includes(step.param) ? [step.origin ?? originOf(routine.recordedOn.url)] : []));
  return [...new Set(typed.filter((origin): origin is string => origin !== undefined))];
}

/** A secret's step types only on the origin its owner typed it on (its host alone would let another port of it in). */
function typedWhereShown(routine: Routine, step: Extract<RoutineStep, { kind: 'type' }>, url: string): void {
  const param = routine.parameters.find((candidate) => candidate.name === step.param);
  if (param?.kind !== 'secret' || step.origin === undefined) return;
  const here = originOf(url);
  if (here !== step.origin)
    throw new ForbiddenError(
      `the secret ${param.name} is typed only on ${step.origin}, where it was typed when the routine was shown, and the tab is on ${here ?? 'a page without an origin'}: nothing was typed`,
    );
}

/**
 * The run's values: defaults for what was left out (a secret: the vault's it names, where the session's grant
 * lends secrets); unknown names, wrong kinds and what is still missing are a 400 naming them.
 */
function bind(routine: Routine, given: Record<string, ParamValue>, lends: boolean): Record<string, ParamValue> {
  const unknown = Object.keys(given).filter((name) => !routine.parameters.some((param) => param.name === name));
  if (unknown.length)
    throw new BadRequestError(
      `params: routine ${routine.name} has no parameter ${unknown.map((name) => JSON.stringify(name)).join(', ')}; it has ${routine.parameters.map((param) => param.name).join(', ') || 'none'}`,
    );
  const values: Record<string, ParamValue> = {};
  for (const param of routine.parameters) {
    const value =
      given[param.name] ??
      param.default ??
      (param.kind === 'secret' && lends ? `{{${param.oneTimeCode ? 'totp' : 'secret'}:${param.secret ?? param.name.toUpperCase()}}}` : undefined);
    if (value === undefined) {
      const how =
        param.kind === 'secret'
          ? `a secret that was never recorded: give its value, or {{${param.oneTimeCode ? 'totp' : 'secret'}:${param.secret}}} in a task session whose grant names it`
          : 'files: paths in the upload folders';
      throw new BadRequestError(`params.${param.name}: routine ${routine.name} needs it, ${how}`);
    }
    values[param.name] = checkKind(routine, param, value);
    if (param.kind === 'secret' && !isPlaceholder(String(value)) && String(value).length < MIN_SECRET)
      throw new BadRequestError(
        `params.${param.name}: a secret is at least ${MIN_SECRET} characters (the browser then hides it from every answer, wherever it stands: a shorter one would hide pieces of everything)`,
      );
  }
  return values;
}

/** The shortest secret a run may give: every answer of the browser is redacted of it. */
const MIN_SECRET = 6;

const isPlaceholder = (value: string) => /^\{\{(secret|totp):[A-Za-z0-9_.-]{1,64}\}\}$/.test(value);

function checkKind(routine: Routine, param: RoutineParameter, value: ParamValue): ParamValue {
  const wrong = (what: string) => new BadRequestError(`params.${param.name}: routine ${routine.name} wants ${what}`);
  switch (param.kind) {
    case 'toggle':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      throw wrong('true or false');
    case 'files':
      if (typeof value === 'boolean') throw wrong('a path or a list of paths');
      return Array.isArray(value) ? value : [value];
    case 'choice':
      if (typeof value === 'boolean') throw wrong("an option's label (or a list of them)");
      return value;
    default:
      if (typeof value !== 'string') throw wrong('text');
      return value;
  }
}

/** A routine's own secrets (given in the run) under names no vault secret has; the session's as they are. */
const RUN_SECRET = 'routine.';

function runSecrets(routine: Routine, values: Record<string, ParamValue>, session: SecretOpener | undefined): SecretOpener {
  // A secret given to the run is typed on the sites its steps typed it on (a routine from before those were kept: its own sites).
  const legacy = [...new Set(routine.steps.flatMap((step) => (step.kind === 'goto' ? [hostOf(step.url)] : [])).filter(Boolean))];
  const hostsOf = (param: string) => {
    const typed = routine.steps.flatMap((step) => (step.kind === 'type' && step.param === param && step.origin ? [hostOf(step.origin)] : []));
    return typed.length ? [...new Set(typed)] : legacy;
  };
  return async (name, kind) => {
    const param = name.startsWith(RUN_SECRET) ? routine.parameters.find((p) => p.kind === 'secret' && p.name === name.slice(RUN_SECRET.length)) : undefined;
    if (param && kind === 'secret') return { name, value: String(values[param.name]), domains: hostsOf(param.name) };
    if (session) return session(name, kind);
    throw new ForbiddenError('Secrets are lent to task sessions under a grant that names them: {{secret:…}} and {{totp:…}} type nothing here');
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

function actionOf(
  step: Exclude<RoutineStep, { kind: 'goto' | 'press' | 'upload' }>,
  ref: string,
  targetId: string,
  values: Record<string, ParamValue>,
  routine: Routine,
): Action {
  switch (step.kind) {
    case 'click':
      return { kind: 'click', ref, targetId, ...(step.button ? { button: step.button } : {}) };
    case 'type': {
      const value = String(values[step.param]);
      // A secret's value goes through the server's own typing ({{secret:…}}): the act, the log and the agent's script hold the placeholder.
      const secret = isPlaceholder(value) ? value : undefined;
      const isSecret = routine.parameters.some((param) => param.name === step.param && param.kind === 'secret');
      const text = secret ?? (isSecret ? `{{secret:${RUN_SECRET}${step.param}}}` : value);
      return { kind: 'type', ref, targetId, text, ...(step.submit ? { submit: true } : {}) };
    }
    case 'select': {
      const value = values[step.param];
      return { kind: 'select', ref, targetId, values: Array.isArray(value) ? value : [String(value)] };
    }
    case 'check':
      return { kind: 'fill', targetId, fields: [{ ref, value: values[step.param] === true }] };
  }
}

export function describeStep(step: RoutineStep): string {
  switch (step.kind) {
    case 'goto':
      return `go to ${step.url}`;
    case 'press':
      return `press ${step.key}`;
    case 'click':
      return `click ${step.what}`;
    case 'type':
      return `type ${step.param} into ${step.what}${step.submit ? ' and press Enter' : ''}`;
    case 'select':
      return `choose ${step.param} in ${step.what}`;
    case 'check':
      return `set ${step.what} to ${step.param}`;
    case 'upload':
      return `upload ${step.param} into ${step.what}`;
  }
}
