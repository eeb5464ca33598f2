import type { Page } from 'playwright-core';

/**
 * `GET /snapshot?format=aria`: Chromium's own accessibility tree of the main
 * frame (CDP Accessibility.getFullAXTree), each node cut down to what says
 * what it is. Unlike the `ai` outline it is untouched: ignored nodes included,
 * no refs, linked by childIds.
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
}

export interface AriaSnapshot {
  nodes: AriaNode[];
  truncated: boolean;
}

export async function ariaSnapshot(page: Page, options: { limit?: number } = {}): Promise<AriaSnapshot> {
  const session = await page.context().newCDPSession(page);
  try {
    const { nodes } = await session.send('Accessibility.getFullAXTree');
    const limit = options.limit ?? nodes.length;
    return {
      nodes: nodes.slice(0, limit).map((node) => {
        const trimmed: AriaNode = { nodeId: node.nodeId };
        if (node.ignored) trimmed.ignored = true;
        if (node.role?.value !== undefined) trimmed.role = String(node.role.value);
        if (node.name?.value !== undefined) trimmed.name = String(node.name.value);
        if (node.value?.value !== undefined) trimmed.value = node.value.value;
        if (node.properties?.length) trimmed.properties = Object.fromEntries(node.properties.map((property) => [property.name, property.value.value]));
        if (node.childIds?.length) trimmed.childIds = node.childIds;
        return trimmed;
      }),
      truncated: nodes.length > limit,
    };
  } finally {
    await session.detach().catch(() => {});
  }
}
