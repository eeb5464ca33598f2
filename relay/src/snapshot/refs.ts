import type { ElementHandle, Frame, Page } from 'playwright-core';
import { NotFoundError } from '../errors.js';
import { flatten, type OutlineNode, type RefFacts } from '../page-runtime/outline-node.js';
import { checkRef, refLocator } from './snapshot-engine.js';

/**
 * Refs (`e12`, `f1e3`) name elements of the latest `ai` snapshot of a tab.
 * An element keeps its ref from one snapshot of a document to the next. The
 * elements themselves live in each frame's isolated world (snapshot-engine.ts);
 * here we keep, per tab (TabSnapshots), which frame each ref prefix meant and
 * which snapshot (generation) that was, so a ref can be told apart as unknown,
 * stale, or pointing at an element since removed.
 */

export type RefProblem = 'unknown' | 'stale' | 'removed';

/** A ref that cannot be used; the message says why and what to do. */
export class RefNotFoundError extends NotFoundError {
  constructor(
    readonly ref: string,
    readonly problem: RefProblem,
    message: string,
  ) {
    super(message, { ref, problem, next: 'snapshot' });
  }
}

export interface PageRefs {
  generation: number;
  /** '' for the main frame, 'f1'... for child frames. */
  frames: Map<string, Frame>;
  /** Per prefix, the highest ref number any snapshot handed out: below it an absent ref is stale, above it unknown. */
  highestIssued: Map<string, number>;
}

/**
 * What one tab's snapshots leave for the next call: the refs of the latest
 * `ai` snapshot (resolveRef) with what each stands for (its role, name and
 * frame: a script's locator, a picture's labels), and that snapshot's whole
 * outline, its frames stitched in (diffs). The driver's DriverTab holds one
 * per tab, so it goes when the tab does.
 */
export class TabSnapshots {
  refs: PageRefs | undefined;
  /** The latest whole outline, for `diff`. */
  previousOutline: OutlineNode[] | undefined;
  /** What each ref of the latest outline stands for, read from it when first asked. */
  facts: Map<string, RefFacts> | undefined;

  constructor(readonly page: Page) {}
}

const barePages = new WeakMap<Page, TabSnapshots>();

/**
 * The snapshot functions' entry for a caller with a bare Playwright Page and
 * no tab object of its own (the snapshot tests, which drive Playwright
 * directly): one TabSnapshots per page, made on first use. The driver never
 * comes this way; its tabs hold their own.
 */
export function snapshotsOf(target: TabSnapshots | Page): TabSnapshots {
  if (target instanceof TabSnapshots) return target;
  let snapshots = barePages.get(target);
  if (!snapshots) barePages.set(target, (snapshots = new TabSnapshots(target)));
  return snapshots;
}

const REF_PATTERN = /^(f\d+)?e(\d+)$/;
// One counter for all pages, so two documents never share a generation number.
let lastGeneration = 0;

export function nextGeneration(): number {
  return ++lastGeneration;
}

/** Makes a finished snapshot the one refs resolve against (unless a later one already finished). */
export function recordSnapshot(tab: TabSnapshots, generation: number, frames: Map<string, Frame>, highest: Map<string, number>): void {
  const previous = tab.refs;
  if (previous && previous.generation > generation) return;
  const highestIssued = new Map(previous?.highestIssued);
  for (const [prefix, number] of highest) highestIssued.set(prefix, Math.max(number, highestIssued.get(prefix) ?? 0));
  tab.refs = { generation, frames, highestIssued };
}

/** Keeps a snapshot's whole outline, for the next diff and for what each of its refs stands for. */
export function rememberOutline(tab: TabSnapshots, roots: OutlineNode[]): void {
  tab.previousOutline = roots;
  tab.facts = undefined;
}

/** What a ref of the tab's latest snapshot stands for (undefined when that snapshot did not show it). */
export function factsOf(tab: TabSnapshots, ref: string): RefFacts | undefined {
  if (!tab.facts) {
    // Read once per snapshot, when first asked (a script's locator, a picture's labels): most snapshots are never asked.
    tab.facts = new Map();
    for (const { node } of flatten(tab.previousOutline ?? []))
      if (node.ref !== undefined && !tab.facts.has(node.ref)) tab.facts.set(node.ref, factsOfNode(node as OutlineNode & { ref: string }));
  }
  return tab.facts.get(ref);
}

/** What a node with a ref says of it. */
export function factsOfNode(node: OutlineNode & { ref: string }): RefFacts {
  return { ref: node.ref, role: node.role, ...(node.name !== undefined ? { name: node.name } : {}), frame: REF_PATTERN.exec(node.ref)?.[1] ?? '' };
}

/** The frame a ref of the tab's latest snapshot lives in (undefined when no snapshot made it). */
export function frameOfRef(tab: TabSnapshots, ref: string): Frame | undefined {
  const match = REF_PATTERN.exec(ref);
  return match ? tab.refs?.frames.get(match[1] ?? '') : undefined;
}

/** Whether a snapshot of this tab has handed out `ref` (it may be gone since): unknown refs are told from stale ones. */
export function wasIssued(tab: TabSnapshots, ref: string): boolean {
  const match = REF_PATTERN.exec(ref);
  const state = tab.refs;
  return !!match && !!state && Number(match[2]) <= (state.highestIssued.get(match[1] ?? '') ?? 0);
}

const TAKE_NEW = 'Take a new snapshot and use a ref from it.';

/** The element a ref of the tab's latest snapshot names; a RefNotFoundError (404, with which ref and why) when it is unknown, stale or removed. */
export async function resolveRef(target: TabSnapshots | Page, ref: string): Promise<ElementHandle<Element>> {
  const match = REF_PATTERN.exec(ref);
  if (!match)
    throw new RefNotFoundError(
      ref,
      'unknown',
      `Unknown ref ${JSON.stringify(ref)}: refs look like e12 (main frame) or f1e3 (inside a frame), as a snapshot shows them.`,
    );
  const prefix = match[1] ?? '';
  const number = Number(match[2]);

  const state = snapshotsOf(target).refs;
  if (!state) throw new RefNotFoundError(ref, 'stale', `Ref ${ref} is stale: no snapshot has been taken of this tab yet. ${TAKE_NEW}`);
  const issuedBefore = number <= (state.highestIssued.get(prefix) ?? 0);
  const frame = state.frames.get(prefix);
  if (!frame) {
    if (issuedBefore) throw new RefNotFoundError(ref, 'stale', `Ref ${ref} is stale: its frame is not in the latest snapshot. ${TAKE_NEW}`);
    throw new RefNotFoundError(ref, 'unknown', `Unknown ref ${ref}: the latest snapshot has no frame ${prefix}. ${TAKE_NEW}`);
  }
  if (frame.isDetached()) throw new RefNotFoundError(ref, 'stale', `Ref ${ref} is stale: its frame was removed from the page. ${TAKE_NEW}`);

  const outcome = await checkRef(frame, ref, state.generation).catch(() => 'navigated' as const);
  if (outcome === 'ok') {
    const element = await (await refLocator(frame, ref)).elementHandle({ timeout: 1_000 }).catch(() => null);
    if (element) return element as ElementHandle<Element>;
  }
  switch (outcome) {
    case 'navigated':
      throw new RefNotFoundError(ref, 'stale', `Ref ${ref} is stale: the ${prefix ? 'frame' : 'page'} navigated or reloaded since the snapshot. ${TAKE_NEW}`);
    case 'removed':
    case 'ok': // removed between the check and the lookup
      throw new RefNotFoundError(ref, 'removed', `The element with ref ${ref} was removed from the page since the snapshot. ${TAKE_NEW}`);
    case 'absent':
      if (issuedBefore)
        throw new RefNotFoundError(ref, 'stale', `Ref ${ref} is stale: it came from an older snapshot, and the latest one has no such ref. ${TAKE_NEW}`);
      throw new RefNotFoundError(ref, 'unknown', `Unknown ref ${ref}: no snapshot of this tab handed it out. ${TAKE_NEW}`);
  }
}
