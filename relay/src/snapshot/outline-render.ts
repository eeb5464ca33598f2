import { quoted, unbroken } from '../page-runtime/line-safe.js';
import { type OutlineNode, TEXT_ROLE } from '../page-runtime/outline-node.js';

/**
 * The outline as text, written once, at the end (ai-snapshot.ts): each node
 * is one line, `<2 spaces a level>- role "name" [states] [ref=e5]`, a line
 * that introduces children ends with `:`, and an element's only text sits
 * on its line (`- listitem: "Apples"`). Every string of the page's making is
 * quoted or unbroken (page-runtime/line-safe.ts): whatever it holds, a line
 * is always one node.
 */

/** A line of an answer: a node's (with the node, and in a diff its mark), or a note of ours (no node). */
export interface OutlineLine {
  text: string;
  node?: OutlineNode;
  /** In a diff: ' ' a line for context, '+' added, '-' removed, '~' changed. */
  mark?: ' ' | '+' | '-' | '~';
}

export interface LineParts {
  /** Without `[ref=…]`: what a find matches a line on. */
  ref?: boolean;
  /** Without `[url=…]`. */
  url?: boolean;
  /** Without `[focused]`: what a diff compares (focus moves with nearly every act). */
  focused?: boolean;
}

const WHOLE: LineParts = {};

/** A node's own line: no indent, no `- `, and no colon for its children (its taken-in text included). */
export function nodeLine(node: OutlineNode, parts: LineParts = WHOLE): string {
  let line = unbroken(node.role);
  if (node.name !== undefined) line += ` ${quoted(node.name)}`;
  if (node.level !== undefined) line += ` [level=${unbroken(node.level)}]`;
  if (node.checked === 'mixed') line += ' [checked=mixed]';
  else if (node.checked) line += ' [checked]';
  if (node.pressed) line += ' [pressed]';
  if (node.disabled) line += ' [disabled]';
  if (node.expanded === true) line += ' [expanded]';
  else if (node.expanded === false) line += ' [expanded=false]';
  if (node.selected) line += ' [selected]';
  if (node.required) line += ' [required]';
  if (node.readonly) line += ' [readonly]';
  if (node.focused && parts.focused !== false) line += ' [focused]';
  // Quoted and exact, as an agent may need to copy it; a long one is cut, saying how much is left (`text --ref` reads it all).
  if (node.value !== undefined) line += ` [value=${quoted(node.value)}${node.valueMore ? `…+${node.valueMore} chars` : ''}]`;
  if (node.url !== undefined && parts.url !== false) line += ` [url=${unbroken(node.url)}]`;
  if (node.draggable) line += ' [draggable]';
  if (node.options) line += ` [options: ${[...node.options.map(quoted), ...(node.moreOptions ? [`and ${node.moreOptions} more`] : [])].join(', ')}]`;
  if (node.frame !== undefined) line += ` [frame=${node.frame}]`;
  if (node.hidden) line += ` [hidden=${node.hidden}]`;
  if (node.context !== undefined) line += ` [in=${quoted(node.context)}]`;
  if (node.ref !== undefined && parts.ref !== false) line += ` [ref=${node.ref}]`;
  if (node.text !== undefined) line += `${node.textHidden ? ` [hidden=${node.textHidden}]` : ''}: ${quoted(node.text)}`;
  return line;
}

const indents: string[] = [''];
const indent = (depth: number): string => {
  while (indents.length <= depth) indents.push(indents[indents.length - 1] + '  ');
  return indents[depth];
};

/** The whole line of a node at a depth, as the outline shows it. */
export function fullLine(node: OutlineNode, depth: number, parts: LineParts = WHOLE): string {
  return `${indent(depth)}- ${nodeLine(node, parts)}${(node.children?.length || node.folded) && node.text === undefined ? ':' : ''}`;
}

/** Every node of a forest as its line, in document order. */
export function renderOutline(roots: OutlineNode[]): OutlineLine[] {
  const lines: OutlineLine[] = [];
  const write = (nodes: OutlineNode[], depth: number): void => {
    for (const node of nodes) {
      lines.push({ text: fullLine(node, depth), node });
      if (node.children) write(node.children, depth + 1);
    }
  };
  write(roots, 0);
  return lines;
}

/** A forest's text alone, written in one go: what an answer that no line cut holds. */
export function renderText(roots: OutlineNode[]): string {
  let text = '';
  const write = (nodes: OutlineNode[], depth: number): void => {
    for (const node of nodes) {
      text += `${fullLine(node, depth)}\n`;
      if (node.children) write(node.children, depth + 1);
    }
  };
  write(roots, 0);
  return text.slice(0, -1);
}

/** Whether a node is a run of text. */
export const isText = (node: OutlineNode): boolean => node.role === TEXT_ROLE;
