import type { Concealment, OutlineNode } from './outline-node.js';

/**
 * How a walk's nodes cross the protocol: one flat array, in document order,
 * each node a role number (into `roles`, the roles this walk met), a number
 * of flags saying which fields follow and which states hold, its child
 * count when it has children, then its fields. A ref is sent as its number
 * (the frame's prefix is known on both sides). About the size of the
 * outline's own text, and parsed as one JSON value: thousands of objects
 * would cost the page more to make and the protocol more to carry.
 */

export interface WireOutline {
  roles: string[];
  nodes: Array<string | number>;
}

const NAME = 1;
const TEXT = 2;
const REF = 4;
const CHILDREN = 8;
const VALUE = 16;
const URL = 32;
const LEVEL = 64;
const OPTIONS = 128;
const FRAME = 256;
const HIDDEN = 512;
const TEXT_HIDDEN = 1024;
const CHECKED = 2048;
const MIXED = 4096;
const PRESSED = 8192;
const DISABLED = 16384;
const EXPANDED = 32768;
const COLLAPSED = 65536;
const SELECTED = 131072;
const REQUIRED = 262144;
const READONLY = 524288;
const FOCUSED = 1048576;
const DRAGGABLE = 2097152;
const CONTROL = 4194304;

function flagsOf(node: OutlineNode): number {
  let flags = 0;
  if (node.name !== undefined) flags |= NAME;
  if (node.text !== undefined) flags |= TEXT;
  if (node.ref !== undefined) flags |= REF;
  if (node.children?.length) flags |= CHILDREN;
  if (node.value !== undefined) flags |= VALUE;
  if (node.url !== undefined) flags |= URL;
  if (node.level !== undefined) flags |= LEVEL;
  if (node.options !== undefined) flags |= OPTIONS;
  if (node.frame !== undefined) flags |= FRAME;
  if (node.hidden) flags |= HIDDEN;
  if (node.textHidden) flags |= TEXT_HIDDEN;
  if (node.checked === true) flags |= CHECKED;
  if (node.checked === 'mixed') flags |= MIXED;
  if (node.pressed) flags |= PRESSED;
  if (node.disabled) flags |= DISABLED;
  if (node.expanded === true) flags |= EXPANDED;
  if (node.expanded === false) flags |= COLLAPSED;
  if (node.selected) flags |= SELECTED;
  if (node.required) flags |= REQUIRED;
  if (node.readonly) flags |= READONLY;
  if (node.focused) flags |= FOCUSED;
  if (node.draggable) flags |= DRAGGABLE;
  if (node.control) flags |= CONTROL;
  return flags;
}

/** The nodes as one array (in the page). Refs must carry the frame's prefix: they are sent as their number. */
export function encodeOutline(roots: OutlineNode[]): WireOutline {
  const roles: string[] = [];
  const codes = new Map<string, number>();
  const out: Array<string | number> = [];
  const put = (node: OutlineNode): void => {
    let code = codes.get(node.role);
    if (code === undefined) codes.set(node.role, (code = roles.push(node.role) - 1));
    const flags = flagsOf(node);
    out.push(code, flags);
    if (flags & CHILDREN) out.push(node.children!.length);
    if (flags & NAME) out.push(node.name!);
    if (flags & TEXT) out.push(node.text!);
    if (flags & REF) out.push(Number(node.ref!.slice(node.ref!.lastIndexOf('e') + 1)));
    if (flags & VALUE) out.push(node.value!, node.valueMore ?? 0);
    if (flags & URL) out.push(node.url!);
    if (flags & LEVEL) out.push(node.level!);
    if (flags & OPTIONS) out.push(node.options!.length, ...node.options!, node.moreOptions ?? 0);
    if (flags & FRAME) out.push(node.frame!);
    if (flags & HIDDEN) out.push(node.hidden!);
    if (flags & TEXT_HIDDEN) out.push(node.textHidden!);
    if (flags & CHILDREN) for (const child of node.children!) put(child);
  };
  for (const root of roots) put(root);
  return { roles, nodes: out };
}

/** The nodes again (on the Node side), and every node in document order (a walk names its scope by those places). */
export function decodeOutline(wire: WireOutline, prefix: string): { roots: OutlineNode[]; ordered: OutlineNode[] } {
  const { roles, nodes } = wire;
  const ordered: OutlineNode[] = [];
  let at = 0;
  const take = (): OutlineNode => {
    const node: OutlineNode = { role: roles[nodes[at++] as number] };
    ordered.push(node);
    const flags = nodes[at++] as number;
    const count = flags & CHILDREN ? (nodes[at++] as number) : 0;
    if (flags & NAME) node.name = nodes[at++] as string;
    if (flags & TEXT) node.text = nodes[at++] as string;
    if (flags & REF) node.ref = `${prefix}e${nodes[at++] as number}`;
    if (flags & VALUE) {
      node.value = nodes[at++] as string;
      const more = nodes[at++] as number;
      if (more) node.valueMore = more;
    }
    if (flags & URL) node.url = nodes[at++] as string;
    if (flags & LEVEL) node.level = nodes[at++] as string;
    if (flags & OPTIONS) {
      const length = nodes[at++] as number;
      node.options = nodes.slice(at, at + length) as string[];
      at += length;
      const more = nodes[at++] as number;
      if (more) node.moreOptions = more;
    }
    if (flags & FRAME) node.frame = nodes[at++] as string;
    if (flags & HIDDEN) node.hidden = nodes[at++] as Concealment;
    if (flags & TEXT_HIDDEN) node.textHidden = nodes[at++] as Concealment;
    if (flags & CHECKED) node.checked = true;
    if (flags & MIXED) node.checked = 'mixed';
    if (flags & PRESSED) node.pressed = true;
    if (flags & DISABLED) node.disabled = true;
    if (flags & EXPANDED) node.expanded = true;
    if (flags & COLLAPSED) node.expanded = false;
    if (flags & SELECTED) node.selected = true;
    if (flags & REQUIRED) node.required = true;
    if (flags & READONLY) node.readonly = true;
    if (flags & FOCUSED) node.focused = true;
    if (flags & DRAGGABLE) node.draggable = true;
    if (flags & CONTROL) node.control = true;
    if (count) {
      node.children = [];
      for (let i = 0; i < count; i++) node.children.push(take());
    }
    return node;
  };
  const roots: OutlineNode[] = [];
  while (at < nodes.length) roots.push(take());
  return { roots, ordered };
}
