import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ActOptions, BrowserApi } from '../../relay/src/api/browser-api.js';
import type { RecordingsApi } from '../../relay/src/api/recordings-api.js';
import type { ActionRequest } from '../../relay/src/api/schemas.js';
import type { ActionResult, Tab } from '../../relay/src/api/responses.js';
import { NotFoundError, UnavailableError } from '../../relay/src/errors.js';
import { createMcpServer, listTools, remedy } from '../../relay/src/mcp/mcp-server.js';
import { ACT_KIND_FIELDS, type McpSessionState, TOOLS } from '../../relay/src/mcp/tools.js';
import { ActionSchema } from '../../relay/src/api/schemas.js';
import { parseCaps } from '../../relay/src/mcp/capabilities.js';
import { PAGE_TOOLS } from '../../relay/src/mcp/page-tools.js';
import { VISION_TOOLS } from '../../relay/src/mcp/vision-tools.js';
import { encode } from 'gpt-tokenizer';

/**
 * The MCP tools' handlers, called in process on a BrowserApi that answers
 * from a script and records every call: what each tool asks of the API, and
 * what it tells the agent. The real API (HTTP and in process) is exercised
 * end to end in tests/e2e/mcp.test.ts.
 */

type Call = { method: string; profile?: string; args: unknown[] };
/** A method of the API, or of its recordings (`recordings.network`). */
type Method = keyof BrowserApi | `recordings.${keyof RecordingsApi & string}`;

function scriptedApi(answers: Partial<Record<Method, (...args: any[]) => unknown>>, calls: Call[] = [], profile?: string): BrowserApi {
  const record =
    (method: Method) =>
    async (...args: unknown[]) => {
      calls.push({ method, profile, args });
      const answer = answers[method];
      if (!answer) throw new Error(`the tool called ${method}, which this test did not expect`);
      return answer(...args);
    };
  return {
    withProfile: (other: string) => scriptedApi(answers, calls, other),
    status: record('status'),
    profiles: record('profiles'),
    tabs: record('tabs'),
    tabList: record('tabList'),
    openTab: record('openTab'),
    focusTab: record('focusTab'),
    closeTab: record('closeTab'),
    navigate: record('navigate'),
    screenshot: record('screenshot'),
    pdf: record('pdf'),
    console: record('console'),
    snapshot: record('snapshot'),
    act: record('act'),
    fileChooser: record('fileChooser'),
    dialog: record('dialog'),
    downloads: record('downloads'),
    recordings: {
      networkRecord: record('recordings.networkRecord'),
      network: record('recordings.network'),
      networkBody: record('recordings.networkBody'),
      har: record('recordings.har'),
      traceStart: record('recordings.traceStart'),
      traceStop: record('recordings.traceStop'),
      videoStart: record('recordings.videoStart'),
      videoStop: record('recordings.videoStop'),
    },
    script: record('script'),
  } as BrowserApi;
}

const exportDir = mkdtempSync(join(tmpdir(), 'clawd-mcp-tools-'));
afterAll(() => rmSync(exportDir, { recursive: true, force: true }));

const tool = (name: string) => [...TOOLS, ...PAGE_TOOLS, ...VISION_TOOLS].find((candidate) => candidate.name === name)!;
const state = (): McpSessionState => ({ lastUrl: new Map(), exportDir, handoffs: new Map() });
/** Calls a tool as the MCP server does: arguments parsed by its input schema first. */
async function call(name: string, args: Record<string, unknown>, api: BrowserApi, session = state()) {
  const params = tool(name).input.parse(args);
  const result = await tool(name).run(api, params, session, { progress: async () => {} });
  return result.content.map((part) => (part.type === 'text' ? part.text : `[${part.mimeType}]`)).join('\n');
}
const TAB: Tab = { targetId: 'AAAA1111', url: 'http://site.test/', title: 'Site', type: 'page' };

describe('the tools, in process', () => {
  it('the default list is what most agents need, at most 1045 definition tokens (o200k, annotations included)', () => {
    expect(listTools().map((t) => t.name)).toEqual([
      'browser_status',
      'browser_tabs',
      'browser_navigate',
      'browser_snapshot',
      'browser_act',
      'browser_screenshot',
      'browser_page_tool',
    ]);
    expect(TOOLS.every((t) => t.group === undefined)).toBe(true);
    // 793 for six tools before browser_act said which fields go with which kind (836 since), 915 with the page's own tools, 932 with find,
    // 982 with the mouse's own acts and a text range, 1042 with eight of browser_act's fields described (docs/mcp.md).
    expect(encode(JSON.stringify(listTools())).length).toBeLessThanOrEqual(1045);
    const readOnly = listTools(parseCaps('all'))
      .filter((listed) => listed.annotations?.readOnlyHint)
      .map((listed) => listed.name);
    expect(readOnly).toEqual([
      'browser_status',
      'browser_snapshot',
      'browser_screenshot',
      'browser_console',
      'browser_downloads',
      'browser_labelled_screenshot',
    ]);
  });

  it("browser_act says which fields go with which kind, true to ActionSchema: each kind's own, or a field no other kind has", () => {
    const schema = listTools().find((listed) => listed.name === 'browser_act')!.inputSchema as unknown as {
      properties: Record<string, { description?: string; enum?: string[] }>;
    };
    const line = schema.properties.kind.description!;
    const members = ActionSchema.options.filter((member) => member.shape.kind.value !== 'close');
    const fieldsOf = (member: (typeof members)[number]) => Object.keys(member.shape).filter((name) => name !== 'kind' && name !== 'targetId');
    expect(Object.keys(ACT_KIND_FIELDS)).toEqual(members.map((member) => member.shape.kind.value));
    expect(line.split('; ').map((part) => part.split(' ')[0])).toEqual(Object.keys(ACT_KIND_FIELDS));
    for (const member of members) {
      const kind = member.shape.kind.value;
      expect(line).toContain(`${kind} ${ACT_KIND_FIELDS[kind]}`);
      const named = new Set(ACT_KIND_FIELDS[kind].match(/[A-Za-z]+/g));
      for (const field of named) expect(fieldsOf(member), `${kind} names ${field}`).toContain(field);
      for (const field of fieldsOf(member)) {
        const elsewhere = members.filter((other) => other !== member && fieldsOf(other).includes(field)).map((other) => other.shape.kind.value);
        expect(named.has(field) || elsewhere.length === 0, `${kind}.${field}: unsaid, and also ${elsewhere.join(', ')}'s`).toBe(true);
        expect(schema.properties[field], `${kind}.${field}`).toBeDefined();
      }
    }
    // The line lists the kinds: no enum repeats them; an unknown kind is still refused before the API.
    expect(schema.properties.kind.enum).toBeUndefined();
    expect(tool('browser_act').input.safeParse({ kind: 'tap' }).error?.issues[0].message).toBe(
      'must be one of click, type, press, hover, move, mousedown, mouseup, drag, select-text, scroll, select, fill, wait, resize, evaluate',
    );
    expect(line).toBe(
      'click ref|x,y [count,button]; type ref,text; press key; hover ref; move x,y [steps]; mousedown [x,y,button]; mouseup [x,y,button]; drag startRef|x,y endRef|endX,endY [steps]; select-text text [ref]|ref|x,y,endX,endY; scroll deltaX,deltaY [x,y]; select ref,values; fill fields; wait text|textGone|selector|timeMs; resize width,height; evaluate fn [ref]',
    );
  });

  it('groups are off by default; a client turns them on by name, and a name that is none is refused', () => {
    const defaults = listTools().length;
    expect(
      listTools(['emulation'])
        .map((listed) => listed.name)
        .slice(defaults),
    ).toEqual(['browser_emulate']);
    expect(
      listTools(['files', 'dialogs'])
        .map((listed) => listed.name)
        .slice(defaults),
    ).toEqual(['browser_pdf', 'browser_downloads', 'browser_upload', 'browser_dialog']);
    expect(
      listTools(parseCaps('all'))
        .map((listed) => listed.name)
        .slice(defaults),
    ).toEqual([
      'browser_pdf',
      'browser_console',
      'browser_downloads',
      'browser_record',
      'browser_upload',
      'browser_dialog',
      'browser_labelled_screenshot',
      'browser_computer',
      'browser_emulate',
      'browser_route',
      'browser_init_script',
      'browser_storage',
      'browser_handoff',
      'browser_browse',
      'browser_routine',
      'browser_notes',
    ]);
    expect(parseCaps(' storage, network ,storage')).toEqual(['storage', 'network']);
    expect(parseCaps(undefined)).toEqual([]);
    expect(() => parseCaps('storage,sight')).toThrow(
      'Invalid caps: no group is named "sight"; the groups are vision, files, recording, dialogs, emulation, network, storage, handoff, browse, routines (or all)',
    );
  });

  it('browser_act makes one API call that asks for the diff, and answers in a few lines', async () => {
    const calls: Call[] = [];
    const api = scriptedApi(
      {
        act: (action: ActionRequest, options: ActOptions): ActionResult => ({
          targetId: TAB.targetId,
          kind: action.kind,
          url: TAB.url,
          title: TAB.title,
          events: ['download started: report.txt'],
          diff: `~ - checkbox "Milk" [checked] [ref=e10] (diff at most ${options.diffMaxChars})`,
          fence: '123',
        }),
      },
      calls,
    );
    const session = state();
    session.lastUrl.set(TAB.targetId, TAB.url);
    const answer = await call('browser_act', { kind: 'click', ref: 'e10', profile: 'extension' }, api, session);
    // The page's words (its events, its diff) inside the answer's fence; clawd's own outside.
    expect(answer).toBe('click: done\n<page 123>\n- download started: report.txt\n~ - checkbox "Milk" [checked] [ref=e10] (diff at most 2000)\n</page 123>');
    // Without the handoff group, the client is not one that shows a person a confirmation's link.
    expect(calls).toEqual([
      {
        method: 'act',
        profile: 'extension',
        args: [
          { kind: 'click', ref: 'e10' },
          { diffMaxChars: 2_000, person: false, onConfirmation: expect.any(Function) },
        ],
      },
    ]);
  });

  it('browser_act says when the action navigated, and when it closed the tab', async () => {
    const session = state();
    session.lastUrl.set(TAB.targetId, TAB.url);
    const moved = scriptedApi({ act: () => ({ targetId: TAB.targetId, kind: 'click', url: 'http://site.test/next', title: 'Next', fence: '55' }) });
    expect(await call('browser_act', { kind: 'click', ref: 'e1' }, moved, session)).toBe(
      'click: done\nNavigated; take a snapshot to see the page.\n<page 55>\nhttp://site.test/next "Next"\n</page 55>',
    );
    expect(session.lastUrl.get(TAB.targetId)).toBe('http://site.test/next');
    const closed = scriptedApi({ act: () => ({ targetId: TAB.targetId, kind: 'press' }) });
    expect(await call('browser_act', { kind: 'press', key: 'Control+W' }, closed, session)).toBe('press: done\nThe tab closed.');
    expect(session.lastUrl.has(TAB.targetId)).toBe(false);
  });

  it('browser_tabs lists, opens, focuses and closes, and says what it needs', async () => {
    const calls: Call[] = [];
    const fenced = { ...TAB, fence: '321' };
    const api = scriptedApi(
      { tabList: () => ({ tabs: [fenced] }), openTab: (url: string) => ({ ...fenced, url }), focusTab: () => fenced, closeTab: () => fenced },
      calls,
    );
    // Titles and URLs are the page's: fenced; the tab's id, clawd's, leads.
    expect(await call('browser_tabs', {}, api)).toBe('<page 321>\nAAAA1111 "Site" http://site.test/\n</page 321>');
    expect(await call('browser_tabs', { action: 'open', url: 'http://other.test/' }, api)).toBe(
      'Opened AAAA1111\n<page 321>\n"Site" http://other.test/\n</page 321>',
    );
    expect(await call('browser_tabs', { action: 'focus', targetId: 'AAAA' }, api)).toMatch(/^Focused AAAA1111\n<page 321>/);
    await expect(call('browser_tabs', { action: 'close' }, api)).rejects.toThrow('browser_tabs close needs targetId');
    expect(calls.map((c) => c.method)).toEqual(['tabList', 'openTab', 'focusTab']);
    // A person's browser that lends nothing yet: the empty list says how to lend a tab.
    const lending = scriptedApi({ tabList: () => ({ tabs: [], hint: 'No tab is lent: the person lends tabs in the picker' }) });
    expect(await call('browser_tabs', {}, lending)).toBe('No tabs open. No tab is lent: the person lends tabs in the picker');
  });

  it('browser_snapshot asks for 16,000 characters unless told otherwise, and passes shaping through', async () => {
    const calls: Call[] = [];
    const api = scriptedApi(
      {
        snapshot: () => ({
          targetId: TAB.targetId,
          format: 'ai',
          url: TAB.url,
          title: TAB.title,
          text: '[hidden text left out: 1 block]\n- main:\n[cut at maxChars=16000: …]',
          refCount: 0,
          truncated: false,
          frames: 1,
          leadingNotes: 1,
          fence: '77',
        }),
      },
      calls,
    );
    // clawd's first notes, as the answer counts them, stay outside; from there on it is the page's words, the cut's note (naming its sections) too.
    expect(await call('browser_snapshot', { interactive: true }, api)).toBe(
      '[hidden text left out: 1 block]\n<page 77>\nSite — http://site.test/\n- main:\n[cut at maxChars=16000: …]\n</page 77>',
    );
    await call('browser_snapshot', { maxChars: 500, selector: 'main' }, api);
    expect(calls.map((c) => c.args[0])).toEqual([
      { maxChars: 16_000, interactive: true },
      { maxChars: 500, selector: 'main' },
    ]);
  });

  it('browser_record passes the action and filters in one call, and answers a line per request or where the file went', async () => {
    const calls: Call[] = [];
    const entries = [
      {
        id: 3,
        url: 'http://site/api',
        method: 'GET',
        resourceType: 'fetch',
        status: 404,
        requestHeaders: {},
        startedAt: '2026-01-01T00:00:00Z',
        durationMs: 12,
      },
      {
        id: 4,
        url: 'http://site/img',
        method: 'GET',
        resourceType: 'image',
        failure: 'net::ERR_FAILED',
        requestHeaders: {},
        startedAt: '2026-01-01T00:00:00Z',
      },
    ];
    const listing = scriptedApi({ 'recordings.network': () => ({ targetId: TAB.targetId, network: { recording: true, entries }, fence: '404' }) }, calls);
    expect(await call('browser_record', { profile: 'p', action: 'network', status: '4xx', type: 'fetch' }, listing)).toBe(
      '<page 404>\n#3 GET 404 fetch http://site/api 12ms\n#4 GET net::ERR_FAILED image http://site/img\n</page 404>',
    );
    expect(calls).toEqual([
      { method: 'recordings.network', profile: 'p', args: [{ targetId: undefined, status: '4xx', type: 'fetch', url: undefined, limit: undefined }] },
    ]);
    const written = scriptedApi({ 'recordings.har': () => ({ path: '/home/x/recordings/p/a.har' }) });
    expect(await call('browser_record', { action: 'har' }, written)).toBe('Written: /home/x/recordings/p/a.har');
    const started = scriptedApi({ 'recordings.networkRecord': () => ({ targetId: TAB.targetId, network: { recording: true } }) });
    expect(await call('browser_record', { action: 'network-start' }, started)).toBe(`Recording ${TAB.targetId}'s requests.`);
  });

  it('browser_record script writes the Playwright test under the export folder (0600) and says what it left out', async () => {
    const api = scriptedApi({
      script: async () => ({ language: 'typescript', runner: '@playwright/test', steps: 3, script: 'test("x", async () => {});\n', notes: ['an evaluate'] }),
    });
    const answer = await call('browser_record', { action: 'script' }, api);
    const path = /^Written: (\S+\.spec\.ts) \(3 steps; run it with npx playwright test\)\n- an evaluate$/.exec(answer)![1];
    expect(path.startsWith(exportDir)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('test("x", async () => {});\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('browser_record gives a text body as text, and a binary one by size and type only', async () => {
    const json = Buffer.from('{"user":"ada"}').toString('base64');
    const sent = scriptedApi({
      'recordings.networkBody': () => ({
        targetId: TAB.targetId,
        id: 7,
        part: 'request',
        mimeType: 'application/json',
        base64: json,
        size: 14,
        truncated: false,
        fence: '808',
      }),
    });
    expect(await call('browser_record', { action: 'request-body', id: 7 }, sent)).toBe(
      '#7 request body: 14 bytes of application/json\n<page 808>\n{"user":"ada"}\n</page 808>',
    );
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]).toString('base64');
    const image = scriptedApi({
      'recordings.networkBody': () => ({ targetId: TAB.targetId, id: 8, part: 'response', mimeType: 'image/png', base64: png, size: 6, truncated: false }),
    });
    expect(await call('browser_record', { action: 'body', id: 8 }, image)).toBe(
      '#8 response body: 6 bytes of image/png; binary, not shown (GET /network/body gives it)',
    );
  });

  it('browser_upload answers in prose, armed or done', async () => {
    const done = scriptedApi({ fileChooser: () => ({ targetId: TAB.targetId, uploaded: ['a.txt', 'b.txt'] }) });
    expect(await call('browser_upload', { inputRef: 'e3', paths: ['/tmp/a.txt', '/tmp/b.txt'] }, done)).toBe('Uploaded a.txt, b.txt.');
    const armed = scriptedApi({ fileChooser: () => ({ targetId: TAB.targetId, armed: true, files: ['a.txt'], timeoutMs: 120_000 }) });
    expect(await call('browser_upload', { paths: ['/tmp/a.txt'] }, armed)).toBe(
      'Armed: the next file chooser on this tab gets a.txt (for 120 s). Click what opens it.',
    );
  });

  it('browser_screenshot asks for JPEG in CSS pixels unless fullQuality, and answers an image', async () => {
    const calls: Call[] = [];
    const api = scriptedApi(
      { screenshot: (options: { type: string }) => ({ targetId: TAB.targetId, type: options.type, mimeType: `image/${options.type}`, data: 'AAAA' }) },
      calls,
    );
    expect(await call('browser_screenshot', {}, api)).toBe('[image/jpeg]');
    expect(await call('browser_screenshot', { fullQuality: true, ref: 'e2' }, api)).toBe('[image/png]');
    expect(calls.map((c) => c.args[0])).toEqual([
      { targetId: undefined, fullPage: undefined, ref: undefined, type: 'jpeg', quality: 60, scale: 'css' },
      { targetId: undefined, fullPage: undefined, ref: 'e2', type: 'png' },
    ]);
  });

  it('browser_pdf saves under the export folder (0600) and answers with the path', async () => {
    const api = scriptedApi({ pdf: () => ({ targetId: TAB.targetId, mimeType: 'application/pdf', data: Buffer.from('%PDF-1.7').toString('base64') }) });
    const answer = await call('browser_pdf', {}, api);
    const path = answer.replace(/^Saved /, '');
    expect(path.startsWith(exportDir)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('%PDF-1.7');
  });

  it('browser_console keeps the last 50, and browser_downloads says where files are', async () => {
    const messages = Array.from({ length: 60 }, (_, i) => ({ level: 'log', text: `line ${i}`, timestamp: i }));
    const api = scriptedApi({
      console: () => ({ targetId: TAB.targetId, messages, fence: '11' }),
      downloads: () => ({ downloads: [{ url: 'http://site.test/r', state: 'complete', path: '/d/r.txt' }], fence: '12' }),
    });
    const lines = (await call('browser_console', { level: 'log' }, api)).split('\n');
    expect(lines.slice(0, 2)).toEqual(['(last 50 of 60)', '<page 11>']);
    expect(lines.slice(-2)).toEqual(['[log] line 59', '</page 11>']);
    expect(await call('browser_downloads', {}, api)).toBe('<page 12>\ncomplete http://site.test/r → /d/r.txt\n</page 12>');
  });
});

describe('errors through the MCP server', () => {
  it('carry the next step the error names, in MCP words, and unknown kinds get advice by kind', () => {
    expect(remedy(new NotFoundError('Profile clawd has no open tab: open one first', { next: 'open-tab' }))).toBe(
      'Profile clawd has no open tab: open one first (browser_tabs with action "open").',
    );
    expect(remedy(new UnavailableError('The browser went away.'))).toBe('The browser went away. Check browser_status.');
    expect(remedy(new Error('plain'))).toBe('plain');
  });

  it('a tool call is validated, run on the API and its failure answered as a tool error', async () => {
    const server = createMcpServer(
      scriptedApi({
        tabList: () => {
          throw new NotFoundError('No tab with targetId "X" in profile clawd', { next: 'list-tabs' });
        },
      }),
      { exportDir },
    );
    const handlers = (server as unknown as { _requestHandlers: Map<string, (request: unknown, extra: unknown) => Promise<any>> })._requestHandlers;
    const callTool = (params: object) => handlers.get('tools/call')!({ method: 'tools/call', params }, {});
    expect(await callTool({ name: 'browser_tabs', arguments: { action: 'nope' } })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/^Error: Invalid arguments for browser_tabs: /) }],
    });
    expect(await callTool({ name: 'browser_tabs', arguments: {} })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Error: No tab with targetId "X" in profile clawd (browser_tabs).' }],
    });
    expect(await callTool({ name: 'browser_nope', arguments: {} })).toMatchObject({ isError: true });
  });
});
