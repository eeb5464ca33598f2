import type { Routine, RoutineOwner, RoutineParameter, RoutineStep } from '../api/teach-schemas.js';
import { originOf } from '../api/web-address.js';
import { chooseLocator, describeLocator, inFrames } from './locator-choice.js';
import type { ElementLocator } from './script-steps.js';

/**
 * A person's demonstration, as heard (driver/person/person-watch.ts), made into a
 * routine: each element found by the locator a person would write, counted
 * as the page was when they acted; each value they gave a parameter with it
 * as its default; a password a secret parameter with no value at all.
 * Pure: tested without a browser.
 */

/** An element as the page described it when the person acted on it (page-runtime/person-watch.ts). */
export interface ElementFacts {
  tag: string;
  type?: string;
  role?: string;
  name?: string;
  /** Lines of the page's outline with this role and name. */
  nameCount?: number;
  label: string;
  labelCount: number;
  testId: string | null;
  testIdCount: number;
  text: string;
  textCount: number;
  css: string;
  /** Inside frames: each frame's `<iframe>` selector in its parent's document, from the top (driver/person/frame-paths.ts). */
  frames?: string[];
}

/** What the person did, as the watch reports it. */
export type PersonStep =
  | { kind: 'goto'; url: string }
  | { kind: 'click'; element: ElementFacts; button?: 'left' | 'middle' | 'right'; url?: string }
  /** A secret's field has no value; `secrets`: the server typed these into it, in that act (window id) of its. */
  | {
      kind: 'type';
      element: ElementFacts;
      value?: string;
      secret?: true;
      secrets?: { id: number; names: Array<{ name: string; kind: 'secret' | 'totp' }> };
      url?: string;
    }
  | { kind: 'select'; element: ElementFacts; values: string[]; url?: string }
  | { kind: 'check'; element: ElementFacts; checked: boolean; url?: string }
  | { kind: 'upload'; element: ElementFacts; files: string[]; url?: string }
  | { kind: 'press'; key: string; element?: ElementFacts; url?: string }
  /** Mark mode: the person pointed at an element for a note. */
  | { kind: 'mark'; element: ElementFacts; url?: string };

/** The locator for an element, from the counts taken when the person acted. */
export async function locatorOf(facts: ElementFacts): Promise<ElementLocator> {
  const found = await chooseLocator(
    { role: facts.role, name: facts.name, label: facts.label, testId: facts.testId, text: facts.text, css: facts.css },
    (locator) => {
      switch (locator.by) {
        case 'role':
          return facts.nameCount ?? 0;
        case 'label':
          return facts.labelCount;
        case 'testid':
          return facts.testIdCount;
        case 'text':
          return facts.textCount;
        default:
          return 0;
      }
    },
  );
  // Counted in the element's own document: the frames lead there first.
  return facts.frames?.length ? { ...found, frames: facts.frames } : found;
}

/** An element as a person reads it: its role and name, else what found it. */
export function whatOf(facts: ElementFacts, locator: ElementLocator): string {
  const what = facts.role && facts.name ? `${facts.role} ${JSON.stringify(facts.name)}${inFrames(facts.frames)}` : describeLocator(locator);
  return what.length > MAX_WHAT ? `${what.slice(0, MAX_WHAT - 1)}…` : what;
}

/** A step's `what` is kept to this (teach-schemas.ts). */
const MAX_WHAT = 300;

/** A step as a person reads it, while a demonstration goes on. */
export function stepLine(step: PersonStep): string {
  const on =
    'element' in step && step.element
      ? ` ${step.element.role && step.element.name ? `${step.element.role} ${JSON.stringify(step.element.name)}` : step.element.tag}${inFrames(step.element.frames)}`
      : '';
  switch (step.kind) {
    case 'goto':
      return `go to ${step.url}`;
    case 'type':
      return `type into${on}${step.secret ? ' (a secret: not recorded)' : ''}`;
    case 'select':
      return `choose ${step.values.map((value) => JSON.stringify(value)).join(', ')} in${on}`;
    case 'check':
      return `${step.checked ? 'check' : 'uncheck'}${on}`;
    case 'upload':
      return `upload ${step.files.length} file(s) into${on}`;
    case 'press':
      return `press ${step.key}${on ? ` in${on}` : ''}`;
    default:
      return `${step.kind}${on}`;
  }
}

export interface RoutineDraft {
  routine: Routine;
  /** What was left out, and why. */
  notes: string[];
}

export interface RoutineMeta {
  name: string;
  /** Who saves it (routines/routine-owners.ts). */
  owner: RoutineOwner;
  description: string;
  profile: string;
  startUrl: string;
  title: string;
  now: Date;
}

/** The demonstration's steps as a routine: it starts where the person started, then does what they did. */
export async function routineFromSteps(heard: PersonStep[], meta: RoutineMeta): Promise<RoutineDraft> {
  const notes: string[] = [];
  const parameters: RoutineParameter[] = [];
  const steps: RoutineStep[] = [{ kind: 'goto', url: meta.startUrl }];
  const paramFor = (facts: ElementFacts, kind: RoutineParameter['kind'], what: string, value: RoutineParameter['default']): string => {
    const name = uniqueName(parameterName(facts, kind), parameters);
    parameters.push({
      name,
      kind,
      description: what,
      ...(value !== undefined ? { default: value } : {}),
      ...(kind === 'secret' ? { secret: name.toUpperCase() } : {}),
    });
    return name;
  };
  // A field typed into while the server typed a secret is that secret's, when it was the one field of that act.
  const fieldsOfWindow = new Map<number, number>();
  for (const step of heard) if (step.kind === 'type' && step.secrets) fieldsOfWindow.set(step.secrets.id, (fieldsOfWindow.get(step.secrets.id) ?? 0) + 1);
  const asSecret = (param: RoutineParameter, step: Extract<PersonStep, { kind: 'type' }>): void => {
    param.kind = 'secret';
    delete param.default;
    const typed = step.secrets;
    const bound = typed && typed.names.length === 1 && fieldsOfWindow.get(typed.id) === 1 ? typed.names[0] : undefined;
    param.secret = bound?.name ?? param.secret ?? param.name.toUpperCase();
    if (bound?.kind === 'totp') param.oneTimeCode = true;
    else delete param.oneTimeCode;
    if (typed && !bound)
      notes.push(
        `${param.name} took input while the server typed ${typed.names.map((secret) => secret.name).join(', ')}: it is kept as a secret, not bound to one`,
      );
  };
  for (const [index, step] of heard.entries()) {
    if (step.kind === 'mark') continue;
    if (step.kind === 'goto') {
      steps.push({ kind: 'goto', url: step.url });
      continue;
    }
    if (step.kind === 'press') {
      // Enter in a field just typed into: that typing submits.
      const last = steps[steps.length - 1];
      if (step.key === 'Enter' && step.element && last?.kind === 'type' && sameElement(heard, index, step.element)) last.submit = true;
      else steps.push({ kind: 'press', key: step.key });
      continue;
    }
    const element = await locatorOf(step.element);
    const what = whatOf(step.element, element);
    switch (step.kind) {
      case 'click':
        steps.push({ kind: 'click', element, what, ...(step.button && step.button !== 'left' ? { button: step.button } : {}) });
        break;
      case 'type': {
        // A secret is typed only where its owner typed it: the step keeps the origin it was heard on.
        const origin = originOf(step.url);
        // Typing the same field again replaces what it holds: one step, the last value (a secret once it was one).
        const earlier = steps.findIndex((other) => other.kind === 'type' && sameLocator(other.element, element));
        if (earlier !== -1 && earlier === steps.length - 1) {
          const last = steps[earlier] as Extract<RoutineStep, { kind: 'type' }>;
          const param = parameters.find((p) => p.name === last.param);
          if (param && step.secret) {
            asSecret(param, step);
            if (origin) last.origin = origin;
          } else if (param && param.kind !== 'secret') param.default = step.value ?? '';
          continue;
        }
        const name = paramFor(step.element, step.secret ? 'secret' : 'text', what, step.secret ? undefined : (step.value ?? ''));
        if (step.secret)
          asSecret(
            parameters.find((p) => p.name === name)!,
            step,
          );
        steps.push({ kind: 'type', element, what, param: name, ...(origin ? { origin } : {}) });
        break;
      }
      case 'select':
        steps.push({ kind: 'select', element, what, param: paramFor(step.element, 'choice', what, step.values.length === 1 ? step.values[0] : step.values) });
        break;
      case 'check':
        steps.push({ kind: 'check', element, what, param: paramFor(step.element, 'toggle', what, step.checked) });
        break;
      case 'upload': {
        const param = paramFor(step.element, 'files', what, undefined);
        steps.push({ kind: 'upload', element, what, param });
        notes.push(`the files given to ${what} (${step.files.join(', ')}) are not kept: a run names them (parameter ${param})`);
        break;
      }
    }
    if (element.by === 'css')
      notes.push(
        `step ${steps.length} (${what}) finds its element by a CSS path: it had no unique role and name, label, test id or text, and may break when the page changes`,
      );
  }
  for (const param of parameters) {
    if (param.kind !== 'secret') continue;
    const typed = heard.some((step) => step.kind === 'type' && step.secrets && step.secrets.names.some((secret) => secret.name === param.secret));
    notes.push(
      typed
        ? `${param.name} is the ${param.oneTimeCode ? 'one-time code' : 'secret'} ${param.secret} the server typed: its value was not recorded; a run gives it, or a task session types the vault's ${param.secret}`
        : `${param.name} was a password: its value was not recorded; a run gives it, or a task session types the vault's secret ${param.secret}`,
    );
  }
  return {
    routine: {
      name: meta.name,
      description: meta.description,
      createdAt: meta.now.toISOString(),
      recordedOn: { profile: meta.profile, url: meta.startUrl, title: meta.title },
      owner: meta.owner,
      parameters,
      steps,
    },
    notes,
  };
}

/** The step before `index` typed into this element (an Enter pressed in it). */
function sameElement(heard: PersonStep[], index: number, facts: ElementFacts): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const before = heard[i];
    if (before.kind === 'mark') continue;
    return before.kind === 'type' && before.element.css === facts.css && sameFrames(before.element.frames, facts.frames);
  }
  return false;
}

function sameLocator(a: ElementLocator, b: ElementLocator): boolean {
  return a.by === b.by && a.role === b.role && a.name === b.name && a.value === b.value && sameFrames(a.frames, b.frames);
}

function sameFrames(a: string[] | undefined, b: string[] | undefined): boolean {
  return (a ?? []).join('\n') === (b ?? []).join('\n');
}

/** `Full name` → `full_name`; a field with no words is named for its kind. */
function parameterName(facts: ElementFacts, kind: RoutineParameter['kind']): string {
  const words = (facts.name || facts.label || '')
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 32);
  const base = /^[a-z]/.test(words)
    ? words
    : kind === 'secret'
      ? 'password'
      : kind === 'files'
        ? 'files'
        : kind === 'toggle'
          ? 'checked'
          : kind === 'choice'
            ? 'choice'
            : 'text';
  return base.replace(/_+$/, '');
}

function uniqueName(base: string, taken: RoutineParameter[]): string {
  let name = base;
  for (let n = 2; taken.some((param) => param.name === name); n++) name = `${base}_${n}`;
  return name;
}
