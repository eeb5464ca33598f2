import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { describeHandoff, HANDOFF_APP_URI } from './handoff-tool.js';
import { defineTool, type McpSessionState, type ToolResult, withProfile } from './tools.js';

/**
 * The hand-off as an MCP App (spec §22, the MCP Apps extension): a client
 * that renders apps shows `browser_handoff`'s view inside the conversation:
 * the reason, the tab live, and Done / Can't do it.
 *
 * How the view reaches the tab: through the MCP connection the host already
 * holds, never through a page of ours. The view calls two app-only tools
 * (`visibility: ["app"]`, listed only to clients that render apps) through
 * its host: one for the tab's picture now, one for the person's input and
 * answer. So nothing is framed (the hand-off and console pages still refuse
 * to be), no cookie crosses the host's frame, and the view works wherever
 * the MCP connection does. And nobody new can open the hand-off: the tools
 * reach only hand-offs this MCP session opened (whose link its holder was
 * already given), and with a webhook, which takes the link to the person's
 * channel only, the view shows the tab but answers nothing.
 */

export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The capability a client declares when it renders MCP Apps. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';

/** A hand-off this MCP session opened: the one named, else the last one opened. */
function ownHandoff(session: McpSessionState, id: string | undefined): { id: string; profile?: string; announced: boolean } {
  const ids = [...session.handoffs.keys()];
  const chosen = id ?? ids.at(-1);
  const held = chosen === undefined ? undefined : session.handoffs.get(chosen);
  if (!held)
    throw new NotFoundError(
      id ? `Hand-off ${id} was not opened by this MCP session: its app reaches its own hand-offs only` : 'This MCP session has opened no hand-off yet',
    );
  return { id: chosen!, ...held };
}

export const HANDOFF_VIEW_TOOL = defineTool({
  name: 'browser_handoff_view',
  description: "The hand-off's state and its tab's picture now, for the hand-off's app view.",
  group: 'handoff',
  appOnly: true,
  meta: { ui: { resourceUri: HANDOFF_APP_URI, visibility: ['app'] } },
  input: z.object({ id: z.string().optional() }),
  readOnly: true,
  run: async (api, { id }, session): Promise<ToolResult> => {
    const own = ownHandoff(session, id);
    const { handoff, frame } = await withProfile(api, own).handoffView(own.id);
    return {
      content: [{ type: 'text', text: describeHandoff(handoff) }, ...(frame ? [{ type: 'image' as const, data: frame.data, mimeType: frame.mimeType }] : [])],
      structuredContent: { id: handoff.id, reason: handoff.reason, state: handoff.state, expiresAt: handoff.expiresAt, answersHere: !own.announced },
    };
  },
});

const Input = z.strictObject({
  type: z.enum(['click', 'scroll', 'type', 'press']),
  x: z.number().optional(),
  y: z.number().optional(),
  deltaY: z.number().optional(),
  text: z.string().optional(),
  key: z.string().optional(),
});

export const HANDOFF_RESPOND_TOOL = defineTool({
  name: 'browser_handoff_respond',
  description: "The person's input on the hand-off's tab, or their answer, from the hand-off's app view.",
  group: 'handoff',
  appOnly: true,
  meta: { ui: { resourceUri: HANDOFF_APP_URI, visibility: ['app'] } },
  input: z.object({ id: z.string(), input: Input.optional(), verdict: z.enum(['done', 'refused']).optional(), note: z.string().optional() }),
  readOnly: false,
  run: async (api, { id, input, verdict, note }, session): Promise<ToolResult> => {
    const own = ownHandoff(session, id);
    // The person's channel has the link: the answer is given there (or in the console), not here.
    if (own.announced) throw new ForbiddenError("This hand-off was sent to the person's channel: it is answered there, or in the operator's console");
    const scoped = withProfile(api, own);
    if (input) {
      await scoped.handoffInput(own.id, input);
      return { content: [{ type: 'text', text: `${input.type}: sent` }] };
    }
    if (!verdict) throw new ForbiddenError('Give input (the person acting in the tab) or a verdict (done or refused)');
    const answered = await scoped.answerHandoff(own.id, { verdict, ...(note ? { note } : {}) });
    return { content: [{ type: 'text', text: describeHandoff(answered) }], structuredContent: { id: answered.id, state: answered.state } };
  },
});

/** The `ui://` resource: one page, its script sent as source, speaking the MCP Apps protocol to its host (JSON-RPC over postMessage). */
export function handoffAppResource() {
  return {
    uri: HANDOFF_APP_URI,
    mimeType: APP_MIME_TYPE,
    text: handoffAppHtml(),
    _meta: { ui: { prefersBorder: true } },
  };
}

function handoffAppHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>clawd-browser: a hand-off</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; padding: 10px; color: #1d1d1f; }
  .reason { font-size: 15px; margin: 0 0 6px; padding: 6px 8px; background: #fff4d6; border-radius: 6px; }
  img { display: block; max-width: 100%; border: 1px solid #d2d2d7; border-radius: 6px; cursor: crosshair; margin: 6px 0; min-height: 40px; }
  #answer { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
  #outcome { font-weight: 600; min-height: 1.2em; }
</style>
</head>
<body>
<p class="reason" id="reason">Waiting for the hand-off…</p>
<img id="view" alt="the tab, live">
<div id="answer">
  <button type="button" value="done" id="done">Done — continue</button>
  <input id="note" placeholder="why not, or a note for the agent">
  <button type="button" value="refused" id="refuse">Can't do it</button>
</div>
<p id="outcome" role="status"></p>
<script>
(${handoffAppMain.toString()})(${JSON.stringify({ version: PACKAGE_VERSION })});
</script>
</body>
</html>`;
}

/** Runs in the view, inside the host's frame. Self-contained: sent as source text. */
function handoffAppMain(app: { version: string }): void {
  const view = document.getElementById('view') as HTMLImageElement;
  const outcome = document.getElementById('outcome')!;
  const form = document.getElementById('answer')!;
  let nextId = 1;
  let handoffId: string | undefined;
  let open = true;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const post = (message: object) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method: string, params: object) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const call = async (name: string, args: object) => {
    const result = (await request('tools/call', { name, arguments: args })) as {
      isError?: boolean;
      content?: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
      structuredContent?: Record<string, unknown>;
    };
    if (result.isError) throw new Error(result.content?.[0]?.text ?? 'the tool failed');
    return result;
  };
  const finish = (text: string) => {
    open = false;
    view.removeAttribute('src');
    for (const button of document.querySelectorAll('button')) button.disabled = true;
    outcome.textContent = text;
  };
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data as {
      jsonrpc?: string;
      id?: number;
      method?: string;
      params?: { arguments?: { reason?: string } };
      result?: unknown;
      error?: { message: string };
    };
    if (message?.jsonrpc !== '2.0') return;
    if (message.method === undefined && message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
      return;
    }
    if (message.method === 'ui/notifications/tool-input' && message.params?.arguments?.reason)
      document.getElementById('reason')!.textContent = message.params.arguments.reason;
    if (message.method === 'ui/notifications/tool-result' && open) finish('The hand-off is over.');
    if (message.method === 'ui/resource-teardown' && message.id !== undefined) {
      open = false;
      post({ id: message.id, result: {} });
    }
  });
  const refresh = async () => {
    if (!open) return;
    try {
      const result = await call('browser_handoff_view', handoffId ? { id: handoffId } : {});
      const state = result.structuredContent as { id: string; reason: string; state: string; answersHere: boolean };
      handoffId = state.id;
      document.getElementById('reason')!.textContent = state.reason;
      if (!state.answersHere) form.hidden = true;
      const picture = result.content?.find((part) => part.type === 'image');
      if (picture) view.src = `data:${picture.mimeType};base64,${picture.data}`;
      if (state.state !== 'waiting') return finish(`The hand-off is over (${state.state}).`);
      if (!state.answersHere) outcome.textContent = 'It was sent to your channel: answer it there.';
    } catch (error) {
      // No hand-off yet (the tool call is opening it): ask again.
      outcome.textContent = (error as Error).message;
    }
    setTimeout(() => void refresh(), 700);
  };
  const respond = (args: object) => (handoffId ? call('browser_handoff_respond', { id: handoffId, ...args }) : Promise.reject(new Error('no hand-off yet')));
  const point = (event: MouseEvent) => ({ x: event.offsetX / view.clientWidth, y: event.offsetY / view.clientHeight });
  view.addEventListener('click', (event) => void respond({ input: { type: 'click', ...point(event) } }).catch(() => {}));
  view.addEventListener('wheel', (event) => {
    event.preventDefault();
    void respond({ input: { type: 'scroll', ...point(event), deltaY: event.deltaY } }).catch(() => {});
  });
  // Keys go to the tab while the pointer is over the picture, never while the note is being written.
  let over = false;
  view.addEventListener('mouseenter', () => (over = true));
  view.addEventListener('mouseleave', () => (over = false));
  document.addEventListener('keydown', (event) => {
    if (!over || document.activeElement?.id === 'note') return;
    event.preventDefault();
    void respond({ input: event.key.length === 1 ? { type: 'type', text: event.key } : { type: 'press', key: event.key } }).catch(() => {});
  });
  // Buttons, not a form: a host's sandboxed frame may not allow forms.
  for (const button of form.querySelectorAll('button')) button.addEventListener('click', () => answer(button.value));
  const answer = (verdict: string) => {
    const note = (document.getElementById('note') as HTMLInputElement).value.trim();
    respond({ verdict, ...(note ? { note } : {}) }).then(
      () => finish(verdict === 'done' ? 'Thank you: the agent goes on from here.' : 'Thank you: the agent is told you could not.'),
      (error: Error) => (outcome.textContent = error.message),
    );
  };
  void request('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'clawd-browser hand-off', version: app.version }, appCapabilities: {} }).then(
    () => {
      post({ method: 'ui/notifications/initialized', params: {} });
      void refresh();
    },
  );
}
