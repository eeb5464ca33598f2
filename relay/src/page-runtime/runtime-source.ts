import { PAGE_RUNTIME, PAGE_RUNTIME_GLOBAL } from './bundle.generated.js';
import type { PersonWatchMode, SecretWindow } from './person-watch.js';

/**
 * The page runtime's source as each world of clawd's own runs it: the one
 * bundle (bundle.generated.ts, from entry.ts), inside a function of its own,
 * then the part that world is for. Node-side; nothing here runs in the page.
 */

function started(start: string): string {
  return `(() => {\n${PAGE_RUNTIME}\nreturn ${PAGE_RUNTIME_GLOBAL}.${start};\n})()`;
}

/** An expression for Playwright's selectors.register: the snapshot engine (selector-engine.ts). */
export function selectorEngineSource(): string {
  return started('selectorEngine()');
}

/**
 * A script for Page.addScriptToEvaluateOnNewDocument in a person's world: the watch (person-watch.ts),
 * reporting through `binding`; run again in a world that has it, it only changes the mode and the secret window.
 */
export function personWatchSource(binding: string, mode: PersonWatchMode, secrets?: SecretWindow): string {
  return started(`watchPerson(${JSON.stringify(binding)}, ${JSON.stringify(mode)}, ${JSON.stringify(secrets ?? null)})`);
}

/** An expression for a world of clawd's own: the elements a person cannot see, as the outline judges them (walk.ts). */
export function hiddenElementsSource(): string {
  return started('hiddenElements()');
}
