import { describeElement, type ElementDescription } from './element-description.js';
import { frameSelector } from './frame-locator.js';
import { flatten } from './outline-node.js';
import { pageSight } from './page-sight.js';
import { walkFrameDom } from './walk.js';

/**
 * The page runtime in a person's world (driver/person/person-watch.ts): put
 * in an isolated world of its own in every document of the tab, its frames'
 * included (same-origin and out-of-process alike), it hears what
 * the person does with their own mouse and keyboard and reports it through a
 * CDP binding that only that world holds.
 *
 * - Only trusted events count (`isTrusted`): what a person's hands did, in
 *   their Chrome or through the live view. A page that dispatches events of
 *   its own records nothing, and cannot reach the world or its binding.
 * - Trusted is not enough for a value: the browser marks trusted the
 *   `input` and `change` a page's own script sets off (`checkbox.click()`,
 *   `execCommand('insertText')` then `blur()`, into a field or an editor).
 *   A value counts only when the person's own input reached that element
 *   since its value was last heard (`heardFrom`, below): keys, the browser's
 *   editing (`beforeinput`, which `execCommand` never fires), a paste or a
 *   drop, a pointer on it (or its label), the click that turned a box.
 * - A history navigation (back, forward) counts only after the person's own
 *   keys or mouse buttons for one (`history`): a page's `history.back()`
 *   looks to CDP like the toolbar's button (driver/person/person-watch.ts).
 * - Each element is described the moment it is acted on, before a click
 *   can take the page away: the snapshot walk's role and name for it, with
 *   how many nodes of the page share them, and describeElement's label,
 *   test id, text and CSS path, each with its count (replay/locator-choice.ts
 *   picks among them).
 * - A password's value is never read: a field that is or was a password, or
 *   whose autocomplete names a credential, is reported as typed, without it.
 *   So is any field that takes input while the server types a secret into
 *   the tab (`{{secret:…}}`, `{{totp:…}}`: `secrets`, opened by the driver
 *   before it types and closed after), with the secrets' names.
 * - `mark` mode is for a person's notes: a click marks the element it is on
 *   and does nothing else (the page does not get it).
 */

export type PersonWatchMode = 'demonstrate' | 'mark' | 'off';

/** The server is typing these secrets into the tab now: window `id`, so that a routine tells one field's from several's. */
export interface SecretWindow {
  id: number;
  names: Array<{ name: string; kind: 'secret' | 'totp' }>;
}

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
/** The person's own back and forward: the navigation that follows is theirs. */
const HISTORY_KEYS = /^(Alt\+Arrow(Left|Right)|Meta\+[[\]]|Browser(Back|Forward))$/;

interface WatchState {
  mode: PersonWatchMode;
  secrets: SecretWindow | null;
  /** How a child frame's element is found from this document: the driver asks it, on the element, for a step inside that frame. */
  frameSelector: (owner: Element) => string;
}
interface WatchGlobal {
  __clawdPersonWatch?: WatchState;
  [binding: string]: unknown;
}

/** Starts the watch in this world, reporting through `binding`; run again, it only changes the mode and the secret window. */
export function watchPerson(binding: string, mode: PersonWatchMode, secrets: SecretWindow | null = null): void {
  const g = globalThis as unknown as WatchGlobal;
  if (g.__clawdPersonWatch) {
    Object.assign(g.__clawdPersonWatch, { mode, secrets });
    return;
  }
  const send = g[binding];
  // Every frame the person can act in has its own watch: a step in a child frame is placed by the driver (frame-paths.ts).
  if (typeof send !== 'function') return;
  delete g[binding];
  const watch: WatchState = (g.__clawdPersonWatch = { mode, secrets, frameSelector });
  const report = (step: Record<string, unknown>) => {
    try {
      (send as (payload: string) => void)(JSON.stringify({ ...step, url: location.href }));
    } catch {}
  };
  // The same walk as the agent's snapshot, with what a person can see measured fresh, so names match its lines.
  const walk = () => walkFrameDom({ prefix: '', firstFrame: 1, generation: 0 }, undefined, pageSight());

  const facts = (el: Element): PersonElement => {
    const out: Omit<PersonElement, keyof ElementDescription> = {
      tag: el.tagName.toLowerCase(),
      type: (el.getAttribute('type') || '').toLowerCase() || undefined,
    };
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
  // While the server types a secret, every element that takes input is a secret's field, before anything reads its value
  // (these listeners come first). All of one window's fields are marked: a fill may type several, one of them the secret.
  const secretFrom = new WeakMap<Element, SecretWindow>();
  const typingSecret = (event: Event) => {
    const el = targetOf(event);
    if (watch.secrets && el && el.nodeType === 1) {
      wasSecret.add(el);
      secretFrom.set(el, watch.secrets);
    }
  };
  for (const type of ['keydown', 'beforeinput', 'input', 'paste']) addEventListener(type, typingSecret, true);
  // A field is known for a password from the moment it is focused as one (a "show password" button may change its type later).
  addEventListener(
    'focusin',
    (event) => {
      const el = targetOf(event);
      if (el.tagName === 'INPUT') isSecret(el);
    },
    true,
  );
  const isTextField = (el: Element | null): el is Field =>
    !!el && ((el.tagName === 'INPUT' && TEXT_TYPES.includes((el.getAttribute('type') || '').toLowerCase())) || el.tagName === 'TEXTAREA');
  const isToggle = (el: Element | null) =>
    !!el && el.tagName === 'INPUT' && ((el as HTMLInputElement).type === 'checkbox' || (el as HTMLInputElement).type === 'radio');
  const editable = (el: Element) => (el as HTMLElement).isContentEditable;
  const reported = new WeakMap<Element, string>();

  // The elements the person's own input reached since their value was last heard: a change or an edit of one
  // counts, of any other it is the page's doing. Only trusted events arm it; a report disarms it.
  const heardFrom = new WeakSet<Element>();
  const controlOf = (el: Element): Element | null =>
    (el.tagName === 'LABEL' && (el as HTMLLabelElement).control) || el.closest?.('label')?.control || el.closest?.('select') || el;
  const arm = (event: Event, el: Element | null) => {
    if (event.isTrusted && el && el.nodeType === 1) heardFrom.add(el);
  };
  for (const type of ['keydown', 'beforeinput', 'paste', 'drop', 'compositionstart']) addEventListener(type, (event) => arm(event, targetOf(event)), true);
  // The person's pointer on an element, its label or its list: what comes without keys then (a choice in a list, files,
  // a value picked from the browser's autofill) is theirs.
  addEventListener('pointerdown', (event) => arm(event, controlOf(targetOf(event))), true);
  // A box or a radio turns with the click on it (or on its label, or Space): a trusted one. A script's click() is not.
  addEventListener(
    'click',
    (event) => {
      const el = targetOf(event);
      if (isToggle(el)) arm(event, el);
    },
    true,
  );
  const fromPerson = (el: Element) => {
    const was = heardFrom.has(el);
    heardFrom.delete(el);
    return was;
  };
  // Leaving an element ends it (its change, if any, came first): a page's edit of a field the person only clicked
  // and left is not theirs. A file field keeps it: the chooser takes the focus while the person picks.
  addEventListener(
    'focusout',
    (event) => {
      const el = targetOf(event);
      if (!(el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'file')) heardFrom.delete(el);
    },
    true,
  );

  // A field's own text is what was typed (an editor's): never a handle to find it by, and a secret's never read.
  const typedFacts = (field: Element): PersonElement => ({ ...facts(field), text: '', textCount: 0 });
  const typed = (field: Element) => {
    heardFrom.delete(field);
    if (isSecret(field)) {
      if (reported.get(field) === SECRET) return;
      reported.set(field, SECRET);
      const from = secretFrom.get(field);
      return report({ kind: 'type', element: typedFacts(field), secret: true, ...(from ? { secrets: from } : {}) });
    }
    const value = editable(field) ? (field as HTMLElement).innerText : (field as Field).value;
    if (reported.get(field) === value) return;
    reported.set(field, value);
    report({ kind: 'type', element: typedFacts(field), value });
  };

  // Mark mode: the click is the person's pointing, never the page's to act on.
  const swallow = (event: Event) => {
    if (watch.mode !== 'mark' || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'auxclick']) addEventListener(type, swallow, true);

  addEventListener(
    'click',
    (event) => {
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
    },
    true,
  );

  addEventListener(
    'change',
    (event) => {
      if (!event.isTrusted || watch.mode !== 'demonstrate') return;
      const el = targetOf(event);
      if (!fromPerson(el)) return;
      if (el.tagName === 'SELECT')
        return report({ kind: 'select', element: facts(el), values: [...(el as HTMLSelectElement).selectedOptions].map((option) => option.label) });
      if (isToggle(el)) return report({ kind: 'check', element: facts(el), checked: (el as HTMLInputElement).checked });
      if (el.tagName === 'INPUT' && (el as HTMLInputElement).type === 'file')
        return report({ kind: 'upload', element: facts(el), files: [...((el as HTMLInputElement).files || [])].map((file) => file.name) });
      if (isTextField(el)) typed(el);
    },
    true,
  );

  // An editor that is not a field (contenteditable) has no change event: its text counts when focus leaves it.
  const edited = new WeakSet<Element>();
  addEventListener(
    'input',
    (event) => {
      const el = targetOf(event);
      if (event.isTrusted && watch.mode === 'demonstrate' && editable(el) && fromPerson(el)) edited.add(el);
    },
    true,
  );
  addEventListener(
    'focusout',
    (event) => {
      const el = targetOf(event);
      if (watch.mode === 'demonstrate' && edited.has(el)) {
        edited.delete(el);
        typed(el);
      }
    },
    true,
  );

  // The person's own back and forward (keys, the mouse's side buttons): the navigation that follows is theirs.
  addEventListener(
    'mouseup',
    (event) => {
      if (event.isTrusted && watch.mode === 'demonstrate' && (event.button === 3 || event.button === 4)) report({ kind: 'history' });
    },
    true,
  );

  addEventListener(
    'keydown',
    (event) => {
      if (!event.isTrusted || watch.mode !== 'demonstrate' || event.isComposing) return;
      const chord = (event.altKey ? 'Alt+' : '') + (event.metaKey ? 'Meta+' : '') + event.key;
      if (HISTORY_KEYS.test(chord) && !event.ctrlKey && !event.shiftKey) return report({ kind: 'history' });
      const el = targetOf(event);
      const inField = isTextField(el) || editable(el);
      const modified = event.ctrlKey || event.metaKey || event.altKey;
      if (event.key === 'Enter' && !modified && el.tagName !== 'TEXTAREA' && !editable(el)) {
        if (isTextField(el)) typed(el);
        return report({ kind: 'press', key: 'Enter', ...(inField || el.tagName === 'SELECT' ? { element: facts(el) } : {}) });
      }
      if (event.key === 'Escape') return report({ kind: 'press', key: 'Escape' });
      if (modified && !inField && !['Control', 'Meta', 'Alt', 'Shift'].includes(event.key)) {
        const keys = [
          event.ctrlKey && 'Control',
          event.altKey && 'Alt',
          event.metaKey && 'Meta',
          event.shiftKey && 'Shift',
          event.key.length === 1 ? event.key.toUpperCase() : event.key,
        ].filter(Boolean);
        report({ kind: 'press', key: keys.join('+') });
      }
    },
    true,
  );
}
