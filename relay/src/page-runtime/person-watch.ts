import { describeElement, type ElementDescription } from './element-description.js';
import { flatten } from './outline-node.js';
import { pageSight } from './page-sight.js';
import { walkFrameDom } from './walk.js';

/**
 * The page runtime in a person's world (driver/person/person-watch.ts): put
 * in an isolated world of its own in every document of the tab, it hears what
 * the person does with their own mouse and keyboard and reports it through a
 * CDP binding that only that world holds.
 *
 * - Only trusted events count (`isTrusted`): what a person's hands did, in
 *   their Chrome or through the live view. A page that dispatches events of
 *   its own records nothing, and cannot reach the world or its binding.
 * - Each element is described the moment it is acted on, before a click
 *   can take the page away: the snapshot walk's role and name for it, with
 *   how many nodes of the page share them, and describeElement's label,
 *   test id, text and CSS path, each with its count (replay/locator-choice.ts
 *   picks among them).
 * - A password's value is never read: a field that is or was a password, or
 *   whose autocomplete names a credential, is reported as typed, without it.
 * - `mark` mode is for a person's notes: a click marks the element it is on
 *   and does nothing else (the page does not get it).
 */

export type PersonWatchMode = 'demonstrate' | 'mark' | 'off';

/** What the watch says of the element a person acted on (replay/person-steps.ts's ElementFacts). */
export interface PersonElement extends ElementDescription {
  tag: string;
  type?: string;
  role?: string;
  name?: string;
  /** Nodes of the page's outline with this role and name. */
  nameCount?: number;
}

const CREDENTIAL = /(^|\s)(current-password|new-password|one-time-code|cc-number|cc-csc)(\s|$)/i;
const TEXT_TYPES = ['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range'];
const CLICKABLE =
  'a[href], button, input, select, textarea, summary, label, [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=treeitem], [onclick], [tabindex]';
/** What `typed` last reported of a field that is a secret: never its value. */
const SECRET = '\u0000secret';

type Field = HTMLInputElement | HTMLTextAreaElement;
interface WatchGlobal {
  __clawdPersonWatch?: { mode: PersonWatchMode };
  [binding: string]: unknown;
}

/** Starts the watch in this world, reporting through `binding`; run again, it only changes the mode. */
export function watchPerson(binding: string, mode: PersonWatchMode): void {
  const g = globalThis as unknown as WatchGlobal;
  if (g.__clawdPersonWatch) {
    g.__clawdPersonWatch.mode = mode;
    return;
  }
  const send = g[binding];
  if (typeof send !== 'function' || window !== window.top) return;
  delete g[binding];
  const watch = (g.__clawdPersonWatch = { mode });
  const report = (step: Record<string, unknown>) => {
    try {
      (send as (payload: string) => void)(JSON.stringify({ ...step, url: location.href }));
    } catch {}
  };
  // The same walk as the agent's snapshot, with what a person can see measured fresh, so names match its lines.
  const walk = () => walkFrameDom({ prefix: '', firstFrame: 1, generation: 0 }, undefined, pageSight());

  const facts = (el: Element): PersonElement => {
    const out: Omit<PersonElement, keyof ElementDescription> = { tag: el.tagName.toLowerCase(), type: (el.getAttribute('type') || '').toLowerCase() || undefined };
    try {
      const { result, state } = walk();
      let ref: string | undefined;
      for (const [candidate, element] of state.refs) {
        if (element !== el) continue;
        ref = candidate;
        break;
      }
      const nodes = ref ? flatten(result.roots).map(({ node }) => node) : [];
      const node = nodes.find((candidate) => candidate.ref === ref);
      if (node) {
        out.role = node.role;
        if (node.name !== undefined) {
          out.name = node.name;
          out.nameCount = nodes.filter((other) => other.role === node.role && other.name === node.name).length;
        }
      }
    } catch {}
    // A role and name that match one element already win (replay/locator-choice.ts): the rest is not counted.
    return { ...out, ...describeElement(el, out.nameCount !== 1) };
  };

  // The first walk of a document is the slow one (a page of 30,000 elements: 2.4 s, then 0.18 s): made once it
  // has loaded, not while the person's first click waits for it.
  const warm = () => {
    if (watch.mode !== 'demonstrate') return;
    try {
      walk();
    } catch {}
  };
  if (document.readyState === 'complete') setTimeout(warm, 0);
  else addEventListener('load', () => setTimeout(warm, 0), { once: true });

  const wasSecret = new WeakSet<Element>();
  const isSecret = (el: Element) => {
    if ((el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'password') || CREDENTIAL.test(el.getAttribute('autocomplete') || '')) wasSecret.add(el);
    return wasSecret.has(el);
  };
  for (const field of document.querySelectorAll('input[type=password]')) wasSecret.add(field);
  const targetOf = (event: Event): Element => {
    const first = event.composedPath()[0] as Node | undefined;
    return (first && first.nodeType === 1 ? first : event.target) as Element;
  };
  // A field is known for a password from the moment it is focused as one (a "show password" button may change its type later).
  addEventListener('focusin', (event) => {
    const el = targetOf(event);
    if (el.tagName === 'INPUT') isSecret(el);
  }, true);
  const isTextField = (el: Element | null): el is Field => !!el && ((el.tagName === 'INPUT' && TEXT_TYPES.includes((el.getAttribute('type') || '').toLowerCase())) || el.tagName === 'TEXTAREA');
  const isToggle = (el: Element | null) => !!el && el.tagName === 'INPUT' && ((el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio');
  const editable = (el: Element) => (el as HTMLElement).isContentEditable;
  const reported = new WeakMap<Element, string>();

  const typed = (field: Element) => {
    if (isSecret(field)) {
      if (reported.get(field) === SECRET) return;
      reported.set(field, SECRET);
      return report({ kind: 'type', element: facts(field), secret: true });
    }
    const value = editable(field) ? (field as HTMLElement).innerText : (field as Field).value;
    if (reported.get(field) === value) return;
    reported.set(field, value);
    report({ kind: 'type', element: facts(field), value });
  };

  // Mark mode: the click is the person's pointing, never the page's to act on.
  const swallow = (event: Event) => {
    if (watch.mode !== 'mark' || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'auxclick']) addEventListener(type, swallow, true);

  addEventListener('click', (event) => {
    if (!event.isTrusted || watch.mode === 'off') return;
    const hit = targetOf(event);
    const el = hit.closest?.(CLICKABLE) || hit;
    if (watch.mode === 'mark') {
      swallow(event);
      return report({ kind: 'mark', element: facts(el) });
    }
    // Focusing a field or opening a list is not a step: the typing or the choice is.
    if (isTextField(el) || isToggle(el) || el.tagName === 'SELECT' || el.tagName === 'OPTION' || editable(el)) return;
    if (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'file') return;
    const control = el.tagName === 'LABEL' ? (el as HTMLLabelElement).control : null;
    if (control && (isTextField(control) || isToggle(control) || control.tagName === 'SELECT' || (control as HTMLInputElement).type === 'file')) return;
    report({ kind: 'click', element: facts(el), button: ['left', 'middle', 'right'][event.button] || 'left' });
  }, true);

  addEventListener('change', (event) => {
    if (!event.isTrusted || watch.mode !== 'demonstrate') return;
    const el = targetOf(event);
    if (el.tagName === 'SELECT') return report({ kind: 'select', element: facts(el), values: [...(el as HTMLSelectElement).selectedOptions].map((option) => option.label) });
    if (isToggle(el)) return report({ kind: 'check', element: facts(el), checked: (el as HTMLInputElement).checked });
    if (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'file') return report({ kind: 'upload', element: facts(el), files: [...((el as HTMLInputElement).files || [])].map((file) => file.name) });
    if (isTextField(el)) typed(el);
  }, true);

  // An editor that is not a field (contenteditable) has no change event: its text counts when focus leaves it.
  const edited = new WeakSet<Element>();
  addEventListener('input', (event) => {
    const el = targetOf(event);
    if (event.isTrusted && watch.mode === 'demonstrate' && editable(el)) edited.add(el);
  }, true);
  addEventListener('focusout', (event) => {
    const el = targetOf(event);
    if (watch.mode === 'demonstrate' && edited.has(el)) {
      edited.delete(el);
      typed(el);
    }
  }, true);

  addEventListener('keydown', (event) => {
    if (!event.isTrusted || watch.mode !== 'demonstrate' || event.isComposing) return;
    const el = targetOf(event);
    const inField = isTextField(el) || editable(el);
    const modified = event.ctrlKey || event.metaKey || event.altKey;
    if (event.key === 'Enter' && !modified && el.tagName !== 'TEXTAREA' && !editable(el)) {
      if (isTextField(el)) typed(el);
      return report({ kind: 'press', key: 'Enter', ...(inField || el.tagName === 'SELECT' ? { element: facts(el) } : {}) });
    }
    if (event.key === 'Escape') return report({ kind: 'press', key: 'Escape' });
    if (modified && !inField && !['Control', 'Meta', 'Alt', 'Shift'].includes(event.key)) {
      const keys = [event.ctrlKey && 'Control', event.altKey && 'Alt', event.metaKey && 'Meta', event.shiftKey && 'Shift', event.key.length === 1 ? event.key.toUpperCase() : event.key].filter(Boolean);
      report({ kind: 'press', key: keys.join('+') });
    }
  }, true);
}
