import { findActTarget } from './act-target.js';
import { EffectWatches } from './effect-watch.js';
import { describeElement } from './element-description.js';
import { messageOf } from './error-message.js';
import { markdownOf } from './markdown.js';
import type { ElementOp, ReadOp, RuntimeElements, RuntimeReads, WalkAnswer } from './ops.js';
import { flatten } from './outline-node.js';
import { encodeOutline } from './outline-wire.js';
import { pageSight } from './page-sight.js';
import { present } from './presence.js';
import { fieldText } from './states.js';
import { pageLines } from './line-safe.js';
import { refOfElement, type WalkState } from './ref-registry.js';
import { locateText, readSelection, selectByScript, selectInField } from './text-range.js';
import { type WalkResult, walkFrameDom } from './walk.js';

/**
 * The page runtime in the snapshot engine's world: a Playwright selector
 * engine registered as a content script, so Playwright evaluates it in the
 * isolated (utility) world of each frame (snapshot/snapshot-engine.ts). It is
 * the only code that runs in that world, so every op of the table
 * (ops.ts) is a "selector": `op:<argument>`, the argument URI-encoded JSON.
 * An answer that is not an element comes back as the text of a detached
 * element that only this world ever holds.
 */

export interface SelectorEngine {
  queryAll(root: Node, body: string): Element[];
  query(root: Node, body: string): Element | null;
}

type Reads = { [Op in ReadOp]: (argument: RuntimeReads[Op]['argument'], root: Node) => RuntimeReads[Op]['answer'] };
type Elements = { [Op in ElementOp]: (argument: RuntimeElements[Op]['argument']) => Element | null | undefined };

export function selectorEngine(): SelectorEngine {
  let state: WalkState | undefined;
  let generation = 0;
  // Playwright may query a selector more than once: one walk per generation.
  let cached: { generation: number; answer: RuntimeReads['walk']['answer'] } | undefined;
  let probes = 0;
  let actTarget: Element | null = null;
  const effects = new EffectWatches();
  const refElement = (ref: string) => state?.refs.get(ref);
  const textScope = (ref: string | undefined): Element | null => {
    const element = ref === undefined ? document.body : refElement(ref);
    return element?.isConnected ? element : null;
  };

  const reads: Reads = {
    walk(argument) {
      if (cached?.generation === argument.generation) return cached.answer;
      let answer: RuntimeReads['walk']['answer'];
      try {
        // What a person can see, measured fresh: the page as it is now.
        const walked = walkFrameDom(argument, state, pageSight());
        state = walked.state;
        generation = argument.generation;
        answer = walkAnswer(walked.result);
      } catch (error) {
        answer = { error: messageOf(error) };
      }
      cached = { generation: argument.generation, answer };
      return answer;
    },
    check({ ref, generation: asked }) {
      if (!state || generation !== asked) return 'navigated';
      const element = state.refs.get(ref);
      if (!element) return 'absent';
      return element.isConnected ? 'ok' : 'removed';
    },
    // The element a locator found (the query's root): its ref of the latest walk, or a new one.
    refof: (_argument, root) => (state && root.nodeType === Node.ELEMENT_NODE && root.isConnected ? refOfElement(state, root as Element) : null),
    'act-target'(query) {
      const { control, answer } = findActTarget(query, state?.refs);
      actTarget = control;
      return answer;
    },
    boxes(refs) {
      const boxes: RuntimeReads['boxes']['answer'] = {};
      for (const ref of refs) {
        const element = refElement(ref);
        if (!element?.isConnected) continue;
        const rect = element.getBoundingClientRect();
        if (rect.width > 0 && rect.height > 0) boxes[ref] = [rect.x, rect.y, rect.width, rect.height];
      }
      return boxes;
    },
    describe(ref) {
      const element = refElement(ref);
      // Counted by Playwright on the Node side (driver/script-recorder.ts).
      return element?.isConnected ? describeElement(element, false) : null;
    },
    present(presence) {
      probes++;
      return present(presence);
    },
    probes: () => probes,
    markdown({ ref, selector, hidden }) {
      let scope: Element | null | undefined = null;
      try {
        if (ref) scope = refElement(ref);
        else if (selector) scope = document.querySelector(selector);
      } catch (error) {
        return { error: messageOf(error) };
      }
      if ((ref || selector) && !scope?.isConnected) return { error: 'absent' };
      // A field's text is what it holds: its value, exactly.
      const held = scope ? fieldText(scope) : undefined;
      if (held !== undefined) return { markdown: pageLines(held), hidden: 0 };
      try {
        return markdownOf(scope ?? null, pageSight(), hidden === true);
      } catch (error) {
        return { error: messageOf(error) };
      }
    },
    'effect-start': ({ id, ref }) => effects.start(id, ref ? (refElement(ref) ?? null) : null),
    'effect-count': ({ id }) => effects.count(id),
    'effect-finish': ({ id }) => effects.finish(id),
    'text-locate'({ ref, text }) {
      const element = textScope(ref);
      return element ? locateText(element, text) : { error: 'absent' };
    },
    'text-select'(argument) {
      const element = textScope(argument.ref);
      if (!element) return false;
      if ('field' in argument) selectInField(element, argument.field);
      else selectByScript(element, argument.text);
      return true;
    },
    selection({ ref }) {
      const element = textScope(ref);
      return element ? readSelection(element) : { error: 'absent' };
    },
  };

  const elements: Elements = {
    frame: (prefix) => state?.frameElements.get(prefix),
    ref: refElement,
    target: () => actTarget,
  };

  const output = (value: unknown): Element[] => {
    const element = document.createElement('clawd-output');
    element.textContent = JSON.stringify(value);
    return [element];
  };
  const run = (body: string, root: Node): Element[] => {
    const colon = body.indexOf(':');
    const op = body.slice(0, colon);
    const argument = JSON.parse(decodeURIComponent(body.slice(colon + 1)));
    if (Object.hasOwn(reads, op)) return output((reads[op as ReadOp] as (argument: unknown, root: Node) => unknown)(argument, root));
    if (Object.hasOwn(elements, op)) {
      const element = (elements[op as ElementOp] as (argument: unknown) => Element | null | undefined)(argument);
      return element?.isConnected ? [element] : [];
    }
    return [];
  };
  return {
    queryAll: (root, body) => run(body, root),
    query: (root, body) => run(body, root)[0] ?? null,
  };
}

/** A walk's result as it crosses the protocol: its nodes flat, its scope as places among them. */
function walkAnswer(result: WalkResult): WalkAnswer {
  const { roots, scope, ...facts } = result;
  const answer: WalkAnswer = { ...encodeOutline(roots), ...facts };
  if (scope) {
    const places = new Map(flatten(roots).map((entry, place) => [entry.node, place]));
    answer.scope = scope.flatMap((node) => (places.has(node) ? [places.get(node)!] : []));
  }
  return answer;
}
