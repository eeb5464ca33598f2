import type { CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import type { PageTool } from '../../api/page-tools-responses.js';
import { type ConfirmRule, type Consequence, matchForm, matchPageTool, matchTarget } from '../../runtime/consequential-acts.js';

/**
 * What a call of a page's tool (WebMCP) would set off that config's `confirm`
 * rules name, judged before it is called by every rule an act is judged by
 * (acts/act-consequence.ts), not by what the page says of it alone:
 * - a tool the page marks consequential: the `pageTool` rule;
 * - a tool a form declares (`<form toolname>`) that submits it when called
 *   (`toolautosubmit`): its form's action (`formTo`), and the button that
 *   sends it (`target`: a "Transfer" button is the same button whether a
 *   click or a tool submits its form).
 * A download the call starts is held by the download rule as any is
 * (network/download-saver.ts). What a script's tool does in its own code is
 * not seen before it runs, as an `evaluate`'s is not.
 *
 * The form is read in an isolated world of clawd's own, through the DOM's
 * own getters (a page cannot redefine them there, nor shadow `action` with
 * a field of that name), and the button is named by Chromium's
 * accessibility tree.
 */

const WORLD = 'clawd-page-tool-forms';

/** The form's action as it would be sent, through the DOM's own getter (a field named "action" does not shadow it here). */
function formAction(this: HTMLFormElement): string {
  return Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'action')!.get!.call(this) as string;
}

/** The form's default button, the one that sends it: the first submit button of its controls. */
function defaultButton(this: HTMLFormElement): Element | null {
  const elements = Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, 'elements')!.get!.call(this) as HTMLFormControlsCollection;
  for (const element of Array.from(elements)) {
    if (element instanceof HTMLButtonElement && element.type === 'submit') return element;
    if (element instanceof HTMLInputElement && (element.type === 'submit' || element.type === 'image')) return element;
  }
  return null;
}

/** Where a submit button of its own sends its form (its `formaction`), if it says. */
function buttonAction(this: HTMLButtonElement | HTMLInputElement): string | undefined {
  return this.hasAttribute('formaction') ? (Object.getOwnPropertyDescriptor(Object.getPrototypeOf(this), 'formAction')!.get!.call(this) as string) : undefined;
}

/**
 * The consequence of calling `tool`, or undefined when no rule names it. `form` is the backend node of the form
 * that declares it, if a form does. A form that cannot be read (its frame is another process's, it is gone) is judged
 * as one that sends: the call then waits for a yes, rather than a rule being skipped.
 */
export async function toolConsequence(session: CDPSession, tool: PageTool, form: number | undefined, rules: ConfirmRule[]): Promise<Consequence | undefined> {
  const act = `call the page's tool ${JSON.stringify(clip(tool.name))}`;
  const marked = tool.annotations && matchPageTool(rules, tool.annotations);
  if (marked) return { rule: marked.name, act };
  if (form === undefined || !tool.annotations?.autosubmit || !rules.some((rule) => 'target' in rule || 'formTo' in rule)) return undefined;
  const judged = await judgeForm(session, tool.frameId, form, rules).catch(() => 'unread' as const);
  if (judged === 'unread') {
    const rule = rules.find((candidate) => 'formTo' in candidate) ?? rules.find((candidate) => 'target' in candidate)!;
    return { rule: rule.name, act: `${act}, which sends a form that could not be read` };
  }
  if (!judged) return undefined;
  if ('target' in judged)
    return {
      rule: judged.rule,
      act: `${act}, which sends its form with ${judged.target.role} ${JSON.stringify(clip(judged.target.name))}`,
      target: judged.target,
    };
  return { rule: judged.rule, act: `${act}, sending a form to ${judged.host}` };
}

async function judgeForm(
  session: CDPSession,
  frameId: string,
  backendNodeId: number,
  rules: ConfirmRule[],
): Promise<{ rule: string; target: { role: string; name: string } } | { rule: string; host: string } | undefined> {
  const { executionContextId } = (await session.send('Page.createIsolatedWorld', { frameId, worldName: WORLD })) as Protocol.Page.CreateIsolatedWorldResponse;
  const { object } = (await session.send('DOM.resolveNode', { backendNodeId, executionContextId })) as Protocol.DOM.ResolveNodeResponse;
  const call = async (objectId: string, fn: (...args: never[]) => unknown, byValue = true) =>
    (
      (await session.send('Runtime.callFunctionOn', {
        objectId,
        functionDeclaration: fn.toString(),
        returnByValue: byValue,
      })) as Protocol.Runtime.CallFunctionOnResponse
    ).result;
  const held = [object.objectId!];
  try {
    const sentTo = [(await call(object.objectId!, formAction)).value as string];
    const button = (await call(object.objectId!, defaultButton, false)).objectId;
    if (button) {
      held.push(button);
      const own = (await call(button, buttonAction)).value as string | undefined;
      if (own) sentTo.push(own);
    }
    // The button first, as a click is judged: its name says what it does, wherever the form goes.
    const target = button && rules.some((rule) => 'target' in rule) ? await nameOf(session, button) : undefined;
    const byName = target && matchTarget(rules, target);
    if (byName && target) return { rule: byName.name, target };
    for (const url of sentTo) {
      const byForm = matchForm(rules, url);
      if (byForm) return { rule: byForm.name, host: new URL(url).host };
    }
    return undefined;
  } finally {
    for (const objectId of held) void session.send('Runtime.releaseObject', { objectId }).catch(() => {});
  }
}

/** An element's role and name, as Chromium's accessibility tree gives them. */
async function nameOf(session: CDPSession, objectId: string): Promise<{ role: string; name: string } | undefined> {
  const { node } = (await session.send('DOM.describeNode', { objectId })) as Protocol.DOM.DescribeNodeResponse;
  const { nodes } = (await session.send('Accessibility.getPartialAXTree', {
    backendNodeId: node.backendNodeId,
    fetchRelatives: false,
  })) as Protocol.Accessibility.GetPartialAXTreeResponse;
  const own = nodes.find((each) => each.backendDOMNodeId === node.backendNodeId) ?? nodes[0];
  const role = own?.role?.value;
  return typeof role === 'string' ? { role, name: String(own?.name?.value ?? '') } : undefined;
}

/** A page's words, as many as a person reads at a glance. */
function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
