import type { ActTarget, ActTargetQuery } from './ops.js';

/**
 * What an act would act on (driver/acts/act-consequence.ts), found in the
 * engine's world: the ref's element, the element at a point (shadow roots
 * pierced) or the focused one; then the control it is part of, and the form
 * that control would send.
 */

const CONTROL =
  'button, a[href], summary, input[type=submit], input[type=button], input[type=image], [role=button], [role=link], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=tab], [role=option], [role=switch], [role=checkbox], [role=radio]';
/** Input types Enter does not send a form from. */
const NOT_FIELDS = ['button', 'checkbox', 'radio', 'file', 'reset', 'color', 'range'];

/** The element the query names, before it is widened to its control. */
function elementOf(query: ActTargetQuery, refs: Map<string, Element> | undefined): Element | null {
  if (query.ref) return refs?.get(query.ref) ?? null;
  if (query.focused) {
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return element;
  }
  let element = document.elementFromPoint(query.x!, query.y!);
  while (element?.shadowRoot) {
    const inner = element.shadowRoot.elementFromPoint(query.x!, query.y!);
    if (!inner || inner === element) break;
    element = inner;
  }
  return element;
}

/** The control an act would reach, and what it would send (null `control` when nothing is there). */
export function findActTarget(query: ActTargetQuery, refs: Map<string, Element> | undefined): { control: Element | null; answer: ActTarget } {
  const element = elementOf(query, refs);
  if (!element || !element.isConnected) return { control: null, answer: { found: false } };
  const control = element.closest(CONTROL) ?? element;
  // A form it sends: a submit button's (its formaction first), or Enter in a field of a form.
  let submits: ActTarget['submits'] = null;
  const form = (control as HTMLButtonElement).form ?? null;
  const tag = control.tagName;
  const type = (control.getAttribute('type') ?? '').toLowerCase();
  const submitter = (tag === 'BUTTON' && (type === '' || type === 'submit')) || (tag === 'INPUT' && (type === 'submit' || type === 'image'));
  const field = tag === 'INPUT' && !submitter && !NOT_FIELDS.includes(type);
  if (form && (submitter || (field && query.enter))) {
    const action = submitter && control.hasAttribute('formaction') ? (control as HTMLButtonElement).formAction : form.action;
    const method = (submitter && control.getAttribute('formmethod')) || form.method || 'get';
    submits = { action, method: String(method).toLowerCase() };
  }
  return { control, answer: { found: true, submits } };
}
