import type { Page } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import { hiddenElementsSource } from '../page-runtime/runtime-source.js';
import { ownWorld } from './own-world.js';

/**
 * `GET /snapshot?format=aria`: Chromium's own accessibility tree of the main
 * frame (CDP Accessibility.getFullAXTree), each node cut down to what says
 * what it is: ignored nodes included, no refs, linked by childIds. What a
 * person cannot see is left out of it by the rules the outline follows
 * (the page runtime's judgement, run in a world of clawd's own, where the
 * page cannot change what the DOM answers): the nodes of those blocks go,
 * and `hidden` counts the blocks; with `hidden`, they stay, each marked.
 */

export interface AriaNode {
  nodeId: string;
  role?: string;
  name?: string;
  value?: unknown;
  /** AX properties by name (focusable, checked, level, url...). */
  properties?: Record<string, unknown>;
  childIds?: string[];
  /** Present (true) only for nodes Chromium leaves out of the accessible tree. */
  ignored?: true;
  /** With `hidden`: a node of a block a person cannot see. */
  hidden?: true;
}

export interface AriaSnapshot {
  nodes: AriaNode[];
  truncated: boolean;
  /** Blocks of text a person cannot see, left out (or, with `hidden`, kept marked); absent when none. */
  hidden?: number;
}

const WORLD = 'clawd-aria';

/** The DOM nodes (backend ids) of the blocks a person cannot see, and how many blocks. */
async function unseen(page: Page): Promise<{ nodes: Set<number>; blocks: number }> {
  const nodes = new Set<number>();
  const { session, contextId } = await ownWorld(page, WORLD, WORLD);
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', { expression: hiddenElementsSource(), contextId, objectGroup: WORLD });
  if (exceptionDetails || !result.objectId) {
    await session.send('Runtime.releaseObjectGroup', { objectGroup: WORLD }).catch(() => {});
    throw new Error(`what a person cannot see could not be judged: ${exceptionDetails?.text ?? 'no answer'}`);
  }
  try {
    const { result: entries } = await session.send('Runtime.getProperties', { objectId: result.objectId, ownProperties: true });
    const blocks = entries.filter((entry) => /^\d+$/.test(entry.name) && entry.value?.objectId);
    const collect = (node: Protocol.DOM.Node) => {
      nodes.add(node.backendNodeId);
      for (const child of [...(node.children ?? []), ...(node.shadowRoots ?? []), ...(node.pseudoElements ?? [])]) collect(child);
    };
    for (const block of blocks) {
      const { node } = await session.send('DOM.describeNode', { objectId: block.value!.objectId!, depth: -1, pierce: true });
      collect(node);
    }
    return { nodes, blocks: blocks.length };
  } finally {
    await session.send('Runtime.releaseObjectGroup', { objectGroup: WORLD }).catch(() => {});
  }
}

export async function ariaSnapshot(page: Page, options: { limit?: number; hidden?: boolean } = {}): Promise<AriaSnapshot> {
  const session = await page.context().newCDPSession(page);
  try {
    const { nodes } = await session.send('Accessibility.getFullAXTree');
    const concealed = await unseen(page);
    // A hidden block's nodes, and theirs in turn (a text's inline boxes have no DOM node of their own).
    const byId = new Map(nodes.map((node) => [node.nodeId, node]));
    const hiddenIds = new Set<string>();
    const hide = (node: Protocol.Accessibility.AXNode) => {
      if (hiddenIds.has(node.nodeId)) return;
      hiddenIds.add(node.nodeId);
      for (const id of node.childIds ?? []) {
        const child = byId.get(id);
        if (child) hide(child);
      }
    };
    for (const node of nodes) if (node.backendDOMNodeId !== undefined && concealed.nodes.has(node.backendDOMNodeId)) hide(node);
    const isHidden = (node: Protocol.Accessibility.AXNode) => hiddenIds.has(node.nodeId);
    const gone = options.hidden ? new Set<string>() : hiddenIds;
    const kept = nodes.filter((node) => !gone.has(node.nodeId));
    const limit = options.limit ?? kept.length;
    return {
      nodes: kept.slice(0, limit).map((node) => {
        const trimmed: AriaNode = { nodeId: node.nodeId };
        if (node.ignored) trimmed.ignored = true;
        if (node.role?.value !== undefined) trimmed.role = String(node.role.value);
        if (node.name?.value !== undefined) trimmed.name = String(node.name.value);
        if (node.value?.value !== undefined) trimmed.value = node.value.value;
        if (node.properties?.length) trimmed.properties = Object.fromEntries(node.properties.map((property) => [property.name, property.value.value]));
        const children = node.childIds?.filter((id) => !gone.has(id));
        if (children?.length) trimmed.childIds = children;
        if (options.hidden && isHidden(node)) trimmed.hidden = true;
        return trimmed;
      }),
      truncated: kept.length > limit,
      ...(concealed.blocks ? { hidden: concealed.blocks } : {}),
    };
  } finally {
    await session.detach().catch(() => {});
  }
}
