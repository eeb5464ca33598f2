import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { BrowserApi } from '../api/browser-api.js';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { ClawdError, nextStepIn } from '../errors.js';
import { describeIssues } from '../validation.js';
import { type CapabilityGroup } from './capabilities.js';
import { type McpSessionState, type Tool, type ToolCall, type ToolResult, TOOLS } from './tools.js';
import { PAGE_TOOLS } from './page-tools.js';
import { TOOLBOX_TOOLS } from './toolbox-tools.js';
import { VISION_TOOLS } from './vision-tools.js';
import { HANDOFF_TOOL } from './handoff-tool.js';
import { TEACH_TOOLS } from './teach-tools.js';
import { BROWSE_TOOL } from './browse-tool.js';
import { PAGE_TOOL } from './page-tool-call.js';
import { APPS_EXTENSION, HANDOFF_RESPOND_TOOL, HANDOFF_VIEW_TOOL, handoffAppResource } from './handoff-app.js';

/** Every tool: the default list, then the groups'. */
const ALL_TOOLS: Tool[] = [
  ...TOOLS,
  PAGE_TOOL,
  ...PAGE_TOOLS,
  ...VISION_TOOLS,
  ...TOOLBOX_TOOLS,
  HANDOFF_TOOL,
  HANDOFF_VIEW_TOOL,
  HANDOFF_RESPOND_TOOL,
  BROWSE_TOOL,
  ...TEACH_TOOLS,
];
const BY_NAME = new Map(ALL_TOOLS.map((tool) => [tool.name, tool]));

/**
 * One MCP server (stdio, or one HTTP session) over the control API. Tools
 * are in tools.ts; here they are listed with their input schemas (made from
 * the API's zod schemas, trimmed of what only costs tokens: bounds, patterns
 * and the like, which the server still checks), validated on the way in, and
 * their failures turned into tool errors that say what to do next.
 */
export interface McpServerOptions {
  exportDir: string;
  /**
   * Awaited before each tool call that passed validation; its rejection is the
   * call's answer, as a tool error with its message (`clawd-browser mcp`
   * starts the server here when it could not at first).
   */
  beforeCall?: () => Promise<void>;
  /** Capability groups turned on (capabilities.ts); the default list alone without. */
  caps?: CapabilityGroup[];
}

/**
 * `api` is the typed client (stdio, beside a separate server) or the control
 * service in process (`/mcp`); it may be a getter, called for each tool call
 * after `beforeCall`.
 */
export function createMcpServer(api: BrowserApi | (() => BrowserApi), options: McpServerOptions): Server {
  const server = new Server({ name: 'clawd-browser', version: PACKAGE_VERSION }, { capabilities: { tools: {}, resources: {} } });
  const caps = options.caps ?? [];
  // A client with the handoff group shows a person hand-offs' links: an act a confirm rule names asks them.
  const session: McpSessionState = { lastUrl: new Map(), exportDir: options.exportDir, handoffs: new Map(), askPerson: caps.includes('handoff') };
  // Known once the client said hello: whether it renders MCP Apps (then the hand-off's app tools are its).
  const rendersApps = () => server.getClientCapabilities()?.extensions?.[APPS_EXTENSION] !== undefined;

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(caps, rendersApps()) }));
  // The hand-off's MCP App (handoff-app.ts), with the handoff group.
  const apps = caps.includes('handoff') ? [handoffAppResource()] : [];
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: apps.map(({ uri, mimeType }) => ({
      uri,
      name: 'hand-off',
      mimeType,
      description: "A hand-off's view: the reason, the tab live, Done and Can't do it",
    })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const found = apps.find((app) => app.uri === request.params.uri);
    if (!found) throw new Error(`No resource ${request.params.uri}${caps.includes('handoff') ? '' : ' (the hand-off app comes with --caps handoff)'}`);
    return { contents: [found] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const prepared = prepareCall(request.params.name, request.params.arguments ?? {}, caps, rendersApps());
    if ('failure' in prepared) return { ...prepared.failure };
    try {
      await options.beforeCall?.();
    } catch (error) {
      return { ...failure((error as Error)?.message ?? String(error)) };
    }
    const progressToken = request.params._meta?.progressToken;
    let step = 0;
    const call = {
      signal: extra.signal,
      progress: async (message: string) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++step, message } }).catch(() => {});
      },
    };
    return { ...(await runPrepared(prepared, typeof api === 'function' ? api() : api, session, call)) };
  });
  return server;
}

type Prepared = { tool: Tool; params: unknown } | { failure: ToolResult };

/** A call checked before it runs: the tool exists (an MCP App's own only for a client that renders apps), its group is on, its arguments fit its input (else the tool error that says so). */
function prepareCall(name: string, args: unknown, caps: CapabilityGroup[], rendersApps = false): Prepared {
  const tool = BY_NAME.get(name);
  if (!tool || (tool.appOnly && !rendersApps)) return { failure: failure(`Unknown tool ${name}: see the tool list`) };
  if (tool.group && !caps.includes(tool.group)) {
    return {
      failure: failure(
        `${tool.name} is in the ${tool.group} group, which is off: turn it on with \`clawd-browser mcp --caps ${tool.group}\` (or /mcp?caps=${tool.group})`,
      ),
    };
  }
  const checked = tool.input.safeParse(args ?? {});
  if (!checked.success) return { failure: failure(`Invalid arguments for ${tool.name}: ${describeIssues(checked.error, 'arguments')}`) };
  return { tool, params: checked.data };
}

async function runPrepared(prepared: { tool: Tool; params: unknown }, api: BrowserApi, session: McpSessionState, call: ToolCall): Promise<ToolResult> {
  try {
    return await prepared.tool.run(api, prepared.params, session, call);
  } catch (error) {
    return failure(remedy(error));
  }
}

/**
 * One tool call as an MCP client's would run (checked, run, its failure a
 * tool error naming the remedy), for a caller in process: the browse
 * runtime's model calls the same tools through here.
 */
export function callTool(
  name: string,
  args: unknown,
  api: BrowserApi,
  session: McpSessionState,
  call: ToolCall,
  caps: CapabilityGroup[] = [],
): Promise<ToolResult> {
  const prepared = prepareCall(name, args, caps);
  return 'failure' in prepared ? Promise.resolve(prepared.failure) : runPrepared(prepared, api, session, call);
}

/**
 * The tools as `tools/list` answers, the default list and the groups turned
 * on: read-only ones say so (MCP's readOnlyHint); the rest go without, the
 * default. An MCP App's own tools are listed only to a client that renders
 * apps (`rendersApps`): another would show them to its model.
 */
export function listTools(caps: CapabilityGroup[] = [], rendersApps = false) {
  return ALL_TOOLS.filter((tool) => (!tool.group || caps.includes(tool.group)) && (!tool.appOnly || rendersApps)).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: inputSchema(tool),
    ...(tool.readOnly ? { annotations: { readOnlyHint: true } } : {}),
    ...(tool.meta ? { _meta: tool.meta } : {}),
  }));
}

function failure(message: string): ToolResult {
  return { content: [{ type: 'text' as const, text: `Error: ${message}` }], isError: true };
}

type JsonSchema = { [key: string]: unknown };

/** Keys that constrain values the server checks anyway; sent to the model they are only tokens. */
const DROPPED = new Set([
  '$schema',
  'additionalProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'default',
  'format',
]);

export function inputSchema(tool: Tool): { type: 'object'; [key: string]: unknown } {
  return trim(z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema) as { type: 'object' };
}

function trim(schema: JsonSchema): JsonSchema {
  // `true | "true" | "1"`-style query flags are plain booleans to a model.
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf?.some((option) => option.type === 'boolean')) return { type: 'boolean', ...(schema.description ? { description: schema.description } : {}) };
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    // `type: [a, b]` (zod's union of primitives) is refused by clients that map
    // schemas onto one-type dialects (Gemini's OpenAPI subset): one branch per type.
    if (key === 'type' && Array.isArray(value)) out.anyOf = value.map((type) => ({ type }));
    else if (key === 'properties')
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, field]) => [name, trim(field)]));
    else if (key === 'items' && typeof value === 'object') out[key] = trim(value as JsonSchema);
    else if (key === 'anyOf') out[key] = (value as JsonSchema[]).map(trim);
    else out[key] = value;
  }
  return out;
}

/**
 * The error's message with its next step named as a tool: the step the error
 * carries (errors.ts NEXT_STEPS), else one that fits its kind.
 */
export function remedy(error: unknown): string {
  if (!(error instanceof ClawdError)) return (error as Error)?.message ?? String(error);
  const message = error.message;
  const sentence = message.replace(/[.\s]+$/, '');
  const next = nextStepIn(error, 'mcp');
  if (next) return `${sentence} (${next}).`;
  switch (error.code) {
    case 'unavailable':
      // A navigation that failed says why already (a name that does not resolve, a refused connection): the browser is fine.
      return /clawd-browser (toolbar )?button|serve|^Navigating to /.test(message) ? message : `${sentence}. Check browser_status.`;
    case 'timeout':
      return `${sentence}. The page may still be busy: take a snapshot to see where it is.`;
    default:
      return message;
  }
}
