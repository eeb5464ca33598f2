import type { ElementDescription } from './element-description.js';
import type { TextLocation } from './text-range.js';
import type { WireOutline } from './outline-wire.js';
import type { WalkScope } from './walk-scope.js';

/**
 * What the page runtime answers, op by op: each op's argument and answer,
 * one table for both sides. The engine (selector-engine.ts) implements it in
 * the page; snapshot/snapshot-engine.ts calls it from Node, typed by it. An
 * op of `RuntimeReads` answers a JSON value; an op of `RuntimeElements`
 * answers an element of the page, which Playwright then holds as a locator.
 */

export interface WalkArgs {
  /** '' in the main frame, 'f1', 'f2'... in child frames; starts every ref made here. */
  prefix: string;
  /** Number of the first iframe met here (`frame: 'fN'`); frames are numbered across the whole page. */
  firstFrame: number;
  /** Stored beside the refs, so a ref can be checked against the walk that made it. */
  generation: number;
  /** Cut the outline to one element's nodes. */
  scope?: WalkScope;
  /** Keep what a person cannot see too, each node marked with why (for a person debugging). */
  hidden?: boolean;
  /** Elements that listen for a press of their own (snapshot/listened-elements.ts), as index paths: each gets a ref. */
  listened?: number[][];
}

/** A walk's answer: its nodes as one array (outline-wire.ts), with what the Node side needs to stitch and count. */
export interface WalkAnswer extends WireOutline {
  /** Where the scope's nodes are, as places in document order; absent when no scope was asked or it is not in this frame. */
  scope?: number[];
  /** Iframes met, numbered from `firstFrame` on. */
  frames: number;
  refCount: number;
  highest: number;
  continued: boolean;
  hidden: number;
  stats: { elements: number; ms: number };
}

/** What `check` says of a ref. */
export type RefCheck = 'ok' | 'navigated' | 'absent' | 'removed';

/** What a wait looks for (text is matched in the page's visible text, whitespace collapsed). */
export interface Presence {
  text?: string;
  textGone?: string;
  selector?: string;
}

/** The state an agent acts to change, as the browser holds it. */
export type ElementState = Record<string, string | boolean | null>;

export interface EffectReading {
  mutations: number;
  before: ElementState | null;
  after: ElementState | null;
  focusMoved: boolean;
}

/** What an act would act on: a ref's element, the element at a point, or the focused one (with `enter`: whether Enter sends its form). */
export interface ActTargetQuery {
  ref?: string;
  x?: number;
  y?: number;
  focused?: boolean;
  enter?: boolean;
}

export interface ActTarget {
  found: boolean;
  /** The form it sends, where and how (null when it sends none). */
  submits?: { action: string; method: string } | null;
}

/** A frame's readable content; `error: 'absent'` when the scope's element is gone. */
export interface MarkdownAnswer {
  markdown?: string;
  hidden?: number;
  error?: string;
}

/** Whose text a text op is about: a ref's element, or the frame's body when no ref is given. */
export interface TextScope {
  ref?: string;
}

/** A box in the frame's viewport, CSS px: x, y, width, height. */
export type Box = [number, number, number, number];

export interface RuntimeReads {
  walk: { argument: WalkArgs; answer: WalkAnswer | { error: string } };
  check: { argument: { ref: string; generation: number }; answer: RefCheck };
  refof: { argument: null; answer: string | null };
  'act-target': { argument: ActTargetQuery; answer: ActTarget };
  boxes: { argument: string[]; answer: Record<string, Box> };
  describe: { argument: string; answer: ElementDescription | null };
  present: { argument: Presence; answer: boolean | { error: string } };
  probes: { argument: null; answer: number };
  markdown: { argument: { ref?: string; selector?: string; hidden?: boolean }; answer: MarkdownAnswer };
  'effect-start': { argument: { id: string; ref: string | null }; answer: boolean };
  'effect-count': { argument: { id: string }; answer: number | null };
  'effect-finish': { argument: { id: string }; answer: EffectReading | null };
  /** Where a text is, to drag over it (null: the element's whole text); `missing` with how the element reads when not there. */
  'text-locate': { argument: TextScope & { text: string | null }; answer: TextLocation | { error: 'absent' } };
  /** The text selected by the Selection API (or a field's range, by its offsets). */
  'text-select': { argument: TextScope & ({ text: string | null } | { field: { start: number; end: number } }); answer: boolean };
  /** What is selected now (a field's own selection, else the document's), with the element's shown text. */
  selection: { argument: TextScope; answer: { selection: string; text: string } | { error: 'absent' } };
}

export interface RuntimeElements {
  /** The element showing child frame `prefix` in the latest walk. */
  frame: { argument: string };
  /** A ref's element. */
  ref: { argument: string };
  /** The control the last act-target found. */
  target: { argument: null };
}

export type ReadOp = keyof RuntimeReads;
export type ElementOp = keyof RuntimeElements;
