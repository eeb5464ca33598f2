import type { Browser, BrowserContext, Frame, Locator } from 'playwright-core';
import type { ElementDescription } from '../page-runtime/element-description.js';
import type {
  ActTarget,
  ActTargetQuery,
  Box,
  EffectReading,
  ElementOp,
  MarkdownAnswer,
  Presence,
  ReadOp,
  RefCheck,
  RuntimeElements,
  RuntimeReads,
  TextScope,
  WalkAnswer,
  WalkArgs,
} from '../page-runtime/ops.js';
import { selectorEngineSource } from '../page-runtime/runtime-source.js';

export type { ActTargetQuery, EffectReading, Presence, RefCheck, TextScope } from '../page-runtime/ops.js';
export type { TextLocation } from '../page-runtime/text-range.js';

/**
 * Where the snapshot runs: a Playwright selector engine registered as a
 * content script, so Playwright evaluates it in its isolated (utility)
 * world of each frame, on every profile (managed, remote, and the relay's
 * shared tabs alike). A page that replaces `document.querySelectorAll` or
 * wraps `Element.prototype.getAttribute` changes its own world only: the walk
 * sees the browser's DOM methods, and the ref → element map lives where page
 * scripts cannot read or rewrite it.
 *
 * The engine is the page runtime (page-runtime/selector-engine.ts), the only
 * code that runs in that world, so every operation is a "selector"; each op's
 * argument and answer are typed by the one table both sides share
 * (page-runtime/ops.ts).
 */

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
  const registering = import('playwright-core')
    .then(({ selectors }) => selectors.register(name, { content: selectorEngineSource() }, { contentScript: true }))
    .then(() => name);
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

const selector = (op: string, argument: unknown) => `${op}:${encodeURIComponent(JSON.stringify(argument))}`;

/** An element the runtime answers with, as a locator. */
async function locate<Op extends ElementOp>(frame: Frame, op: Op, argument: RuntimeElements[Op]['argument']): Promise<Locator> {
  return frame.locator(`${await engineFor(frame)}=${selector(op, argument)}`);
}

/** What the runtime answers with, read from the detached element it holds the answer in. */
async function read<Op extends ReadOp>(frame: Frame, op: Op, argument: RuntimeReads[Op]['argument']): Promise<RuntimeReads[Op]['answer']> {
  const text = await frame.locator(`${await engineFor(frame)}=${selector(op, argument)}`).textContent({ timeout: 30_000 });
  return JSON.parse(text ?? 'null') as RuntimeReads[Op]['answer'];
}

/** Walks one frame; its refs and iframe elements stay in the frame's isolated world. */
export function walkFrame(frame: Frame, args: WalkArgs): Promise<WalkAnswer | { error: string }> {
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

/** One look at the frame: true when every condition given holds. Counted in the frame (see probeCount). */
export function probe(frame: Frame, presence: Presence): Promise<boolean | { error: string }> {
  return read(frame, 'present', presence);
}

/** How many probes this frame's isolated world has answered: a wait that stopped stops counting. */
export function probeCount(frame: Frame): Promise<number> {
  return read(frame, 'probes', null);
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
 * A frame's readable content as Markdown (page-runtime/markdown.ts): its main content, or the element of a ref
 * or a selector; `hidden`: blocks of text a person cannot see, left out (or, asked for, shown marked).
 */
export function frameMarkdown(frame: Frame, scope: { ref?: string; selector?: string; hidden?: boolean }): Promise<MarkdownAnswer> {
  return read(frame, 'markdown', scope);
}

/** Where refs of the frame's latest walk are, in its viewport's CSS pixels (refs gone or without a box are left out). */
export function refBoxes(frame: Frame, refs: string[]): Promise<Record<string, Box>> {
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
  const text = await located.locator(`${await engineFor(frame)}=${selector('refof', null)}`).textContent({ timeout: 5_000 });
  return JSON.parse(text ?? 'null') as RuntimeReads['refof']['answer'];
}

/** Finds an act's target in the frame's isolated world (then `actTargetLocator` reaches it): the control, and the form it sends. */
export function findActTarget(frame: Frame, query: ActTargetQuery): Promise<ActTarget> {
  return read(frame, 'act-target', query);
}

/** The control the last findActTarget of the frame found, as a locator. */
export function actTargetLocator(frame: Frame): Promise<Locator> {
  return locate(frame, 'target', null);
}

/** Where a text is in a ref's element (or the frame's body), for a drag over it (page-runtime/text-range.ts). */
export function locateText(frame: Frame, scope: TextScope, text: string | null): Promise<RuntimeReads['text-locate']['answer']> {
  return read(frame, 'text-locate', { ...scope, text });
}

/** The text selected in the page's world by the Selection API, or a field's range; false when the element is gone. */
export function selectTextByScript(frame: Frame, argument: RuntimeReads['text-select']['argument']): Promise<boolean> {
  return read(frame, 'text-select', argument);
}

/** What is selected now in the scope's element (a field's own selection, else its document's), with its shown text. */
export function readSelection(frame: Frame, scope: TextScope): Promise<RuntimeReads['selection']['answer']> {
  return read(frame, 'selection', scope);
}

/** A locator for a ref that `checkRef` found 'ok'; it resolves in the isolated world too. */
export function refLocator(frame: Frame, ref: string): Promise<Locator> {
  return locate(frame, 'ref', ref);
}
