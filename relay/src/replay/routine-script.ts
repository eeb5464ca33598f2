import type { Action } from '../api/schemas.js';
import type { Routine, RoutineParameter } from '../api/teach-schemas.js';
import { playwrightScript, type WrittenScript } from './playwright-script.js';
import type { ScriptStep } from './script-steps.js';

/**
 * A routine as a Playwright test (runnable with `npx playwright test`): the
 * person's demonstration replayed with the values they gave; a secret is
 * read from SECRET_<NAME> in the environment when the test runs, as in an
 * agent's exported script, and is never written.
 */

const TAB = 'T';

export function routineScript(routine: Routine, values: Record<string, RoutineParameter['default']> = {}): WrittenScript {
  const steps: ScriptStep[] = [];
  const value = (name: string) => {
    const param = routine.parameters.find((p) => p.name === name);
    if (param?.kind === 'secret') return `{{secret:${param.secret ?? name.toUpperCase()}}}`;
    return values[name] ?? param?.default;
  };
  let refs = 0;
  let url = routine.recordedOn.url;
  for (const step of routine.steps) {
    if (step.kind === 'goto') {
      steps.push({ kind: 'goto', tab: TAB, url: step.url });
      url = step.url;
      continue;
    }
    if (step.kind === 'press') {
      steps.push({ kind: 'act', tab: TAB, url, action: { kind: 'press', key: step.key }, elements: {} });
      continue;
    }
    const ref = `e${++refs}`;
    const elements = { [ref]: step.element };
    if (step.kind === 'upload') {
      const files = value(step.param);
      steps.push({ kind: 'upload', tab: TAB, element: step.element, files: Array.isArray(files) ? files : typeof files === 'string' ? [files] : [] });
      continue;
    }
    const action = actionOf(step, ref, step.kind === 'click' ? undefined : value(step.param));
    steps.push({ kind: 'act', tab: TAB, url, action, elements });
  }
  return playwrightScript(
    steps,
    routine.name,
    `Recorded by clawd-browser from a person's demonstration on ${routine.recordedOn.profile}, ${routine.createdAt} (routine ${routine.name}).`,
  );
}

function actionOf(step: Exclude<Routine['steps'][number], { kind: 'goto' | 'press' | 'upload' }>, ref: string, given: RoutineParameter['default']): Action {
  switch (step.kind) {
    case 'click':
      return { kind: 'click', ref, ...(step.button ? { button: step.button } : {}) };
    case 'type':
      return { kind: 'type', ref, text: String(given ?? ''), ...(step.submit ? { submit: true } : {}) };
    case 'select':
      return { kind: 'select', ref, values: Array.isArray(given) ? given : [String(given ?? '')] };
    case 'check':
      return { kind: 'fill', fields: [{ ref, value: given === true || given === 'true' }] };
  }
}
