import { describeElement } from '../../snapshot/element-description.js';
import { snapshotFrameDom } from '../../snapshot/page-script.js';
import { paintMath } from '../../snapshot/page-paint.js';
import { pageSight } from '../../snapshot/page-sight.js';

/**
 * The in-page half of a person's watch (person-watch.ts): the source put in
 * an isolated world of its own in every document of the tab, which hears
 * what the person does with their own mouse and keyboard and reports it
 * through a CDP binding that only that world holds.
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
 *   looks to CDP like the toolbar's button (person-watch.ts).
 * - Each element is described the moment it is acted on, before a click
 *   can take the page away: the snapshot walk's role and name for it, with
 *   how many lines of the page share them, and describeElement's label,
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

/** A snapshot-walk line's role and name, as shaping.ts's outlineEntry reads it. */
const LINE_ENTRY = /^\s*- ([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?/;

/** The source for Page.addScriptToEvaluateOnNewDocument in the watch's world; run again, it only changes the mode and the secret window. */
export function personWatchSource(binding: string, mode: PersonWatchMode, secrets?: SecretWindow): string {
  const state = `mode: ${JSON.stringify(mode)}, secrets: ${JSON.stringify(secrets ?? null)}`;
  // esbuild with keepNames (what tsx runs) inserts __name(...) calls into function bodies.
  return `(() => {
  const __name = (fn) => fn;
  const g = globalThis;
  if (g.__clawdPersonWatch) { Object.assign(g.__clawdPersonWatch, { ${state} }); return; }
  const send = g[${JSON.stringify(binding)}];
  if (typeof send !== 'function' || window !== window.top) return;
  delete g[${JSON.stringify(binding)}];
  const watch = (g.__clawdPersonWatch = { ${state} });
  const walkDom = (${snapshotFrameDom.toString()});
  // The same walk as the agent's snapshot, with what a person can see measured fresh (page-sight.ts), so names match its lines.
  const pageSight = (${pageSight.toString()});
  const paintMath = (${paintMath.toString()});
  const walk = (args, previous) => walkDom(args, previous, pageSight(paintMath()));
  const describeElement = (${describeElement.toString()});
  const ENTRY = ${LINE_ENTRY.toString()};
  const report = (step) => { try { send(JSON.stringify({ ...step, url: location.href })); } catch {} };

  const facts = (el) => {
    const out = { tag: el.tagName.toLowerCase(), type: (el.getAttribute('type') || '').toLowerCase() || undefined };
    try {
      const { result, state } = walk({ prefix: '', firstFrame: 1, limit: 1e9, generation: 0 }, undefined);
      let ref;
      for (const [candidate, element] of state.refs) if (element === el) { ref = candidate; break; }
      const lines = ref ? result.text.split('\\n') : [];
      const line = ref && lines.find((text) => text.includes('[ref=' + ref + ']'));
      const entry = line && ENTRY.exec(line);
      if (entry) {
        out.role = entry[1];
        if (entry[2]) {
          out.name = JSON.parse(entry[2]);
          const key = '- ' + entry[1] + ' ' + entry[2];
          out.nameCount = lines.filter((text) => { const t = text.trimStart(); return t.startsWith(key) && /^($|[ :])/.test(t.slice(key.length)); }).length;
        }
      }
    } catch {}
    // A role and name that match one element already win (replay/locator-choice.ts): the rest is not counted.
    return { ...out, ...describeElement(el, out.nameCount !== 1) };
  };

  // The first walk of a document is the slow one (a page of 30,000 elements: 2.4 s, then 0.18 s): made once it
  // has loaded, not while the person's first click waits for it.
  const warm = () => { if (watch.mode === 'demonstrate') try { walk({ prefix: '', firstFrame: 1, limit: 1e9, generation: 0 }, undefined); } catch {} };
  if (document.readyState === 'complete') setTimeout(warm, 0);
  else addEventListener('load', () => setTimeout(warm, 0), { once: true });

  const CREDENTIAL = /(^|\\s)(current-password|new-password|one-time-code|cc-number|cc-csc)(\\s|$)/i;
  const wasSecret = new WeakSet();
  const isSecret = (el) => {
    if ((el.tagName === 'INPUT' && el.type === 'password') || CREDENTIAL.test(el.getAttribute('autocomplete') || '')) wasSecret.add(el);
    return wasSecret.has(el);
  };
  for (const field of document.querySelectorAll('input[type=password]')) wasSecret.add(field);
  // While the server types a secret, every element that takes input is a secret's field, before anything reads its value
  // (these listeners come first). All of one window's fields are marked: a fill may type several, one of them the secret.
  const secretFrom = new WeakMap();
  const typingSecret = (event) => { const el = targetOf(event); if (watch.secrets && el && el.nodeType === 1) { wasSecret.add(el); secretFrom.set(el, watch.secrets); } };
  for (const type of ['keydown', 'beforeinput', 'input', 'paste']) addEventListener(type, typingSecret, true);
  // A field is known for a password from the moment it is focused as one (a "show password" button may change its type later).
  addEventListener('focusin', (event) => { const el = targetOf(event); if (el.tagName === 'INPUT') isSecret(el); }, true);
  const TEXT_TYPES = ['', 'text', 'email', 'password', 'search', 'tel', 'url', 'number', 'date', 'datetime-local', 'month', 'week', 'time', 'color', 'range'];
  const isTextField = (el) => el && ((el.tagName === 'INPUT' && TEXT_TYPES.includes((el.getAttribute('type') || '').toLowerCase())) || el.tagName === 'TEXTAREA');
  const isToggle = (el) => el && el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio');
  const targetOf = (event) => { const first = event.composedPath()[0]; return first && first.nodeType === 1 ? first : event.target; };
  const CLICKABLE = 'a[href], button, input, select, textarea, summary, label, [role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=option], [role=treeitem], [onclick], [tabindex]';
  const reported = new WeakMap();

  // The elements the person's own input reached since their value was last heard: a change or an edit of one
  // counts, of any other it is the page's doing. Only trusted events arm it; a report disarms it.
  const heardFrom = new WeakSet();
  const controlOf = (el) => (el.tagName === 'LABEL' && el.control) || (el.closest && el.closest('label') && el.closest('label').control) || (el.closest && el.closest('select')) || el;
  const arm = (event, el) => { if (event.isTrusted && el && el.nodeType === 1) heardFrom.add(el); };
  for (const type of ['keydown', 'beforeinput', 'paste', 'drop', 'compositionstart']) addEventListener(type, (event) => arm(event, targetOf(event)), true);
  // The person's pointer on an element, its label or its list: what comes without keys then (a choice in a list, files,
  // a value picked from the browser's autofill) is theirs.
  addEventListener('pointerdown', (event) => arm(event, controlOf(targetOf(event))), true);
  // A box or a radio turns with the click on it (or on its label, or Space): a trusted one. A script's click() is not.
  addEventListener('click', (event) => { const el = targetOf(event); if (isToggle(el)) arm(event, el); }, true);
  const fromPerson = (el) => { const was = heardFrom.has(el); heardFrom.delete(el); return was; };
  // Leaving an element ends it (its change, if any, came first): a page's edit of a field the person only clicked
  // and left is not theirs. A file field keeps it: the chooser takes the focus while the person picks.
  addEventListener('focusout', (event) => { const el = targetOf(event); if (!(el.tagName === 'INPUT' && el.type === 'file')) heardFrom.delete(el); }, true);

  const typed = (field) => {
    heardFrom.delete(field);
    if (isSecret(field)) {
      if (reported.get(field) === '\\u0000secret') return;
      reported.set(field, '\\u0000secret');
      const from = secretFrom.get(field);
      return report({ kind: 'type', element: typedFacts(field), secret: true, ...(from ? { secrets: from } : {}) });
    }
    const value = field.isContentEditable ? field.innerText : field.value;
    if (reported.get(field) === value) return;
    reported.set(field, value);
    report({ kind: 'type', element: typedFacts(field), value });
  };
  // A field's own text is what was typed (an editor's): never a handle to find it by, and a secret's never read.
  const typedFacts = (field) => ({ ...facts(field), text: '', textCount: 0 });

  // Mark mode: the click is the person's pointing, never the page's to act on.
  const swallow = (event) => {
    if (watch.mode !== 'mark' || !event.isTrusted) return;
    event.preventDefault();
    event.stopImmediatePropagation();
  };
  for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'dblclick', 'auxclick']) addEventListener(type, swallow, true);

  addEventListener('click', (event) => {
    if (!event.isTrusted || watch.mode === 'off') return;
    const hit = targetOf(event);
    const el = (hit.closest && hit.closest(CLICKABLE)) || hit;
    if (watch.mode === 'mark') {
      swallow(event);
      return report({ kind: 'mark', element: facts(el) });
    }
    // Focusing a field or opening a list is not a step: the typing or the choice is.
    if (isTextField(el) || isToggle(el) || el.tagName === 'SELECT' || el.tagName === 'OPTION' || el.isContentEditable) return;
    if (el.tagName === 'INPUT' && el.type === 'file') return;
    if (el.tagName === 'LABEL' && el.control && (isTextField(el.control) || isToggle(el.control) || el.control.tagName === 'SELECT' || el.control.type === 'file')) return;
    report({ kind: 'click', element: facts(el), button: ['left', 'middle', 'right'][event.button] || 'left' });
  }, true);

  addEventListener('change', (event) => {
    if (!event.isTrusted || watch.mode !== 'demonstrate') return;
    const el = targetOf(event);
    if (!fromPerson(el)) return;
    if (el.tagName === 'SELECT') return report({ kind: 'select', element: facts(el), values: [...el.selectedOptions].map((option) => option.label) });
    if (isToggle(el)) return report({ kind: 'check', element: facts(el), checked: el.checked });
    if (el.tagName === 'INPUT' && el.type === 'file') return report({ kind: 'upload', element: facts(el), files: [...(el.files || [])].map((file) => file.name) });
    if (isTextField(el)) typed(el);
  }, true);

  // An editor that is not a field (contenteditable) has no change event: its text counts when focus leaves it.
  const edited = new WeakSet();
  addEventListener('input', (event) => {
    const el = targetOf(event);
    if (event.isTrusted && watch.mode === 'demonstrate' && el.isContentEditable && fromPerson(el)) edited.add(el);
  }, true);
  addEventListener('focusout', (event) => {
    const el = targetOf(event);
    if (watch.mode === 'demonstrate' && edited.has(el)) { edited.delete(el); typed(el); }
  }, true);

  // The person's own back and forward (keys, the mouse's side buttons): the navigation that follows is theirs.
  const HISTORY_KEYS = /^(Alt\\+Arrow(Left|Right)|Meta\\+[\\[\\]]|Browser(Back|Forward))$/;
  addEventListener('mouseup', (event) => { if (event.isTrusted && watch.mode === 'demonstrate' && (event.button === 3 || event.button === 4)) report({ kind: 'history' }); }, true);

  addEventListener('keydown', (event) => {
    if (!event.isTrusted || watch.mode !== 'demonstrate' || event.isComposing) return;
    const chord = (event.altKey ? 'Alt+' : '') + (event.metaKey ? 'Meta+' : '') + event.key;
    if (HISTORY_KEYS.test(chord) && !event.ctrlKey && !event.shiftKey) return report({ kind: 'history' });
    const el = targetOf(event);
    const inField = isTextField(el) || el.isContentEditable;
    const modified = event.ctrlKey || event.metaKey || event.altKey;
    if (event.key === 'Enter' && !modified && (el.tagName !== 'TEXTAREA' && !el.isContentEditable)) {
      if (isTextField(el)) typed(el);
      return report({ kind: 'press', key: 'Enter', ...(inField || el.tagName === 'SELECT' ? { element: facts(el) } : {}) });
    }
    if (event.key === 'Escape') return report({ kind: 'press', key: 'Escape' });
    if (modified && !inField && !['Control', 'Meta', 'Alt', 'Shift'].includes(event.key)) {
      const keys = [event.ctrlKey && 'Control', event.altKey && 'Alt', event.metaKey && 'Meta', event.shiftKey && 'Shift', event.key.length === 1 ? event.key.toUpperCase() : event.key].filter(Boolean);
      report({ kind: 'press', key: keys.join('+') });
    }
  }, true);
})()`;
}
