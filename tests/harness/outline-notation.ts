import type { OutlineNode } from '../../relay/src/page-runtime/outline-node.js';

/**
 * Outlines for unit tests, written as the outline reads (`- button "Save"
 * [ref=e3]`, two spaces a level) and read here into nodes, so that a test of
 * the shaping functions (which work on nodes) says its input as a reader
 * sees it. Test notation only: the product renders nodes, and never reads
 * its own text back.
 */

const ENTRY = /^(\s*)- ([^\s:"[]+)(?: ("(?:[^"\\]|\\.)*"))?/;
const FLAGS: Record<string, (node: OutlineNode) => void> = {
  checked: (node) => (node.checked = true),
  'checked=mixed': (node) => (node.checked = 'mixed'),
  pressed: (node) => (node.pressed = true),
  disabled: (node) => (node.disabled = true),
  expanded: (node) => (node.expanded = true),
  'expanded=false': (node) => (node.expanded = false),
  selected: (node) => (node.selected = true),
  required: (node) => (node.required = true),
  readonly: (node) => (node.readonly = true),
  focused: (node) => (node.focused = true),
  draggable: (node) => (node.draggable = true),
};

/** A line's node and its depth; children are not read here. */
function readLine(line: string): { node: OutlineNode; depth: number } {
  const entry = ENTRY.exec(line);
  if (!entry) throw new Error(`not an outline line: ${line}`);
  const node: OutlineNode = { role: entry[2] };
  if (entry[3] !== undefined) node.name = JSON.parse(entry[3]) as string;
  let rest = line.slice(entry[0].length);
  for (;;) {
    const attribute = /^ \[(in=("(?:[^"\\]|\\.)*")|options: ([^\]]*)|([a-z]+)=([^\]]*)|([a-z=]+))\]/.exec(rest);
    if (!attribute) break;
    rest = rest.slice(attribute[0].length);
    if (attribute[2] !== undefined) node.context = JSON.parse(attribute[2]) as string;
    else if (attribute[3] !== undefined) node.options = JSON.parse(`[${attribute[3]}]`) as string[];
    else if (attribute[4] !== undefined && !FLAGS[`${attribute[4]}=${attribute[5]}`]) {
      const [key, value] = [attribute[4], attribute[5]];
      if (key === 'level') node.level = value;
      else if (key === 'value') node.value = value;
      else if (key === 'url') node.url = value;
      else if (key === 'frame') node.frame = value;
      else if (key === 'ref') node.ref = value;
      // Just before the words taken onto an element's line, the mark is the words'.
      else if (key === 'hidden') node[node.role !== 'text' && /^: "/.test(rest) ? 'textHidden' : 'hidden'] = value as OutlineNode['hidden'];
      else throw new Error(`unknown attribute [${key}=…] in: ${line}`);
    } else FLAGS[attribute[6] ?? `${attribute[4]}=${attribute[5]}`](node);
  }
  if (rest.startsWith(': ')) node.text = rest.startsWith(': "') ? (JSON.parse(rest.slice(2)) as string) : rest.slice(2);
  else if (rest !== '' && rest !== ':') throw new Error(`unread ${JSON.stringify(rest)} in: ${line}`);
  // A line that introduces children none of which follow: as a view cut to a depth shows it.
  if (rest === ':') node.folded = true;
  return { node, depth: entry[1].length / 2 };
}

/** The nodes an outline's lines say, nested by their indentation. */
export function outlineOf(lines: string[]): OutlineNode[] {
  const roots: OutlineNode[] = [];
  const open: OutlineNode[] = [];
  for (const line of lines) {
    const { node, depth } = readLine(line);
    open.length = depth;
    if (depth === 0) roots.push(node);
    else {
      const parent = open[depth - 1];
      delete parent.folded;
      (parent.children ??= []).push(node);
    }
    open[depth] = node;
  }
  return roots;
}

/** What one line says of its element: its role, and its name and ref when it has them. */
export function entryOf(line: string): { role: string; name?: string; ref?: string } | undefined {
  if (!ENTRY.test(line)) return undefined;
  const { node } = readLine(line);
  return { role: node.role, ...(node.name !== undefined ? { name: node.name } : {}), ...(node.ref !== undefined ? { ref: node.ref } : {}) };
}
