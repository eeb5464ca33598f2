import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ActionSchema, schemas, SnapshotShaping } from '../api/schemas.js';
import type { ActionRequest, ActionResult } from '../api/responses.js';
import type { BrowserClient } from '../client/browser-client.js';
import { BadRequestError } from '../errors.js';

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

// Self-explanatory names carry no description: every word here is sent on every turn.
const Profile = z.string().min(1).optional();
const TargetId = z.string().min(1).optional();

function text(value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] };
}

function withProfile(client: BrowserClient, args: Record<string, unknown>): BrowserClient {
  return typeof args.profile === 'string' ? client.withProfile(args.profile) : client;
}

function tabLine(tab: { targetId: string; url: string; title: string }): string {
  return `${tab.targetId} ${JSON.stringify(tab.title)} ${tab.url}`;
}

/** Every act kind's fields in one flat object (each optional); which apply to which kind is the server's check. */
function allActionFields(): Record<string, z.ZodType> {
  const fields: Record<string, z.ZodType> = {};
  for (const member of ActionSchema.options) {
    for (const [name, field] of Object.entries(member.shape)) {
      if (name !== 'kind' && name !== 'targetId' && !(name in fields)) fields[name] = (field as z.ZodType).optional();
    }
  }
  return fields;
}

const ACTION_KINDS = ActionSchema.options.map((option) => option.shape.kind.value).filter((kind) => kind !== 'close');

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

export const TOOLS: Tool[] = [
  {
    name: 'browser_status',
    description: "A profile's browser state, and the profiles there are.",
    input: z.object({ profile: Profile }),
    run: async (client, args) => {
      const [status, { profiles, defaultProfile }] = await Promise.all([withProfile(client, args).status(), client.profiles()]);
      const names = profiles.map((p) => `${p.name} (${p.driver}${p.running ? ', running' : ''}${p.name === defaultProfile ? ', default' : ''})`);
      return text(`${JSON.stringify(status)}\nprofiles: ${names.join(', ')}`);
    },
  },
  {
    name: 'browser_tabs',
    description: 'List tabs; or open a URL, focus or close a tab first.',
    input: z.object({
      profile: Profile,
      action: z.enum(['list', 'open', 'focus', 'close']).optional(),
      url: z.string().optional().describe('for open'),
      targetId: z.string().optional().describe('for focus, close'),
    }),
    run: async (client, args, session) => {
      const browser = withProfile(client, args);
      const targetId = args.targetId as string | undefined;
      const need = (what: string) => {
        throw new BadRequestError(`browser_tabs ${args.action} needs ${what}`);
      };
      let done = '';
      switch (args.action) {
        case 'open': {
          const tab = await browser.openTab((args.url as string | undefined) ?? 'about:blank');
          session.lastUrl.set(tab.targetId, tab.url);
          done = `Opened ${tabLine(tab)}`;
          break;
        }
        case 'focus':
          done = `Focused ${tabLine(await browser.focusTab(targetId ?? need('targetId')))}`;
          break;
        case 'close':
          done = `Closed ${tabLine(await browser.closeTab(targetId ?? need('targetId')))}`;
          break;
      }
      if (done) return text(done);
      const tabs = await browser.tabs();
      return text(tabs.length ? tabs.map(tabLine).join('\n') : 'No tabs open.');
    },
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
  {
    name: 'browser_act',
    description: 'Act on the page: by ref from a snapshot, or at x/y. Answers with what changed.',
    input: z.object({ profile: Profile, targetId: TargetId, kind: z.enum(ACTION_KINDS as [string, ...string[]]), ...allActionFields() }),
    run: (client, args, session) => {
      const { profile: _profile, ...action } = args;
      return act(withProfile(client, args), action as ActionRequest, session);
    },
  },
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
      const result = (await withProfile(client, args).fileChooser(options as never)) as { uploaded?: string[]; armed?: boolean; files?: string[]; timeoutMs?: number };
      if (result.armed)
        return text(`Armed: the next file chooser on this tab gets ${(result.files ?? []).join(', ')} (for ${Math.round((result.timeoutMs ?? 0) / 1000)} s). Click what opens it.`);
      return text(`Uploaded ${(result.uploaded ?? []).join(', ') || 'no files'}.`);
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
