import type { Browser, BrowserContext, Frame, Locator } from 'playwright-core';
import { markdownOf } from './page-markdown.js';
import { describeElement, type ElementDescription } from './element-description.js';
import { type PageScriptArgs, type PageScriptResult, snapshotFrameDom } from './page-script.js';
import { paintMath } from './page-paint.js';
import { pageSight } from './page-sight.js';

/**
 * Where the snapshot runs: a Playwright selector engine registered as a
 * content script, so Playwright evaluates it in its isolated (utility)
 * world of each frame, on every profile (managed, remote, and the relay's
 * shared tabs alike). A page that replaces `document.querySelectorAll` or
 * wraps `Element.prototype.getAttribute` changes its own world only: the walk
 * sees the browser's DOM methods, and the ref → element map lives where page
 * scripts cannot read or rewrite it.
 *
 * The engine is the only code that runs in that world, so every operation is
 * a "selector": `op:<argument>` (the argument URI-encoded JSON). Results that
 * are not elements come back as the text of a detached element that only the
 * isolated world ever holds.
 */

/** What `check` says of a ref. */
export type RefCheck = 'ok' | 'navigated' | 'absent' | 'removed';

let registrations = 0;
let latest: Promise<string> | undefined;
const byContext = new WeakMap<BrowserContext, string>();

/**
 * Registers the engine under a fresh name. Playwright gives a registered
 * engine to every context the process has now and creates later, except
 * that a context met through connectOverCDP only gets engines registered
 * after it connected, and a page whose isolated world Playwright already
 * set up keeps the engines it had. Hence one registration per connected
 * browser, right after connecting (prepareBrowser).
 */
export function registerSnapshotEngine(): Promise<string> {
  const name = `clawd-snapshot-${process.pid}-${++registrations}-${Math.random().toString(36).slice(2, 8)}`;
  // playwright-core is loaded when first needed: it is most of a server's memory, and a relay
  // serving only raw CDP clients never needs it.
  const registering = import('playwright-core').then(({ selectors }) => selectors.register(name, { content: engineSource() }, { contentScript: true })).then(() => name);
  latest = registering.catch(() => undefined as never);
  return registering;
}

/** For a browser just connected over CDP: its contexts get the engine before anything touches their pages. */
export async function prepareBrowser(browser: Browser): Promise<void> {
  const name = await registerSnapshotEngine();
  for (const context of browser.contexts()) byContext.set(context, name);
}

async function engineFor(frame: Frame): Promise<string> {
  return byContext.get(frame.page().context()) ?? (await latest) ?? (await registerSnapshotEngine());
}

async function locate(frame: Frame, op: string, argument: unknown): Promise<Locator> {
  return frame.locator(`${await engineFor(frame)}=${op}:${encodeURIComponent(JSON.stringify(argument))}`);
}

async function read<T>(frame: Frame, op: string, argument: unknown): Promise<T> {
  const text = await (await locate(frame, op, argument)).textContent({ timeout: 30_000 });
  return JSON.parse(text ?? 'null') as T;
}

/** Walks one frame; its refs and iframe elements stay in the frame's isolated world. */
export function walkFrame(frame: Frame, args: PageScriptArgs): Promise<PageScriptResult & { error?: string }> {
  return read(frame, 'walk', args);
}

/** The element showing child frame `prefix` in the latest walk of `frame`, as a Frame. */
export async function childFrame(frame: Frame, prefix: string): Promise<Frame | null> {
  const handle = await (await locate(frame, 'frame', prefix)).elementHandle({ timeout: 1_000 }).catch(() => null);
  if (!handle) return null;
  try {
    return await handle.contentFrame();
  } finally {
    await handle.dispose();
  }
}

/** What a wait looks for (text is matched in the page's visible text, whitespace collapsed). */
export interface Presence {
  text?: string;
  textGone?: string;
  selector?: string;
}

/** One look at the frame: true when every condition given holds. Counted in the frame (see probeCount). */
export function probe(frame: Frame, presence: Presence): Promise<boolean | { error: string }> {
  return read(frame, 'present', presence);
}

/** How many probes this frame's isolated world has answered: a wait that stopped stops counting. */
export function probeCount(frame: Frame): Promise<number> {
  return read(frame, 'probes', null);
}

export interface EffectReading {
  mutations: number;
  before: Record<string, string | boolean | null> | null;
  after: Record<string, string | boolean | null> | null;
  focusMoved: boolean;
}

/** Starts watching what an action changes: the ref's state (if any) and its document's mutations. */
export function startEffectWatch(frame: Frame, id: string, ref: string | undefined): Promise<boolean> {
  return read(frame, 'effect-start', { id, ref: ref ?? null });
}

/** How many mutations a watch has seen so far, the watch going on; null when it is gone. */
export function countEffectWatch(frame: Frame, id: string): Promise<number | null> {
  return read(frame, 'effect-count', { id });
}

/** What changed since startEffectWatch; null when the document it watched is gone (a navigation). */
export function finishEffectWatch(frame: Frame, id: string): Promise<EffectReading | null> {
  return read(frame, 'effect-finish', { id });
}

export function checkRef(frame: Frame, ref: string, generation: number): Promise<RefCheck> {
  return read(frame, 'check', { ref, generation });
}

/**
 * A frame's readable content as Markdown (page-markdown.ts): its main content, or the element of a ref
 * or a selector; `hidden`: blocks of text a person cannot see, left out (or, asked for, shown marked).
 */
export function frameMarkdown(frame: Frame, scope: { ref?: string; selector?: string; hidden?: boolean }): Promise<{ markdown?: string; hidden?: number; error?: string }> {
  return read(frame, 'markdown', scope);
}

/** Where refs of the frame's latest walk are, in its viewport's CSS pixels (refs gone or without a box are left out). */
export function refBoxes(frame: Frame, refs: string[]): Promise<Record<string, [number, number, number, number]>> {
  return read(frame, 'boxes', refs);
}

/** What else names a ref's element, for a script's locator: its test id, label, text, a CSS path (null when it is gone). */
export function describeRef(frame: Frame, ref: string): Promise<ElementDescription | null> {
  return read(frame, 'describe', ref);
}

/**
 * The ref of the element `located` finds in the main frame `frame` (after a
 * walk of its document): the one the walk gave it, or a new one the next
 * walks keep while it lives. How a routine's step, or a person's note, names
 * its element to an act or an agent.
 */
export async function refOfLocated(frame: Frame, located: Locator): Promise<string | null> {
  const text = await located.locator(`${await engineFor(frame)}=refof:${encodeURIComponent('null')}`).textContent({ timeout: 5_000 });
  return JSON.parse(text ?? 'null') as string | null;
}

/** What an act would act on: a ref's element, the element at a point, or the focused one (with `enter`: whether Enter sends its form). */
export interface ActTargetQuery {
  ref?: string;
  x?: number;
  y?: number;
  focused?: boolean;
  enter?: boolean;
}

/** Finds an act's target in the frame's isolated world (then `actTargetLocator` reaches it): the control, and the form it sends. */
export function findActTarget(frame: Frame, query: ActTargetQuery): Promise<{ found: boolean; submits?: { action: string; method: string } | null }> {
  return read(frame, 'act-target', query);
}

/** The control the last findActTarget of the frame found, as a locator. */
export function actTargetLocator(frame: Frame): Promise<Locator> {
  return locate(frame, 'target', null);
}

/** A locator for a ref that `checkRef` found 'ok'; it resolves in the isolated world too. */
export function refLocator(frame: Frame, ref: string): Promise<Locator> {
  return locate(frame, 'ref', ref);
}

/** The engine's source: the page script and a small dispatcher, evaluated once per isolated world. */
function engineSource(): string {
  // esbuild with keepNames (what tsx runs) inserts __name(...) calls into function bodies.
  return `(() => {
  const __name = (fn) => fn;
  const walk = (${snapshotFrameDom.toString()});
  const markdownOf = (${markdownOf.toString()});
  const describeElement = (${describeElement.toString()});
  // What a person can see (page-sight.ts): a fresh one per walk, which measures the page as it is then.
  const pageSight = (${pageSight.toString()});
  const paintMath = (${paintMath.toString()});
  let state;
  let generation = 0;
  let cached;
  let probes = 0;
  const effects = new Map();
  let finished;
  let actTarget;
  // The state an agent acts to change, read as the browser holds it (tag names, not constructors a page may replace).
  const readState = (el) => {
    const tag = el.tagName;
    const aria = (name) => el.getAttribute(name);
    const toggle = tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
    return {
      checked: toggle ? el.checked : aria('aria-checked'),
      value: tag === 'SELECT' ? [...el.selectedOptions].map((option) => option.label).join(', ') : typeof el.value === 'string' ? el.value : null,
      expanded: aria('aria-expanded'),
      selected: aria('aria-selected'),
      pressed: aria('aria-pressed'),
      open: tag === 'DETAILS' || tag === 'DIALOG' ? el.open : null,
    };
  };
  const output = (value) => {
    const element = document.createElement('clawd-output');
    element.textContent = JSON.stringify(value);
    return [element];
  };
  const run = (body, root) => {
    const colon = body.indexOf(':');
    const op = body.slice(0, colon);
    const argument = JSON.parse(decodeURIComponent(body.slice(colon + 1)));
    switch (op) {
      case 'walk': {
        // Playwright may query a selector more than once: one walk per generation.
        if (cached && cached.generation === argument.generation) return output(cached.result);
        let result;
        try {
          const walked = walk(argument, state, pageSight(paintMath()));
          state = walked.state;
          generation = argument.generation;
          result = walked.result;
        } catch (error) {
          result = { error: String(error && error.message || error) };
        }
        cached = { generation: argument.generation, result };
        return output(result);
      }
      case 'frame': {
        const element = state && state.frameElements.get(argument);
        return element && element.isConnected ? [element] : [];
      }
      case 'check': {
        if (!state || generation !== argument.generation) return output('navigated');
        const element = state.refs.get(argument.ref);
        if (!element) return output('absent');
        return output(element.isConnected ? 'ok' : 'removed');
      }
      case 'ref': {
        const element = state && state.refs.get(argument);
        return element && element.isConnected ? [element] : [];
      }
      case 'refof': {
        // The element a locator found (the query's root): its ref of the latest walk, or a new one.
        if (!state || !root || root.nodeType !== 1 || !root.isConnected) return output(null);
        for (const [ref, element] of state.refs) if (element === root) return output(ref);
        const ref = 'e' + (++state.highest);
        state.refs.set(ref, root);
        return output(ref);
      }
      case 'act-target': {
        // What an act would act on (driver/acts/act-consequence.ts): the ref's element, the element at a point
        // (shadow roots pierced), or the focused one; then the control it is part of, kept for 'target'.
        let element = null;
        if (argument.ref) element = state && state.refs.get(argument.ref);
        else if (argument.focused) {
          element = document.activeElement;
          while (element && element.shadowRoot && element.shadowRoot.activeElement) element = element.shadowRoot.activeElement;
        } else {
          element = document.elementFromPoint(argument.x, argument.y);
          while (element && element.shadowRoot) {
            const inner = element.shadowRoot.elementFromPoint(argument.x, argument.y);
            if (!inner || inner === element) break;
            element = inner;
          }
        }
        if (!element || !element.isConnected) return output({ found: false });
        const control = element.closest('button, a[href], summary, input[type=submit], input[type=button], input[type=image], [role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=tab], [role=option], [role=switch], [role=checkbox], [role=radio]') || element;
        actTarget = control;
        // A form it sends: a submit button's (its formaction first), or Enter in a field of a form.
        let submits = null;
        const form = control.form || null;
        const tag = control.tagName;
        const type = (control.getAttribute('type') || '').toLowerCase();
        const submitter = (tag === 'BUTTON' && (type === '' || type === 'submit')) || (tag === 'INPUT' && (type === 'submit' || type === 'image'));
        const field = tag === 'INPUT' && !submitter && !['button', 'checkbox', 'radio', 'file', 'reset', 'color', 'range'].includes(type);
        if (form && (submitter || (field && argument.enter))) {
          const action = submitter && control.hasAttribute('formaction') ? control.formAction : form.action;
          const method = (submitter && control.getAttribute('formmethod')) || form.method || 'get';
          submits = { action, method: String(method).toLowerCase() };
        }
        return output({ found: true, submits });
      }
      case 'target':
        return actTarget && actTarget.isConnected ? [actTarget] : [];
      case 'boxes': {
        const boxes = {};
        for (const ref of argument) {
          const element = state && state.refs.get(ref);
          if (!element || !element.isConnected) continue;
          const rect = element.getBoundingClientRect();
          if (rect.width > 0 && rect.height > 0) boxes[ref] = [rect.x, rect.y, rect.width, rect.height];
        }
        return output(boxes);
      }
      case 'describe': {
        const element = state && state.refs.get(argument);
        if (!element || !element.isConnected) return output(null);
        // Counted by Playwright on the Node side (driver/script-recorder.ts).
        return output(describeElement(element, false));
      }
      case 'present': {
        probes++;
        // As Playwright's getByText: a case-insensitive substring, whitespace collapsed.
        const collapse = (text) => String(text).replace(/\\s+/g, ' ').trim().toLowerCase();
        const shown = collapse(document.body ? document.body.innerText : '');
        try {
          if (argument.text !== undefined && !shown.includes(collapse(argument.text))) return output(false);
          if (argument.textGone !== undefined && shown.includes(collapse(argument.textGone))) return output(false);
          if (argument.selector !== undefined) {
            const found = document.querySelector(argument.selector);
            if (!found || !found.checkVisibility({ visibilityProperty: true })) return output(false);
          }
        } catch (error) {
          return output({ error: String(error && error.message || error) });
        }
        return output(true);
      }
      case 'probes':
        return output(probes);
      case 'markdown': {
        let scope = null;
        try {
          if (argument.ref) scope = state && state.refs.get(argument.ref);
          else if (argument.selector) scope = document.querySelector(argument.selector);
        } catch (error) {
          return output({ error: String(error && error.message || error) });
        }
        if ((argument.ref || argument.selector) && !(scope && scope.isConnected)) return output({ error: 'absent' });
        try {
          return output(markdownOf(scope, pageSight(paintMath()), argument.hidden === true));
        } catch (error) {
          return output({ error: String(error && error.message || error) });
        }
      }
      case 'effect-start': {
        // The effect of an action (driver/acts/act-effect.ts), watched from here: a page that replaces
        // MutationObserver or HTMLInputElement (a polyfill) changes its own world, not this one.
        // Playwright may run a query twice: one watch per id.
        if (effects.has(argument.id)) return output(true);
        const element = argument.ref ? state && state.refs.get(argument.ref) : null;
        const doc = element ? element.ownerDocument : document;
        const watch = { records: 0, element, before: element ? readState(element) : null, focus: doc.activeElement };
        watch.observer = new MutationObserver((records) => (watch.records += records.length));
        // A web component's reaction happens inside its shadow root, which an observer of the
        // document does not see: every open one is watched too.
        const roots = [doc];
        for (let i = 0; i < roots.length; i++) {
          const walker = doc.createTreeWalker(roots[i], NodeFilter.SHOW_ELEMENT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) if (node.shadowRoot) roots.push(node.shadowRoot);
        }
        for (const root of roots) watch.observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
        effects.set(argument.id, watch);
        return output(true);
      }
      case 'effect-count': {
        const watch = effects.get(argument.id);
        if (!watch) return output(null);
        watch.records += watch.observer.takeRecords().length;
        return output(watch.records);
      }
      case 'effect-finish': {
        const watch = effects.get(argument.id);
        if (!watch) return output(finished && finished.id === argument.id ? finished.reading : null);
        effects.delete(argument.id);
        const mutations = watch.records + watch.observer.takeRecords().length;
        watch.observer.disconnect();
        const doc = watch.element ? watch.element.ownerDocument : document;
        const reading = { mutations, before: watch.before, after: watch.element ? readState(watch.element) : null, focusMoved: doc.activeElement !== watch.focus };
        finished = { id: argument.id, reading };
        return output(reading);
      }
      default:
        return [];
    }
  };
  return {
    queryAll(root, body) { return run(body, root); },
    query(root, body) { return run(body, root)[0] || null; },
  };
})()`;
}
