import type { ElementHandle, JSHandle } from 'playwright-core';
import type { Action } from '../api/schemas.js';
import type { DriverTab } from './driver-tab.js';

/**
 * What an action changed, so its answer is never a bare "done" (issue:
 * answers an agent can trust). Before the action, the target element's own
 * state is read and a MutationObserver starts counting changes to its
 * document; after it (and after what it set off: aftermath.ts), the state is
 * read again. The answer says:
 * - `changed`: whether anything observable happened (a navigation, an event
 *   such as a dialog or a download, the target's state, the page's DOM);
 * - `state`: the target's state that changed, as it is now (checked, value,
 *   expanded, selected, pressed, open). Focus is left out: a click focuses
 *   whatever it lands on, reacting or not;
 * - `hint`, when nothing changed: what that likely means.
 *
 * The observer lives in a closure the page cannot reach (a handle held here),
 * and costs two evaluations per action. Hover is left out of "did not react":
 * it often changes only styles.
 */

export interface ActEffect {
  /** Absent for kinds whose effect is not measured (evaluate, wait, resize, scroll, move) when nothing else says. */
  changed?: boolean;
  state?: Record<string, string | boolean | null>;
  hint?: string;
}

type ElementState = Record<string, string | boolean | null>;

/** The kinds whose effect is measured, and the ref of the element each acts on. */
function targetRef(action: Action): string | undefined {
  switch (action.kind) {
    case 'click':
    case 'type':
    case 'hover':
    case 'select':
      return action.ref;
    case 'drag':
      return action.startRef;
    case 'fill':
      return action.fields[0]?.ref;
    case 'press':
      return undefined;
    default:
      return undefined;
  }
}

const MEASURED = new Set<Action['kind']>(['click', 'type', 'hover', 'select', 'drag', 'fill', 'press']);

export interface EffectWatch {
  /** After the action: what changed. `navigated` and `events` come from the action's own answer. */
  finish(outcome: { navigated: boolean; events: string[] }): Promise<ActEffect>;
}

/** Kinds measured otherwise (an evaluate's value, a wait's condition): only a navigation or an event is said. */
const NO_WATCH: EffectWatch = { finish: async ({ navigated, events }) => (navigated || events.length > 0 ? { changed: true } : {}) };

/** Starts watching before the action; never fails the action (a ref it cannot resolve is the action's to report). */
export async function watchEffect(tab: DriverTab, action: Action): Promise<EffectWatch> {
  if (!MEASURED.has(action.kind)) return NO_WATCH;
  const ref = targetRef(action);
  const element = ref === undefined ? undefined : await tab.element(ref).catch(() => undefined);
  const before = element ? await readState(element) : undefined;
  const observer = await startObserver(tab, element);
  // A key that moves the focus (Tab) changed what the next key reaches.
  const focusBefore = action.kind === 'press' ? await tab.page.evaluateHandle(() => document.activeElement).catch(() => undefined) : undefined;
  return {
    async finish({ navigated, events }) {
      const mutations = await observer?.evaluate((watch) => watch.stop()).catch(() => undefined);
      await observer?.dispose().catch(() => {});
      const focusMoved = focusBefore ? await tab.page.evaluate((was) => was !== document.activeElement, focusBefore).catch(() => true) : false;
      await focusBefore?.dispose().catch(() => {});
      const after = element && before ? await readState(element) : undefined;
      const state = before && after ? differences(before, after) : undefined;
      const changed = navigated || events.length > 0 || focusMoved || (mutations ?? 0) > 0 || (state !== undefined && Object.keys(state).length > 0);
      const effect: ActEffect = { changed };
      if (state && Object.keys(state).length) effect.state = state;
      if (!changed && action.kind !== 'hover') effect.hint = hintFor(action);
      return effect;
    },
  };
}

function hintFor(action: Action): string {
  if (action.kind === 'press') return `nothing on the page changed after ${action.key}: the focus may be elsewhere (click or type into the field first)`;
  return 'the element did not react: nothing on the page changed. It may need a different action (a double click, a key such as Enter, or a click on its label or a nearby control), or wait for the page; take a new snapshot to see it';
}

/** The state an agent acts to change, read the way the page exposes it. */
function readState(element: ElementHandle): Promise<ElementState | undefined> {
  return element
    .evaluate((el: Element) => {
      const aria = (name: string) => el.getAttribute(name);
      const toggle = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio');
      const value = (el as { value?: unknown }).value;
      return {
        checked: toggle ? (el as HTMLInputElement).checked : aria('aria-checked'),
        value: el instanceof HTMLSelectElement ? [...el.selectedOptions].map((option) => option.label).join(', ') : typeof value === 'string' ? value : null,
        expanded: aria('aria-expanded'),
        selected: aria('aria-selected'),
        pressed: aria('aria-pressed'),
        open: el instanceof HTMLDetailsElement || el instanceof HTMLDialogElement ? (el as HTMLDetailsElement).open : null,
      };
    })
    .catch(() => undefined);
}

function differences(before: ElementState, after: ElementState): ElementState {
  const changed: ElementState = {};
  for (const [key, value] of Object.entries(after)) if (value !== before[key]) changed[key] = value;
  return changed;
}

type Watch = { stop(): number };

/** Counts DOM changes in the target's document (the main document for coordinate actions) until stopped. */
async function startObserver(tab: DriverTab, element: ElementHandle | undefined): Promise<JSHandle<Watch> | undefined> {
  const install = (node: Node | Document): Watch => {
    const doc = node instanceof Document ? node : node.ownerDocument!;
    let count = 0;
    const observer = new MutationObserver((records) => (count += records.length));
    observer.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
    return {
      stop() {
        count += observer.takeRecords().length;
        observer.disconnect();
        return count;
      },
    };
  };
  try {
    const node: JSHandle<Node> = element ?? (await tab.page.evaluateHandle(() => document));
    return (await node.evaluateHandle(install)) as JSHandle<Watch>;
  } catch {
    return undefined;
  }
}
