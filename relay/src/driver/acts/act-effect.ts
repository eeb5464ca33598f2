import { setTimeout as sleep } from 'node:timers/promises';
import { countEffectWatch, finishEffectWatch, startEffectWatch } from '../../snapshot/snapshot-engine.js';
import { frameOfRef } from '../../snapshot/refs.js';
import type { Action } from '../../api/schemas.js';
import type { DriverTab } from '../driver-tab.js';

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
 * Both are read in the snapshot engine's isolated world, where page scripts
 * cannot reach or replace what reads them; two evaluations per action. Hover is left out of "did not react":
 * it often changes only styles.
 */

export interface ActEffect {
  /** Absent for kinds whose effect is not measured (evaluate, wait, resize, scroll, move) when nothing else says. */
  changed?: boolean;
  state?: Record<string, string | boolean | null>;
  hint?: string;
}

type ElementState = Record<string, string | boolean | null>;

/** The kinds whose effect is measured, and the ref of the element each acts on (by coordinates: none, unless what is at the point has one). */
function targetRef(action: Action): string | undefined {
  switch (action.kind) {
    case 'click':
    case 'type':
    case 'hover':
    case 'select':
    case 'select-text':
      return action.ref;
    case 'drag':
      return action.startRef;
    case 'fill':
      return action.fields[0]?.ref;
    default:
      return undefined;
  }
}

const MEASURED = new Set<Action['kind']>(['click', 'type', 'hover', 'select', 'drag', 'fill', 'press', 'mousedown', 'mouseup', 'select-text']);
/** Kinds after which "nothing changed" says nothing: a hover often changes only styles, a selection or a button held no DOM. */
const NO_NOTHING_HINT = new Set<Action['kind']>(['hover', 'select-text', 'mousedown']);

export interface EffectWatch {
  /** After the action: what changed. `navigated` and `events` come from the action's own answer. */
  finish(outcome: { navigated: boolean; events: string[] }): Promise<ActEffect>;
}

/** Kinds measured otherwise (an evaluate's value, a wait's condition): only a navigation or an event is said. */
const NO_WATCH: EffectWatch = { finish: async ({ navigated, events }) => (navigated || events.length > 0 ? { changed: true } : {}) };

let watches = 0;

/**
 * Starts watching before the action, in the snapshot engine's isolated world
 * (snapshot-engine.ts), where a page's polyfills of MutationObserver or of
 * the element classes cannot change what is read. Never fails the action: a
 * ref it cannot place is the action's to report.
 */
export async function watchEffect(tab: DriverTab, action: Action, refAtPoint?: string): Promise<EffectWatch> {
  if (!MEASURED.has(action.kind)) return NO_WATCH;
  const ref = targetRef(action) ?? refAtPoint;
  const frame = ref === undefined ? tab.page.mainFrame() : frameOfRef(tab.snapshots, ref);
  if (!frame) return NO_WATCH;
  const id = `w${++watches}`;
  const started = await startEffectWatch(frame, id, ref).catch(() => false);
  return {
    async finish({ navigated, events }) {
      // Frameworks that render on the next animation frame (Mithril, and any app batching its
      // updates) react a moment after the click returns: before saying a click changed nothing, or
      // only its own element, the page gets SETTLE_MS to show its reaction.
      if (started && action.kind === 'click' && !navigated && !events.length) {
        const deadline = Date.now() + SETTLE_MS;
        while ((await countEffectWatch(frame, id).catch(() => null)) === 0 && Date.now() < deadline) await sleep(SETTLE_POLL_MS);
      }
      const reading = started ? await finishEffectWatch(frame, id).catch(() => null) : null;
      const state = reading?.before && reading.after ? differences(reading.before, reading.after) : undefined;
      // A key that moves the focus (Tab) changed what the next key reaches; a click focusing what it lands on did not.
      const focusMoved = action.kind === 'press' && reading?.focusMoved === true;
      const changed = navigated || events.length > 0 || focusMoved || (reading?.mutations ?? 0) > 0 || (state !== undefined && Object.keys(state).length > 0);
      // Nothing read and nothing else seen (the watch could not start): say nothing rather than "did not react".
      if (!reading && !changed) return {};
      const effect: ActEffect = { changed };
      if (state && Object.keys(state).length) effect.state = state;
      if (!changed && !NO_NOTHING_HINT.has(action.kind)) effect.hint = hintFor(action);
      // A click that flipped a checkbox and nothing else: the input changed, but no page code
      // visibly followed (no count, style or list moved). True for a plain form's checkbox too,
      // so it is said as a fact, not as a failure.
      else if (action.kind === 'click' && onlyOwnState(state, reading?.mutations ?? 0, navigated, events)) effect.hint = ONLY_OWN_STATE;
      return effect;
    },
  };
}

/**
 * The page's document as a whole, watched around something that is not an
 * act on an element (a page tool's call): whether its DOM changed, read in
 * the same isolated world.
 */
export async function watchDocument(tab: DriverTab): Promise<EffectWatch> {
  const frame = tab.page.mainFrame();
  const id = `w${++watches}`;
  const started = await startEffectWatch(frame, id, undefined).catch(() => false);
  return {
    async finish({ navigated, events }) {
      const reading = started && !navigated ? await finishEffectWatch(frame, id).catch(() => null) : null;
      return { changed: navigated || events.length > 0 || (reading?.mutations ?? 0) > 0 };
    },
  };
}

/** How long a click's page may take to show its reaction (a few animation frames), and how often it is looked at. */
const SETTLE_MS = 250;
const SETTLE_POLL_MS = 25;

/**
 * The element's own state changed and nothing else on the page did: true of
 * most checkboxes, radios and switches in a plain form, and of an app's
 * control whose page has not reacted yet. Said as a plain fact (the agent
 * knows whether it expected more), with no alarm.
 */
const ONLY_OWN_STATE = 'nothing else on the page changed';

function onlyOwnState(state: ElementState | undefined, mutations: number, navigated: boolean, events: string[]): boolean {
  return state !== undefined && Object.keys(state).length > 0 && mutations === 0 && !navigated && events.length === 0;
}

function hintFor(action: Action): string {
  if (action.kind === 'press') return `nothing on the page changed after ${action.key}: the focus may be elsewhere (click or type into the field first)`;
  return 'the element did not react: nothing on the page changed. It may need a different action (a double click, a key such as Enter, or a click on its label or a nearby control), or wait for the page; take a new snapshot to see it';
}

function differences(before: ElementState, after: ElementState): ElementState {
  const changed: ElementState = {};
  for (const [key, value] of Object.entries(after)) if (value !== before[key]) changed[key] = value;
  return changed;
}
