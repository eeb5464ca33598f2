import type { Frame } from 'playwright-core';
import type { Action } from '../../api/schemas.js';
import { type ConfirmRule, type Consequence, matchForm, matchTarget } from '../../runtime/consequential-acts.js';
import { frameOfRef } from '../../snapshot/refs.js';
import { actTargetLocator, findActTarget, type ActTargetQuery } from '../../snapshot/snapshot-engine.js';
import type { DriverTab } from '../driver-tab.js';
import { clickCount } from './mouse-acts.js';
import { cursorOf } from './pointer.js';

/**
 * What an act would set off, before it runs, as config's `confirm` rules see
 * it (runtime/consequential-acts.ts): the control a click lands on (a ref's
 * element, or what is at x/y), the one Enter or Space acts on (the focused
 * one), and the form a click or Enter sends. The control is found in the
 * snapshot engine's isolated world (a page's scripts cannot swap it), and
 * named as Playwright's accessibility snapshot names it, live, not as the
 * agent's last snapshot did: a page that renames a button after the snapshot
 * is judged by the name it has now.
 */

/** Keys that act on the focused control: Enter (also sends a form from a field), Space. */
const ACTING_KEY = /(^|\+)(Enter|NumpadEnter|Space| )$/;

export async function consequenceOf(tab: DriverTab, action: Action, rules: ConfirmRule[]): Promise<Consequence | undefined> {
  if (!rules.some((rule) => 'target' in rule || 'formTo' in rule)) return undefined;
  let frame: Frame = tab.page.mainFrame();
  let query: ActTargetQuery;
  let verb: string;
  switch (action.kind) {
    case 'click':
      if (action.ref !== undefined) {
        // A ref that is unknown or gone finds nothing here: the act itself then says why.
        frame = frameOfRef(tab.snapshots, action.ref) ?? frame;
        query = { ref: action.ref };
      } else query = { x: action.x!, y: action.y! };
      verb = ['click', 'click', 'double-click', 'triple-click'][clickCount(action)];
      break;
    case 'mousedown':
      // A press is half a click, its release wherever the mouse is then: judged as the click it may become.
      query = action.x !== undefined && action.y !== undefined ? { x: action.x, y: action.y } : cursorOf(tab);
      verb = 'press the mouse on';
      break;
    case 'press':
      if (!ACTING_KEY.test(action.key)) return undefined;
      query = { focused: true, enter: /Enter$/.test(action.key) };
      verb = `press ${action.key} on`;
      break;
    case 'type':
      if (!action.submit) return undefined;
      frame = frameOfRef(tab.snapshots, action.ref) ?? frame;
      query = { ref: action.ref, enter: true };
      verb = 'press Enter in';
      break;
    default:
      return undefined;
  }
  return judgeTarget(frame, query, verb, rules, action.kind !== 'type');
}

/** A click at a point of the page (computer use): what it lands on, judged as a click. */
export function consequenceAt(tab: DriverTab, point: { x: number; y: number }, rules: ConfirmRule[]): Promise<Consequence | undefined> {
  if (!rules.some((rule) => 'target' in rule || 'formTo' in rule)) return Promise.resolve(undefined);
  return judgeTarget(tab.page.mainFrame(), point, 'click', rules, true);
}

async function judgeTarget(frame: Frame, query: ActTargetQuery, verb: string, rules: ConfirmRule[], byTarget: boolean): Promise<Consequence | undefined> {
  const found = await findActTarget(frame, query).catch(() => ({ found: false, submits: null }));
  if (!found.found) return undefined;
  const locator = await actTargetLocator(frame);
  let target = byTarget && rules.some((rule) => 'target' in rule) ? await nameOf(locator) : undefined;
  const byName = target && matchTarget(rules, target);
  const byForm = !byName && found.submits ? matchForm(rules, found.submits.action) : undefined;
  if (!byName && !byForm) return undefined;
  // Named for the person asked, whichever rule it is.
  if (byTarget) target ??= await nameOf(locator);
  // Where it is, for the person asked: on screen first (a click would scroll it there too).
  if (query.ref) await locator.scrollIntoViewIfNeeded({ timeout: 2_000 }).catch(() => {});
  const box = (await locator.boundingBox({ timeout: 2_000 }).catch(() => null)) ?? undefined;
  const where = box ? { box } : {};
  if (byName && target) return { rule: byName.name, act: `${verb} ${target.role} ${JSON.stringify(clip(target.name))}`, target, ...where };
  const host = new URL(found.submits!.action).host;
  const what = target ? `${target.role} ${JSON.stringify(clip(target.name))}` : query.ref || query.focused ? 'its field' : 'there';
  return { rule: byForm!.name, act: `${verb} ${what}, sending a form to ${host}`, ...(target ? { target } : {}), ...where };
}

/** A page's words, as many as a person reads at a glance. */
function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The control's role and accessible name, as Playwright's accessibility snapshot gives them (`- button "Pay"`). */
async function nameOf(locator: Awaited<ReturnType<typeof actTargetLocator>>): Promise<{ role: string; name: string } | undefined> {
  const aria = await locator.ariaSnapshot({ timeout: 2_000 }).catch(() => '');
  const first = /^- ([a-z]+)(?: "((?:[^"\\]|\\.)*)")?/.exec(aria.split('\n')[0] ?? '');
  if (!first) return undefined;
  let name = first[2] ?? '';
  try {
    name = JSON.parse(`"${name}"`) as string;
  } catch {
    // As written.
  }
  return { role: first[1], name };
}
