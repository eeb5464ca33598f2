import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ActionSchema, schemas, SnapshotShaping } from '../api/schemas.js';
import type { ActionRequest, ActionResult } from '../api/responses.js';
import type { BrowserClient } from '../client/browser-client.js';

/**
 * The MCP tools: one per control-API capability, each a thin call through
 * the typed client. Input schemas are the HTTP API's own zod schemas (plus
 * `profile`); the server validates again, so a tool cannot accept what the
 * API refuses. Descriptions are short on purpose: every tool definition is
 * sent to the model on every turn.
 *
 * Answers are built not to flood: an action answers with one line and what
 * changed (navigation, dialogs, downloads, and a capped diff of the page);
 * a snapshot is sent only when asked for, capped by default.
 */

export type ToolContent =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string };

export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
}

export interface Tool {
  name: string;
  description: string;
  input: z.ZodObject;
  run(client: BrowserClient, args: Record<string, unknown>, session: McpSessionState): Promise<ToolResult>;
}

/** What one MCP session remembers between calls: each tab's last known URL, to tell a navigation. */
export interface McpSessionState {
  lastUrl: Map<string, string>;
  /** Where pdf files go. */
  exportDir: string;
}

/** Above this, an action's page diff is cut (the note says how to see more). */
const ACTION_DIFF_CHARS = 2_000;
/** A snapshot's default budget through MCP (an explicit maxChars overrides it). */
const SNAPSHOT_DEFAULT_CHARS = 16_000;

const Profile = z.string().min(1).optional().describe('browser profile (default: the server default)');
const TargetId = z.string().min(1).optional().describe('tab (default: the last used)');

function text(value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function withProfile(client: BrowserClient, args: Record<string, unknown>): BrowserClient {
  return typeof args.profile === 'string' ? client.withProfile(args.profile) : client;
}

function tabLine(tab: { targetId: string; url: string; title: string }): string {
  return `${tab.targetId} ${JSON.stringify(tab.title)} ${tab.url}`;
}

/** The schema fields of one act kind, without `kind`; refinements stay with the server's own check. */
function actionFields(kind: ActionRequest['kind']): z.ZodRawShape {
  const member = ActionSchema.options.find((option) => option.shape.kind.value === kind);
  if (!member) throw new Error(`no action kind ${kind}`);
  const { kind: _kind, ...fields } = member.shape;
  return fields;
}

/** An action, then what it changed: one line, events, and the page's diff since the previous snapshot. */
async function act(client: BrowserClient, action: ActionRequest, session: McpSessionState): Promise<ToolResult> {
  const result: ActionResult = await client.act(action);
  const key = result.targetId;
  const before = session.lastUrl.get(key);
  const value = 'result' in result ? ` → ${JSON.stringify(result.result)?.slice(0, 2_000)}` : '';
  const lines = [`${action.kind}: done${value}`];
  for (const event of result.events ?? []) lines.push(`- ${event}`);
  if (result.url === undefined) {
    lines.push('The tab closed.');
    session.lastUrl.delete(key);
    return text(lines.join('\n'));
  }
  session.lastUrl.set(key, result.url);
  if (before !== undefined && before !== result.url) {
    lines.push(`Navigated to ${result.url} (${JSON.stringify(result.title)}). Take a snapshot to see the page.`);
    return text(lines.join('\n'));
  }
  const snapshot = await client.snapshot({ targetId: key, diff: true, maxChars: ACTION_DIFF_CHARS }).catch(() => undefined);
  if (snapshot) lines.push(snapshot.text);
  return text(lines.join('\n'));
}

function actionTool(name: string, kind: ActionRequest['kind'], description: string): Tool {
  return {
    name,
    description,
    input: z.object({ profile: Profile, ...actionFields(kind) }),
    run: (client, args, session) => {
      const { profile: _profile, ...rest } = args;
      return act(withProfile(client, args), { kind, ...rest } as ActionRequest, session);
    },
  };
}

export const TOOLS: Tool[] = [
  {
    name: 'browser_status',
    description: "A profile's browser: running, connected, shared tabs (extension).",
    input: z.object({ profile: Profile }),
    run: async (client, args) => text(JSON.stringify(await withProfile(client, args).status())),
  },
  {
    name: 'browser_profiles',
    description: 'List profiles (clawd: a browser of its own; extension: tabs the user shared).',
    input: z.object({}),
    run: async (client) => {
      const { profiles, defaultProfile } = await client.profiles();
      return text(profiles.map((p) => `${p.name} (${p.driver}${p.running ? ', running' : ''}${p.name === defaultProfile ? ', default' : ''})`).join('\n'));
    },
  },
  {
    name: 'browser_tabs',
    description: 'List tabs: targetId, title, URL.',
    input: z.object({ profile: Profile }),
    run: async (client, args) => {
      const tabs = await withProfile(client, args).tabs();
      return text(tabs.length ? tabs.map(tabLine).join('\n') : 'No tabs open.');
    },
  },
  {
    name: 'browser_open',
    description: 'Open a URL in a new tab.',
    input: z.object({ profile: Profile, ...schemas.open.shape }),
    run: async (client, args, session) => {
      const tab = await withProfile(client, args).openTab(args.url as string | undefined);
      session.lastUrl.set(tab.targetId, tab.url);
      return text(`Opened ${tabLine(tab)}`);
    },
  },
  {
    name: 'browser_focus',
    description: 'Bring a tab to the front and make it the default.',
    input: z.object({ profile: Profile, ...schemas.focus.shape }),
    run: async (client, args) => text(`Focused ${tabLine(await withProfile(client, args).focusTab(args.targetId as string))}`),
  },
  {
    name: 'browser_close',
    description: 'Close a tab.',
    input: z.object({ profile: Profile, targetId: z.string().min(1) }),
    run: async (client, args) => text(`Closed ${tabLine(await withProfile(client, args).closeTab(args.targetId as string))}`),
  },
  {
    name: 'browser_navigate',
    description: 'Go to a URL in a tab.',
    input: z.object({ profile: Profile, ...schemas.navigate.shape }),
    run: async (client, args, session) => {
      const tab = await withProfile(client, args).navigate(args.url as string, args.targetId as string | undefined);
      session.lastUrl.set(tab.targetId, tab.url);
      return text(`At ${tabLine(tab)}. Take a snapshot to see the page.`);
    },
  },
  {
    name: 'browser_snapshot',
    description: 'The page as text with [ref=…] on what can be acted on. Prefer interactive, ref/selector scope or diff to save tokens.',
    input: z.object({ profile: Profile, targetId: TargetId, ...SnapshotShaping.shape }),
    run: async (client, args, session) => {
      const { profile: _profile, ...options } = args;
      const snapshot = await withProfile(client, args).snapshot({ maxChars: SNAPSHOT_DEFAULT_CHARS, ...options } as never);
      session.lastUrl.set(snapshot.targetId, snapshot.url);
      return text(`${snapshot.title} — ${snapshot.url}\n${snapshot.text}`);
    },
  },
  actionTool('browser_click', 'click', 'Click an element by ref (or at x, y).'),
  actionTool('browser_type', 'type', 'Type text into an element by ref; submit presses Enter.'),
  actionTool('browser_fill', 'fill', 'Set several form fields at once (text, checkbox, select).'),
  actionTool('browser_select', 'select', 'Choose options in a select by ref.'),
  actionTool('browser_hover', 'hover', 'Hover an element by ref.'),
  actionTool('browser_move', 'move', 'Move the mouse to x, y.'),
  actionTool('browser_drag', 'drag', 'Drag from startRef to endRef (or between coordinates).'),
  actionTool('browser_press', 'press', 'Press a key or chord, e.g. Enter, Control+A.'),
  actionTool('browser_scroll', 'scroll', 'Scroll by deltaX/deltaY (at x, y if given).'),
  actionTool('browser_wait', 'wait', 'Wait for text, text gone, a selector, or a time.'),
  actionTool('browser_evaluate', 'evaluate', 'Run a JS function in the page (on ref if given); returns its value.'),
  actionTool('browser_resize', 'resize', 'Resize the viewport.'),
  {
    name: 'browser_screenshot',
    description: 'Screenshot (JPEG, CSS pixels) of the page, full page, or an element by ref; fullQuality for PNG.',
    input: z.object({
      profile: Profile,
      targetId: TargetId,
      fullPage: z.boolean().optional(),
      ref: schemas.screenshot.shape.ref,
      fullQuality: z.boolean().optional().describe('PNG at device scale instead of JPEG'),
    }),
    run: async (client, args) => {
      const full = args.fullQuality === true;
      const shot = await withProfile(client, args).screenshot({
        targetId: args.targetId as string | undefined,
        fullPage: args.fullPage as boolean | undefined,
        ref: args.ref as string | undefined,
        ...(full ? { type: 'png' } : { type: 'jpeg', quality: 60, scale: 'css' }),
      });
      return { content: [{ type: 'image', data: shot.data, mimeType: shot.mimeType }] };
    },
  },
  {
    name: 'browser_pdf',
    description: 'Save the page as PDF; returns the file path.',
    input: z.object({ profile: Profile, targetId: TargetId }),
    run: async (client, args, session) => {
      const pdf = await withProfile(client, args).pdf(args.targetId as string | undefined);
      mkdirSync(session.exportDir, { recursive: true, mode: 0o700 });
      const path = join(session.exportDir, `${pdf.targetId.slice(0, 8)}-${Date.now()}.pdf`);
      writeFileSync(path, Buffer.from(pdf.data, 'base64'), { mode: 0o600 });
      return text(`Saved ${path}`);
    },
  },
  {
    name: 'browser_console',
    description: "A tab's recent console messages (level: that and worse).",
    input: z.object({ profile: Profile, targetId: TargetId, level: z.enum(['debug', 'log', 'info', 'warning', 'error']).optional() }),
    run: async (client, args) => {
      const { messages } = await withProfile(client, args).console({ targetId: args.targetId as string | undefined, level: args.level as string | undefined });
      const last = messages.slice(-50).map((m) => `[${m.level}] ${m.text}`);
      return text(last.length ? (messages.length > 50 ? [`(last 50 of ${messages.length})`, ...last] : last).join('\n') : 'No console messages.');
    },
  },
  {
    name: 'browser_downloads',
    description: 'Downloads and where the files are.',
    input: z.object({ profile: Profile }),
    run: async (client, args) => {
      const { downloads } = await withProfile(client, args).downloads();
      return text(downloads.length ? downloads.map((d) => `${d.state} ${d.url}${d.path ? ` → ${d.path}` : ''}${d.error ? ` (${d.error})` : ''}`).join('\n') : 'No downloads.');
    },
  },
  {
    name: 'browser_upload',
    description: 'Upload files: set inputRef directly, or click ref to open the chooser. paths must be in the upload folders; files are inline base64.',
    input: z.object({ profile: Profile, ...schemas.fileChooser.shape }),
    run: async (client, args) => {
      const { profile: _profile, ...options } = args;
      return text(JSON.stringify(await withProfile(client, args).fileChooser(options as never)));
    },
  },
  {
    name: 'browser_dialog',
    description: "Arm the answer to the tab's next alert/confirm/prompt (otherwise dialogs are dismissed).",
    input: z.object({ profile: Profile, ...schemas.dialog.shape }),
    run: async (client, args) => {
      const { profile: _profile, ...options } = args;
      await withProfile(client, args).dialog(options as never);
      return text(`Armed: the next dialog will be ${args.accept ? 'accepted' : 'dismissed'}.`);
    },
  },
];
