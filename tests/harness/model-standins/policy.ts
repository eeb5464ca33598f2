import { PNG } from 'pngjs';

/**
 * The stand-ins' model: rules, not weights. It reads the goal it was given
 * and what the tools answered (the latest snapshot, or the latest
 * screenshot's pixels) and decides the next call, as a model would, from
 * the transcript alone (the servers keep no state between requests but
 * what the API itself keeps).
 *
 * The goal's sentences it understands, in order:
 *   open URL · type "TEXT" into "NAME" · click "NAME" · select "VALUE" in "NAME" · wait for "TEXT"
 *   · answer with the text after "LABEL" · answer "TEXT" · never stop
 * and, for the computer runtime, "click the green square".
 */

export interface PastCall {
  name: string;
  args: Record<string, unknown>;
}

/** What the model has seen: the goal, its earlier calls in order, the last tool answer's text and picture. */
export interface Transcript {
  goal: string;
  calls: PastCall[];
  lastResult?: string;
  lastPicture?: Buffer;
  /** The latest snapshot text among the tool answers. */
  lastSnapshot?: string;
  /** Whether the last tool answer came after the last snapshot was taken (the page may have changed). */
  snapshotIsStale: boolean;
}

export type Decision = { call: { name: string; args: Record<string, unknown> }; say?: string } | { answer: string };

type Directive =
  | { kind: 'open'; url: string }
  | { kind: 'type'; text: string; name: string }
  | { kind: 'click'; name: string }
  | { kind: 'select'; value: string; name: string }
  | { kind: 'wait'; text: string }
  | { kind: 'answer-after'; label: string }
  | { kind: 'answer'; text: string }
  | { kind: 'forever' };

export function directives(goal: string): Directive[] {
  const found: Array<{ at: number; directive: Directive }> = [];
  const scan = (pattern: RegExp, make: (match: RegExpExecArray) => Directive) => {
    for (const match of goal.matchAll(new RegExp(pattern.source, 'gi'))) found.push({ at: match.index ?? 0, directive: make(match as RegExpExecArray) });
  };
  scan(/\b(?:open|go to) (https?:\/\/\S+?)(?=[\s,;]|\.?$)/, (m) => ({ kind: 'open', url: m[1] }));
  scan(/\btype "([^"]*)" into (?:the )?"([^"]+)"/, (m) => ({ kind: 'type', text: m[1], name: m[2] }));
  scan(/\bclick (?:the )?"([^"]+)"/, (m) => ({ kind: 'click', name: m[1] }));
  scan(/\bselect "([^"]+)" in (?:the )?"([^"]+)"/, (m) => ({ kind: 'select', value: m[1], name: m[2] }));
  scan(/\bwait for "([^"]+)"/, (m) => ({ kind: 'wait', text: m[1] }));
  scan(/\banswer with the text after "([^"]+)"/, (m) => ({ kind: 'answer-after', label: m[1] }));
  scan(/\banswer "([^"]+)"/, (m) => ({ kind: 'answer', text: m[1] }));
  scan(/\bnever stop\b/, () => ({ kind: 'forever' }));
  return found.sort((a, b) => a.at - b.at).map((entry) => entry.directive);
}

/** The ref of the first snapshot line naming `name` with one of these roles. */
function refOf(snapshot: string, name: string, roles: string[]): string | undefined {
  const quoted = `"${name}"`;
  for (const line of snapshot.split('\n')) {
    if (!line.includes(quoted) || !roles.some((role) => line.includes(`${role} ${quoted}`))) continue;
    const ref = /\[ref=([\w]+)\]/.exec(line)?.[1];
    if (ref) return ref;
  }
  return undefined;
}

const TEXT_ROLES = ['textbox', 'searchbox', 'combobox', 'spinbutton'];
const CLICK_ROLES = ['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'option', 'switch'];

/**
 * The same decision in the words of the tools the model was given: clawd's
 * (`browser_act`), or Playwright MCP's (`browser_click`, `browser_type`,
 * `browser_select_option`, each with the element's description and its
 * ref as `target`, as its 0.0.8x schemas name them).
 */
export function inToolsOf(decision: Decision, tools: string[]): Decision {
  if (!('call' in decision) || decision.call.name !== 'browser_act' || tools.includes('browser_act')) return decision;
  const { kind, ref, text, values } = decision.call.args as { kind: string; ref: string; text?: string; values?: string[] };
  const element = `the element ${ref}`;
  if (kind === 'click') return { call: { name: 'browser_click', args: { element, target: ref } } };
  if (kind === 'type') return { call: { name: 'browser_type', args: { element, target: ref, text } } };
  if (kind === 'select') return { call: { name: 'browser_select_option', args: { element, target: ref, values } } };
  return { call: { name: 'browser_wait_for', args: { text } } };
}

/** The tools runtime: the next page-tool call, or the answer. */
export function decideWithTools(seen: Transcript, tools: string[] = ['browser_act']): Decision {
  return inToolsOf(decideInClawdTools(seen), tools);
}

function decideInClawdTools(seen: Transcript): Decision {
  const steps = directives(seen.goal);
  const acted = seen.calls.filter((call) => call.name !== 'browser_snapshot');
  // An act that failed (clawd's `Error:`, Playwright MCP's `### Error`): a model says so rather than pretending.
  const failure = /^(?:Error:|### Error\n)\s*(.*)/.exec(seen.lastResult ?? '');
  if (failure) return { answer: `I could not do it: ${failure[1]}` };
  if (steps.some((step) => step.kind === 'forever')) return { call: { name: 'browser_snapshot', args: { interactive: true } } };
  const next = steps[acted.length];
  if (!next) return { answer: 'Done.' };
  if (next.kind === 'open') return { call: { name: 'browser_navigate', args: { url: next.url } }, say: `Opening ${next.url}.` };
  if (next.kind === 'answer') return { answer: next.text };
  if (next.kind === 'wait') return { call: { name: 'browser_act', args: { kind: 'wait', text: next.text } } };
  if (!seen.lastSnapshot || seen.snapshotIsStale) return { call: { name: 'browser_snapshot', args: {} } };
  const snapshot = seen.lastSnapshot;
  switch (next.kind) {
    case 'type': {
      const ref = refOf(snapshot, next.name, TEXT_ROLES);
      return ref ? { call: { name: 'browser_act', args: { kind: 'type', ref, text: next.text } } } : { answer: `I could not find the field "${next.name}".` };
    }
    case 'click': {
      const ref = refOf(snapshot, next.name, CLICK_ROLES);
      return ref ? { call: { name: 'browser_act', args: { kind: 'click', ref } } } : { answer: `I could not find "${next.name}" to click.` };
    }
    case 'select': {
      const ref = refOf(snapshot, next.name, ['combobox', 'listbox']);
      return ref
        ? { call: { name: 'browser_act', args: { kind: 'select', ref, values: [next.value] } } }
        : { answer: `I could not find the list "${next.name}".` };
    }
    case 'answer-after': {
      const match = new RegExp(`${next.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*([^"\\n\\]]+)`).exec(snapshot);
      return { answer: match ? match[1].trim() : `I could not find "${next.label}" on the page.` };
    }
    default:
      return { answer: 'Done.' };
  }
}

/** The middle of the green pixels of a PNG screenshot (a pure-ish #00A000 target), if any. */
export function greenTarget(png: Buffer): { x: number; y: number } | undefined {
  const image = PNG.sync.read(png);
  let sumX = 0;
  let sumY = 0;
  let count = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const at = (y * image.width + x) * 4;
      const [r, g, b] = [image.data[at], image.data[at + 1], image.data[at + 2]];
      if (g > 130 && r < 60 && b < 60) {
        sumX += x;
        sumY += y;
        count++;
      }
    }
  }
  return count > 50 ? { x: Math.round(sumX / count), y: Math.round(sumY / count) } : undefined;
}

/** The computer runtime: a click on the green square while there is one (three tries), then the answer. */
export function decideWithScreen(seen: Transcript): Decision {
  const open = directives(seen.goal).find((step): step is Extract<Directive, { kind: 'open' }> => step.kind === 'open');
  if (open && !seen.calls.some((call) => call.name === 'navigate')) return { call: { name: 'navigate', args: { url: open.url } } };
  if (seen.lastResult?.startsWith('Error:')) return { answer: `I could not do it: ${seen.lastResult.replace(/^Error:\s*/, '').split('\n')[0]}` };
  if (/never stop/i.test(seen.goal)) return { call: { name: 'computer', args: { action: 'wait' } } };
  const target = seen.lastPicture ? greenTarget(seen.lastPicture) : undefined;
  const clicks = seen.calls.filter((call) => call.name === 'computer' && /click/.test(String(call.args.action ?? call.args.type))).length;
  if (target && clicks < 3)
    return {
      call: { name: 'computer', args: { action: 'left_click', coordinate: [target.x, target.y] } },
      say: `Clicking the green square at ${target.x},${target.y}.`,
    };
  if (target) return { answer: 'The green square is still there after three clicks.' };
  return { answer: clicks ? 'I clicked the green square; it is gone.' : 'There is no green square on the screen.' };
}

/** Tokens as a stand-in counts them: about four characters each (a picture counts as its base64's quarter, capped). */
export function tokensOf(value: unknown): number {
  const text = JSON.stringify(value) ?? '';
  return Math.max(1, Math.ceil(text.replace(/[A-Za-z0-9+/=]{2000,}/g, (data) => 'x'.repeat(Math.min(data.length, 6000))).length / 4));
}
