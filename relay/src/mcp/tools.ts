import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ActionSchema, AGENT_SNAPSHOT_CHARS, schemas, SnapshotShaping } from '../api/schemas.js';
import type { BrowserApi, Confirmation } from '../api/browser-api.js';
import type { ActionRequest } from '../api/schemas.js';
import type { ActionResult, Tab } from '../api/responses.js';
import { FENCE_NOTE, fenced, fencedAfterNotes } from '../api/page-content.js';
import { actAnswer } from '../api/act-answer.js';
import { BadRequestError } from '../errors.js';
import type { CapabilityGroup } from './capabilities.js';

/**
 * The MCP tools: one per control-API capability, each a thin call on a
 * BrowserApi (the typed client beside a separate server, or the control
 * service in process). Each is defined once with `defineTool`: its zod input
 * schema types the handler's params, and `readOnly` becomes the MCP
 * `readOnlyHint`. Input schemas are the HTTP API's own zod schemas (plus
 * `profile`); the server validates again, so a tool cannot accept what the
 * API refuses. Descriptions are short on purpose: every tool definition is
 * sent to the model on every turn.
 *
 * Answers are built not to flood: an action answers with one line and what
 * changed (navigation, dialogs, downloads, and a capped diff of the page);
 * a snapshot is sent only when asked for, capped by default.
 */

export type ToolContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

export interface ToolResult {
  content: ToolContent[];
  /** Data for an MCP App's view (handoff-app.ts); the model reads `content`. */
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool as the MCP server lists and calls it. */
export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  /** Looks, never changes the page or the browser (MCP's readOnlyHint). */
  readOnly: boolean;
  /** Listed only when the client turns its group on (capabilities.ts); the default list otherwise. */
  group?: CapabilityGroup;
  /** The tool's `_meta` in the list (an MCP App's resource: handoff-app.ts). */
  meta?: Record<string, unknown>;
  /** Called by an MCP App's view, never by the model: listed (and callable) only for clients that render apps. */
  appOnly?: boolean;
  /** `params` have passed `input`. */
  run(api: BrowserApi, params: unknown, session: McpSessionState, call: ToolCall): Promise<ToolResult>;
}

/** One call of a tool: the client's cancellation, and progress notifications (sent when the client asked for them). */
export interface ToolCall {
  signal?: AbortSignal;
  progress(message: string): Promise<void>;
}

/** One tool: the handler's params are what its input schema parses to. */
export function defineTool<Input extends z.ZodObject>(tool: {
  name: string;
  description: string;
  input: Input;
  readOnly: boolean;
  group?: CapabilityGroup;
  meta?: Record<string, unknown>;
  appOnly?: boolean;
  run(api: BrowserApi, params: z.output<Input>, session: McpSessionState, call: ToolCall): Promise<ToolResult>;
}): Tool {
  return tool as Tool;
}

/** What one MCP session remembers between calls: each tab's last known URL, to tell a navigation. */
export interface McpSessionState {
  lastUrl: Map<string, string>;
  /** The client shows a person hand-offs' links (its `handoff` group is on): an act a confirm rule names asks them. */
  askPerson?: boolean;
  /** Where pdf files go. */
  exportDir: string;
  /** Hand-offs this MCP session opened (its MCP App reaches these only), and whether a webhook took the person's link. */
  handoffs: Map<string, { profile?: string; announced: boolean }>;
}

/** Above this, an action's page diff is cut (the note says how to see more). */
const ACTION_DIFF_CHARS = 2_000;

/** Page text's own notes: the hidden-text note first, the cut note last (snapshot/page-text.ts). */

// Self-explanatory names carry no description: every word here is sent on every turn.
export const Profile = z.string().min(1).optional();
export const TargetId = z.string().min(1).optional();

export function text(value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Writes a file a tool answers with by path: `name` in the export folder (made 0700), readable by its owner only (0600). */
export function saveExport(exportDir: string, name: string, data: string | Buffer): string {
  mkdirSync(exportDir, { recursive: true, mode: 0o700 });
  const path = resolve(exportDir, name);
  writeFileSync(path, data, { mode: 0o600 });
  return path;
}

export function withProfile(api: BrowserApi, params: { profile?: string }): BrowserApi {
  return params.profile === undefined ? api : api.withProfile(params.profile);
}

function tabLine(tab: { targetId: string; url: string; title: string }): string {
  return `${tab.targetId} ${JSON.stringify(tab.title)} ${tab.url}`;
}

/** What was done to a tab (clawd's words), then its title and URL (the page's, fenced). */
function tabDone(done: string, tab: Tab): string {
  return `${done} ${tab.targetId}\n${fenced(tab.fence, [`${JSON.stringify(tab.title)} ${tab.url}`])}`;
}

/** A tab of the list, with whose it is when it is an agent's (several agents on one profile each mean their own). */
function listedTab(tab: { targetId: string; url: string; title: string; agent?: string }): string {
  return `${tabLine(tab)}${tab.agent ? ` (agent ${tab.agent})` : ''}`;
}

/**
 * Which fields each act kind takes, said once on `kind`: `a|b` is one or the
 * other, `[…]` optional. A field only one kind has (double, submit,
 * timeoutMs…) is that kind's by its name alone and goes unsaid: every token
 * here is sent to the model on every turn. tests/unit/mcp-tools.test.ts holds
 * it to ActionSchema.
 */
export const ACT_KIND_FIELDS: Record<string, string> = {
  click: 'ref|x,y [count,button]',
  type: 'ref,text',
  press: 'key',
  hover: 'ref',
  move: 'x,y [steps]',
  mousedown: '[x,y,button]',
  mouseup: '[x,y,button]',
  drag: 'startRef|x,y endRef|endX,endY [steps]',
  'select-text': 'text [ref]|ref|x,y,endX,endY',
  scroll: 'deltaX,deltaY [x,y]',
  select: 'ref,values',
  fill: 'fields',
  wait: 'text|textGone|selector|timeMs',
  resize: 'width,height',
  evaluate: 'fn [ref]',
};

/**
 * What each field is, for hosts that show (or check against) each property's
 * description: said in as few words as will do, the kinds it belongs to
 * first, since every token here is sent on every turn (docs/mcp.md has the figure).
 */
export const ACT_FIELD_NOTES: Record<string, string> = {
  ref: 'from a snapshot',
  x: 'CSS px in the viewport, as its screenshot shows',
  y: 'CSS px',
  count: '2 or 3 clicks',
  text: 'typed, selected or awaited',
  steps: 'mousemoves on the way',
  fields: '[{ref,value}]',
  fn: 'function source',
};

/**
 * Every act kind's fields in one flat object (each optional); which apply to
 * which kind is said on `kind`, and is the API's check. Without their
 * defaults: a tool passes on what the agent gave, and the API applies its
 * defaults once (scroll's `deltaX: 0` on a click would be an unknown field there).
 */
function allActionFields(): Record<string, z.ZodType> {
  const fields: Record<string, z.ZodType> = {};
  for (const member of ActionSchema.options) {
    for (const [name, field] of Object.entries(member.shape)) {
      if (name === 'kind' || name === 'targetId' || name in fields) continue;
      const note = ACT_FIELD_NOTES[name];
      fields[name] =
        note === undefined
          ? withoutDefault(field as z.ZodType).optional()
          : withoutDefault(field as z.ZodType)
              .optional()
              .describe(note);
    }
  }
  return fields;
}

function withoutDefault(field: z.ZodType): z.ZodType {
  return field instanceof z.ZodDefault ? (field.unwrap() as z.ZodType) : field;
}

const ACTION_KINDS = ActionSchema.options.map((option) => option.shape.kind.value).filter((kind) => kind !== 'close');

/** A confirmation waiting, as the agent's progress says it: where the person is asked (no link: a yes never goes through the agent). */
export function waitingForYes(asked: Confirmation): string {
  const where = { console: "the operator's console (clawd-browser dashboard)", extension: 'their own Chrome', webhook: "the webhook's channel" };
  return `Waiting for a person's yes (rule ${asked.rule}): asked in ${asked.askedIn.map((place) => where[place]).join(', ')}.`;
}

/** An action, then what it changed: one line, events, and the page's diff since the previous snapshot. */
async function act(api: BrowserApi, action: ActionRequest, session: McpSessionState, call: ToolCall): Promise<ToolResult> {
  // One call: the action, and the page's diff when it did not navigate. An act a confirm rule names
  // waits for a person's yes: the progress notifications say where they are asked.
  const result: ActionResult = await api.act(action, {
    diffMaxChars: ACTION_DIFF_CHARS,
    person: session.askPerson === true,
    onConfirmation: (asked) => void call.progress(waitingForYes(asked)),
  });
  const key = result.targetId;
  const previousUrl = session.lastUrl.get(key);
  if (result.url === undefined) session.lastUrl.delete(key);
  else session.lastUrl.set(key, result.url);
  // Worded once for every reader (api/act-answer.ts); the page's diff comes with it here.
  return text(actAnswer(result, { previousUrl, diff: result.diff }));
}

/** The default list: what most agents need. The groups' tools are in page-tools.ts, vision-tools.ts, toolbox-tools.ts and handoff-tool.ts. */
export const TOOLS: Tool[] = [
  defineTool({
    name: 'browser_status',
    description: "A profile's browser state, and the profiles there are.",
    input: z.object({ profile: Profile }),
    readOnly: true,
    run: async (api, params) => {
      const [status, { profiles, defaultProfile }] = await Promise.all([withProfile(api, params).status(), api.profiles()]);
      const names = profiles.map((p) => `${p.name} (${p.driver}${p.running ? ', running' : ''}${p.name === defaultProfile ? ', default' : ''})`);
      return text(`${JSON.stringify(status)}\nprofiles: ${names.join(', ')}`);
    },
  }),
  defineTool({
    name: 'browser_tabs',
    description: 'List tabs; or open a URL, focus or close a tab first.',
    input: z.object({
      profile: Profile,
      action: z.enum(['list', 'open', 'focus', 'close']).optional(),
      url: z.string().optional().describe('for open'),
      targetId: z.string().optional().describe('for focus, close'),
    }),
    readOnly: false,
    run: async (api, params, session) => {
      const browser = withProfile(api, params);
      const targetId = () =>
        params.targetId ??
        (() => {
          throw new BadRequestError(`browser_tabs ${params.action} needs targetId`);
        })();
      let done = '';
      switch (params.action) {
        case 'open': {
          const tab = await browser.openTab(params.url ?? 'about:blank');
          session.lastUrl.set(tab.targetId, tab.url);
          done = tabDone('Opened', tab);
          break;
        }
        case 'focus':
          done = tabDone('Focused', await browser.focusTab(targetId()));
          break;
        case 'close':
          done = tabDone('Closed', await browser.closeTab(targetId()));
          break;
      }
      if (done) return text(done);
      const { tabs, hint } = await browser.tabList();
      return text(tabs.length ? fenced(tabs[0].fence, tabs.map(listedTab)) : `No tabs open.${hint ? ` ${hint}` : ''}`);
    },
  }),
  defineTool({
    name: 'browser_navigate',
    description: 'Go to a URL in a tab.',
    input: z.object({ profile: Profile, ...schemas.navigate.shape }),
    readOnly: false,
    run: async (api, params, session) => {
      const tab = await withProfile(api, params).navigate(params.url, params.targetId);
      session.lastUrl.set(tab.targetId, tab.url);
      return text(`${tabDone('At', tab)}\nTake a snapshot to see the page.`);
    },
  }),
  defineTool({
    name: 'browser_snapshot',
    // The one word on fences every agent reads (the tool is always listed); `markdown` says what it is by its name.
    description: `The page as text, [ref=…] on what can be acted on; find, interactive or diff cost less. ${FENCE_NOTE}`,
    input: z.object({ profile: Profile, targetId: TargetId, ...SnapshotShaping.shape, markdown: z.boolean().optional() }),
    readOnly: true,
    run: async (api, { profile: _profile, markdown, ...options }, session) => {
      if (markdown) {
        const page = await withProfile(api, { profile: _profile }).text({
          targetId: options.targetId,
          ref: options.ref,
          selector: options.selector,
          maxChars: options.maxChars ?? AGENT_SNAPSHOT_CHARS,
        });
        // Its one note of clawd's, when it has one: the hidden text left out, said first.
        return text(fencedAfterNotes(page.fence, `${page.title} — ${page.url}`, page.markdown, page.hidden ? 1 : 0));
      }
      const snapshot = await withProfile(api, { profile: _profile }).snapshot({ maxChars: AGENT_SNAPSHOT_CHARS, ...options });
      session.lastUrl.set(snapshot.targetId, snapshot.url);
      // The person's notes after the page's words, apart from them (api/person-words.ts).
      return text(
        [fencedAfterNotes(snapshot.fence, `${snapshot.title} — ${snapshot.url}`, snapshot.text, snapshot.leadingNotes), snapshot.notes]
          .filter(Boolean)
          .join('\n'),
      );
    },
  }),
  defineTool({
    name: 'browser_act',
    description: 'Act on the page (refs come from a snapshot); answers with what changed.',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      // The line names every kind with its fields, so the kinds are not listed again as an enum (30 tokens a turn); checked here all the same.
      kind: z
        .string()
        .refine((kind) => (ACTION_KINDS as readonly string[]).includes(kind), { message: `must be one of ${ACTION_KINDS.join(', ')}` })
        .describe(
          Object.entries(ACT_KIND_FIELDS)
            .map(([kind, fields]) => `${kind} ${fields}`)
            .join('; '),
        ),
      ...allActionFields(),
    }),
    readOnly: false,
    // The flat input holds every kind's fields; which belong to which kind is the API's check (ActionSchema).
    run: (api, { profile, ...action }, session, call) => act(withProfile(api, { profile }), action as ActionRequest, session, call),
  }),
  defineTool({
    name: 'browser_screenshot',
    description: 'Screenshot (JPEG, CSS pixels) of the page, full page or a ref; fullQuality: PNG at device scale.',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      fullPage: z.boolean().optional(),
      ref: schemas.screenshot.shape.ref,
      fullQuality: z.boolean().optional(),
    }),
    readOnly: true,
    run: async (api, params) => {
      const shot = await withProfile(api, params).screenshot({
        targetId: params.targetId,
        fullPage: params.fullPage,
        ref: params.ref,
        ...(params.fullQuality ? { type: 'png' } : { type: 'jpeg', quality: 60, scale: 'css' }),
      });
      return { content: [{ type: 'image', data: shot.data, mimeType: shot.mimeType }] };
    },
  }),
];
