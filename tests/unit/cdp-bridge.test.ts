import { beforeEach, describe, expect, it } from 'vitest';
import { CdpBridge, type Outbound } from '../../relay/src/bridge/cdp-bridge.js';
import type { TeachRequest } from '../../relay/src/bridge/outbound.js';
import { WIRE_PROTOCOL_VERSION } from '../../protocol/constants.js';
import { encodeExtensionFrame, type ExtensionHeader, type RelayCommand, type SharedTab } from '../../protocol/wire.js';

/**
 * The target model on its own: messages in, messages out. A scripted
 * extension peer answers what the bridge asks of it; the assertions are on
 * what each CDP client receives.
 */

type Message = { id?: number; method?: string; sessionId?: string; params?: any; result?: any; error?: { code: number; message: string } };

const TAB_A: SharedTab = { tabId: 1, targetId: 'PAGE-A', url: 'https://a.example/', title: 'A' };
const TAB_B: SharedTab = { tabId: 2, targetId: 'PAGE-B', url: 'https://b.example/', title: 'B' };

class Harness {
  constructor(readonly bridge = new CdpBridge({ maxQueuedCommands: 3 })) {}
  readonly toClient = new Map<number, Message[]>();
  readonly toExtension: any[] = [];
  closed: number[] = [];
  downloads: Array<{ targetId: string; id: number; state: string }> = [];
  consents: Array<{ id: number; allowed: boolean; domains: string[] }> = [];
  teaching: TeachRequest[] = [];
  fileReads: Array<{ requestId: number; paths: string[] }> = [];
  copies: Array<{ requestId: number; from: string; dir: string; name: string }> = [];
  private nextId = 100;

  apply(outbound: Outbound[]): void {
    for (const message of outbound) {
      if (message.to === 'client') {
        const text = typeof message.data === 'string' ? message.data : new TextDecoder().decode(message.data);
        if (!this.toClient.has(message.clientId)) this.toClient.set(message.clientId, []);
        this.toClient.get(message.clientId)!.push(JSON.parse(text));
      } else if (message.to === 'extension') {
        this.toExtension.push(JSON.parse(message.data));
      } else if (message.to === 'closeClient') {
        this.closed.push(message.clientId);
      } else if (message.to === 'download') {
        this.downloads.push({ targetId: message.targetId, id: message.download.id, state: message.download.state });
      } else if (message.to === 'copyDownload') {
        this.copies.push({ requestId: message.requestId, from: message.from, dir: message.dir, name: message.name });
      } else if (message.to === 'readFiles') {
        this.fileReads.push({ requestId: message.requestId, paths: message.paths });
      } else if (message.to === 'teach') {
        this.teaching.push(message.request);
      } else {
        this.consents.push({ id: message.id, allowed: message.allowed, domains: message.domains });
      }
    }
  }

  client(group?: string): number {
    const id = this.bridge.addClient(group);
    this.toClient.set(id, []);
    return id;
  }

  /** Sends a command and returns its id; the answer may come later. */
  send(client: number, method: string, params?: object, sessionId?: string): number {
    const id = this.nextId++;
    this.apply(this.bridge.handleClientMessage(client, JSON.stringify({ id, method, params, sessionId })));
    return id;
  }

  raw(client: number, text: string): void {
    this.apply(this.bridge.handleClientMessage(client, text));
  }

  answerOf(client: number, id: number): Message | undefined {
    return this.toClient.get(client)!.find((m) => m.id === id);
  }

  events(client: number, method?: string): Message[] {
    return this.toClient.get(client)!.filter((m) => m.method && (!method || m.method === method));
  }

  fromExtension(header: ExtensionHeader, payload?: unknown): void {
    const frame = encodeExtensionFrame(header, payload === undefined ? '' : JSON.stringify(payload));
    this.apply(this.bridge.handleExtensionMessage(new TextEncoder().encode(frame)));
  }

  connectExtension(tabs: SharedTab[]): void {
    this.bridge.extensionConnected();
    // The server checks the hello's proof before the bridge sees it (extension-handshake.ts).
    this.fromExtension({
      type: 'hello',
      protocol: WIRE_PROTOCOL_VERSION,
      browser: { userAgent: 'Mozilla/5.0 HeadlessChrome/156.0.0.0', product: 'Chrome/156.0.0.0' },
      tabs,
      proof: '',
    });
  }

  /** The commands the extension has been asked to run and not yet answered. */
  takeCommands(): RelayCommand[] {
    return this.toExtension.splice(0).filter((m) => m.type !== 'pong');
  }

  /** Answers every outstanding extension command with `result(command)`. */
  answerAll(result: (command: RelayCommand) => unknown = () => ({})): RelayCommand[] {
    const commands = this.takeCommands();
    for (const command of commands) this.fromExtension({ type: 'result', id: command.id }, result(command));
    return commands;
  }
}

let h: Harness;
beforeEach(() => {
  h = new Harness();
});

/** Playwright's connectOverCDP handshake: root auto-attach with Chrome's default filter. */
function playwrightAttach(client: number): Message[] {
  const id = h.send(client, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true });
  expect(h.answerOf(client, id)?.result).toEqual({});
  return h.events(client, 'Target.attachedToTarget');
}

/**
 * A browser-level `Storage.getCookies` from `client`: it must run as
 * `Network.getAllCookies` through tab 1; the jar there holds `jar`. What the client is told.
 */
function cookiesAnswered(client: number, jar: object[]): unknown {
  const id = h.send(client, 'Storage.getCookies', {});
  const [command] = h.takeCommands();
  expect(command).toMatchObject({ tabId: 1, method: 'Network.getAllCookies' });
  h.fromExtension({ type: 'result', id: command.id }, { cookies: jar });
  return h.answerOf(client, id)?.result;
}

describe('browser-level emulation', () => {
  it('answers Browser.getVersion without "Headless" in the user agent', () => {
    h.connectExtension([]);
    const c = h.client();
    const id = h.send(c, 'Browser.getVersion');
    expect(h.answerOf(c, id)?.result).toMatchObject({ product: 'Chrome/156.0.0.0', protocolVersion: '1.3' });
    expect(h.answerOf(c, id)?.result.userAgent).not.toContain('Headless');
  });

  it('auto-attaches shared page targets for Playwright, in the default context', () => {
    h.connectExtension([TAB_A, TAB_B]);
    const c = h.client();
    const attached = playwrightAttach(c);
    expect(attached.map((e) => e.params.targetInfo.targetId)).toEqual(['PAGE-A', 'PAGE-B']);
    expect(attached[0].params.targetInfo).toMatchObject({ type: 'page', browserContextId: 'clawd-default-context', attached: true });
    expect(new Set(attached.map((e) => e.params.sessionId)).size).toBe(2);
  });

  it('gives Puppeteer tab targets whose sessions auto-attach the page', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    h.send(c, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: 'page', exclude: true }, {}] });
    const [tab] = h.events(c, 'Target.attachedToTarget');
    expect(tab.params.targetInfo).toMatchObject({ type: 'tab', targetId: 'tab-1' });
    h.send(c, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{}] }, tab.params.sessionId);
    const page = h.events(c, 'Target.attachedToTarget')[1];
    expect(page.sessionId).toBe(tab.params.sessionId);
    expect(page.params.targetInfo).toMatchObject({ type: 'page', targetId: 'PAGE-A' });
  });

  it('reports discovered targets, with and without tabs, per the filter', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    h.send(c, 'Target.setDiscoverTargets', { discover: true, filter: [{}] });
    expect(h.events(c, 'Target.targetCreated').map((e) => e.params.targetInfo.type)).toEqual(['browser', 'tab', 'page']);
    const id = h.send(c, 'Target.getTargets');
    expect(h.answerOf(c, id)?.result.targetInfos.map((t: any) => t.targetId)).toEqual(['PAGE-A']);
  });

  it('describes the browser target and the default context', () => {
    h.connectExtension([]);
    const c = h.client();
    expect(h.answerOf(c, h.send(c, 'Target.getTargetInfo'))?.result.targetInfo.type).toBe('browser');
    expect(h.answerOf(c, h.send(c, 'Target.getBrowserContexts'))?.result).toEqual({ browserContextIds: [], defaultBrowserContextId: 'clawd-default-context' });
    expect(h.answerOf(c, h.send(c, 'Target.createBrowserContext'))?.error?.message).toMatch(/one browser context/);
  });

  it('Browser.close ends only that client', () => {
    h.connectExtension([TAB_A]);
    const c1 = h.client();
    const c2 = h.client();
    const id = h.send(c1, 'Browser.close');
    expect(h.answerOf(c1, id)?.result).toEqual({});
    expect(h.closed).toEqual([c1]);
    expect(h.takeCommands()).toEqual([]);
    expect(h.answerOf(c2, h.send(c2, 'Browser.getVersion'))?.result).toMatchObject({ protocolVersion: '1.3' });
  });
});

describe('a group per client (/cdp?group=)', () => {
  const inA: SharedTab = { ...TAB_A, group: 'a' };
  const inB: SharedTab = { ...TAB_B, group: 'b' };

  it("shows a grouped client its group's tabs only, and an ungrouped one all", () => {
    h.connectExtension([inA, inB, { tabId: 3, targetId: 'PAGE-C', url: 'https://c.example/', title: 'C' }]);
    const a = h.client('a');
    const everyone = h.client();
    expect(playwrightAttach(a).map((e) => e.params.targetInfo.targetId)).toEqual(['PAGE-A']);
    expect(playwrightAttach(everyone).map((e) => e.params.targetInfo.targetId)).toEqual(['PAGE-A', 'PAGE-B', 'PAGE-C']);
    expect(h.answerOf(a, h.send(a, 'Target.getTargets'))?.result.targetInfos.map((t: any) => t.targetId)).toEqual(['PAGE-A']);
    // Another group's tab is as unknown as one that never existed, whatever the method.
    for (const [method, params] of [
      ['Target.attachToTarget', { targetId: 'PAGE-B', flatten: true }],
      ['Target.getTargetInfo', { targetId: 'PAGE-B' }],
      ['Target.closeTarget', { targetId: 'PAGE-B' }],
      ['Target.activateTarget', { targetId: 'PAGE-B' }],
    ] as const) {
      expect(h.answerOf(a, h.send(a, method, params))?.error?.message, method).toMatch(/No target with given id found: PAGE-B/);
    }
    expect(h.takeCommands()).toEqual([]);
  });

  it("scopes a grouped client's cookie calls to its group's sites", () => {
    h.connectExtension([inB, inA]);
    const jar = [
      { name: 'k', domain: 'a.example' },
      { name: 'other', domain: 'b.example' },
    ];
    expect(cookiesAnswered(h.client('a'), jar)).toEqual({ cookies: [{ name: 'k', domain: 'a.example' }] });
  });

  it("announces a tab shared into a group to that group's clients only, and its going too", () => {
    h.connectExtension([]);
    const a = h.client('a');
    const b = h.client('b');
    h.send(a, 'Target.setDiscoverTargets', { discover: true, filter: [{}] });
    h.send(b, 'Target.setDiscoverTargets', { discover: true, filter: [{}] });
    playwrightAttach(a);
    playwrightAttach(b);
    h.fromExtension({ type: 'tabShared', tab: inB });
    expect(h.events(a).filter((e) => e.params?.targetInfo?.targetId === 'PAGE-B')).toEqual([]);
    expect(h.events(b, 'Target.attachedToTarget').map((e) => e.params.targetInfo.targetId)).toEqual(['PAGE-B']);
    h.fromExtension({ type: 'tabUnshared', tabId: 2, reason: 'the tab left the clawd group' });
    expect(h.events(a, 'Target.targetDestroyed')).toEqual([]);
    expect(h.events(b, 'Target.targetDestroyed').map((e) => e.params.targetId)).toContain('PAGE-B');
  });

  it("asks the extension to open a grouped client's new tab in its group", () => {
    h.connectExtension([]);
    const b = h.client('b');
    playwrightAttach(b);
    h.send(b, 'Target.createTarget', { url: 'about:blank' });
    expect(h.takeCommands()).toEqual([expect.objectContaining({ type: 'createTab', url: 'about:blank', group: 'b' })]);
  });
});

describe('forwarding to tabs', () => {
  it('maps ids both ways and splices raw results', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const id = h.send(c, 'Runtime.evaluate', { expression: '1+1' }, session);
    const [command] = h.takeCommands();
    expect(command).toMatchObject({ type: 'cdp', tabId: 1, method: 'Runtime.evaluate', params: { expression: '1+1' } });
    expect(command.id).not.toBe(id);
    h.fromExtension({ type: 'result', id: command.id }, { result: { type: 'number', value: 2 } });
    expect(h.answerOf(c, id)).toEqual({ id, sessionId: session, result: { result: { type: 'number', value: 2 } } });
  });

  it('passes CDP errors from the tab through unchanged', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const id = h.send(c, 'Runtime.noSuchMethod', {}, session);
    const [command] = h.takeCommands();
    h.fromExtension({ type: 'error', id: command.id }, { code: -32601, message: "'Nope.method' wasn't found" });
    expect(h.answerOf(c, id)?.error).toEqual({ code: -32601, message: "'Nope.method' wasn't found" });
  });

  it('delivers tab events only to clients attached to that tab', () => {
    h.connectExtension([TAB_A, TAB_B]);
    const attachedToA = h.client();
    const sessionA = playwrightAttach(attachedToA)[0].params.sessionId;
    h.send(attachedToA, 'Page.enable', {}, sessionA);
    h.answerAll();
    const bystander = h.client(); // connected, never attached
    h.fromExtension({ type: 'event', tabId: 1, method: 'Page.loadEventFired' }, { timestamp: 1 });
    expect(h.events(attachedToA, 'Page.loadEventFired')).toEqual([{ method: 'Page.loadEventFired', sessionId: sessionA, params: { timestamp: 1 } }]);
    expect(h.events(bystander)).toEqual([]);
  });

  it("delivers a domain's events only to the sessions that enabled it, as Chrome does", () => {
    h.connectExtension([TAB_A]);
    const enabled = h.client();
    const s1 = playwrightAttach(enabled)[0].params.sessionId;
    const notYet = h.client();
    const s2 = playwrightAttach(notYet)[0].params.sessionId;
    h.send(enabled, 'Runtime.enable', {}, s1);
    h.send(enabled, 'Fetch.enable', {}, s1);
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.consoleAPICalled' }, { type: 'log', args: [] });
    h.fromExtension({ type: 'event', tabId: 1, method: 'Fetch.requestPaused' }, { requestId: 'r1' });
    h.fromExtension({ type: 'event', tabId: 1, method: 'Page.screencastFrame' }, { data: '', sessionId: 1 }); // sent without Page.enable
    h.fromExtension({ type: 'event', tabId: 1, method: 'Tracing.dataCollected' }, { value: [] }); // a domain with no enable
    expect(h.events(enabled).map((m) => m.method)).toEqual(
      expect.arrayContaining(['Runtime.consoleAPICalled', 'Fetch.requestPaused', 'Page.screencastFrame', 'Tracing.dataCollected']),
    );
    expect(
      h
        .events(notYet)
        .filter((m) => m.sessionId === s2)
        .map((m) => m.method),
    ).toEqual(['Page.screencastFrame', 'Tracing.dataCollected']);
  });

  it("holds a domain's events from X.enable until Chrome answers it, then replays, releases, answers", () => {
    h.connectExtension([TAB_A]);
    const first = h.client();
    const s1 = playwrightAttach(first)[0].params.sessionId;
    h.send(first, 'Runtime.enable', {}, s1);
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: { id: 1, origin: '', name: '', uniqueId: 'u1' } });

    const second = h.client();
    const s2 = playwrightAttach(second)[0].params.sessionId;
    const frameTree = h.send(second, 'Page.getFrameTree', {}, s2);
    const enable = h.send(second, 'Runtime.enable', {}, s2);
    const [treeCommand, enableCommand] = h.takeCommands();
    // A navigation is under way: Chrome reports a new context before answering either command.
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextsCleared' }, {});
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: { id: 2, origin: '', name: '', uniqueId: 'u2' } });
    expect(h.toClient.get(second)!.filter((m) => m.sessionId === s2)).toEqual([]);
    h.fromExtension({ type: 'result', id: treeCommand.id }, { frameTree: {} });
    h.fromExtension({ type: 'result', id: enableCommand.id }, {});
    const seen = h.toClient
      .get(second)!
      .filter((m) => m.sessionId === s2)
      .map((m) => m.id ?? `${m.method}${m.params?.context ? `#${m.params.context.id}` : ''}`);
    expect(seen).toEqual([frameTree, 'Runtime.executionContextCreated#1', 'Runtime.executionContextsCleared', 'Runtime.executionContextCreated#2', enable]);
  });

  it('creates a target: attachedToTarget arrives before the createTarget answer', () => {
    h.connectExtension([]);
    const c = h.client();
    playwrightAttach(c);
    const id = h.send(c, 'Target.createTarget', { url: 'about:blank' });
    const [command] = h.takeCommands();
    expect(command).toMatchObject({ type: 'createTab', url: 'about:blank', active: true });
    h.fromExtension({ type: 'tabShared', tab: TAB_B });
    h.fromExtension({ type: 'result', id: command.id }, { tabId: 2, targetId: 'PAGE-B' });
    const messages = h.toClient.get(c)!;
    const attachIndex = messages.findIndex((m) => m.method === 'Target.attachedToTarget' && m.params.targetInfo.targetId === 'PAGE-B');
    const answerIndex = messages.findIndex((m) => m.id === id);
    expect(answerIndex).toBeGreaterThan(attachIndex);
    expect(messages[answerIndex].result).toEqual({ targetId: 'PAGE-B' });
  });

  it("maps browser-level cookie calls onto a shared tab, scoped to the shared tabs' sites", () => {
    h.connectExtension([TAB_A]);
    const jar = [
      { name: 'k', domain: 'a.example' },
      { name: 'bank', domain: 'bank.example' },
    ];
    expect(cookiesAnswered(h.client(), jar)).toEqual({ cookies: [{ name: 'k', domain: 'a.example' }] });
  });
});

describe('the consent boundary in the target model', () => {
  function attachedPage(tabs = [TAB_A]): { c: number; session: string } {
    h.connectExtension(tabs);
    const c = h.client();
    const [attached] = playwrightAttach(c);
    return { c, session: attached.params.sessionId };
  }

  it('refuses to open or navigate a tab outside the URL gate, sending the extension nothing', () => {
    const { c, session } = attachedPage();
    for (const url of ['chrome-extension://opdopiaocmjejejdfeokihimdckpgibd/options.html', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x']) {
      expect(h.answerOf(c, h.send(c, 'Target.createTarget', { url }))?.error?.message).toMatch(/^Navigation refused: .* URLs are refused/);
      expect(h.answerOf(c, h.send(c, 'Page.navigate', { url }, session))?.error?.message).toMatch(/^Navigation refused/);
    }
    expect(h.takeCommands()).toEqual([]);
    h.send(c, 'Page.navigate', { url: 'https://ok.example/' }, session);
    expect(h.takeCommands()).toMatchObject([{ method: 'Page.navigate', params: { url: 'https://ok.example/' } }]);
  });

  it('forwards only allowlisted methods', () => {
    const { c, session } = attachedPage();
    for (const method of [
      'DOMStorage.getDOMStorageItems',
      'IndexedDB.requestData',
      'Network.loadNetworkResource',
      'Target.getTargets',
      'ServiceWorker.unregister',
    ])
      expect(h.answerOf(c, h.send(c, method, {}, session))?.error?.message).toMatch(/is not forwarded to shared tabs/);
    expect(h.takeCommands()).toEqual([]);
  });

  it('filters page-level cookie reads and refuses writes to other sites', () => {
    const { c, session } = attachedPage();
    const read = h.send(c, 'Network.getAllCookies', {}, session);
    h.answerAll(() => ({
      cookies: [
        { name: 'mine', domain: '.a.example' },
        { name: 'bank', domain: 'bank.example', httpOnly: true },
      ],
    }));
    expect(h.answerOf(c, read)?.result.cookies.map((cookie: any) => cookie.name)).toEqual(['mine']);
    expect(h.answerOf(c, h.send(c, 'Network.setCookie', { name: 'x', value: 'y', domain: 'bank.example' }, session))?.error?.message).toMatch(
      /outside the shared tabs' sites/,
    );
    expect(h.answerOf(c, h.send(c, 'Network.getCookies', { urls: ['https://bank.example/'] }, session))?.error?.message).toMatch(/outside/);
    expect(h.answerOf(c, h.send(c, 'Storage.clearDataForOrigin', { origin: 'https://bank.example', storageTypes: 'all' }, session))?.error?.message).toMatch(
      /outside/,
    );
    expect(h.takeCommands()).toEqual([]);
  });

  it("clears only the shared sites' cookies, answering once every delete is done", () => {
    const { c } = attachedPage();
    const id = h.send(c, 'Storage.clearCookies', {});
    h.answerAll(() => ({
      cookies: [
        { name: 'a1', domain: 'a.example', path: '/' },
        { name: 'bank', domain: 'bank.example', path: '/' },
        { name: 'a2', domain: '.a.example', path: '/x' },
      ],
    }));
    const deletes = h.takeCommands();
    expect(deletes.map((d: any) => [d.method, d.params])).toEqual([
      ['Network.deleteCookies', { name: 'a1', domain: 'a.example', path: '/' }],
      ['Network.deleteCookies', { name: 'a2', domain: '.a.example', path: '/x' }],
    ]);
    expect(h.answerOf(c, id)).toBeUndefined();
    h.fromExtension({ type: 'result', id: deletes[0].id }, {});
    expect(h.answerOf(c, id)).toBeUndefined();
    h.fromExtension({ type: 'error', id: deletes[1].id }, { code: -32000, message: 'gone' });
    expect(h.answerOf(c, id)?.result).toEqual({});
  });

  it('lets a frame of an extension inside a shared tab go unseen, and detaches it', () => {
    const { c } = attachedPage();
    h.fromExtension(
      { type: 'event', tabId: 1, method: 'Target.attachedToTarget' },
      {
        sessionId: 'CHILD-X',
        targetInfo: { targetId: 'X', type: 'iframe', url: 'chrome-extension://other/page.html', title: '', attached: true, canAccessOpener: false },
        waitingForDebugger: false,
      },
    );
    expect(h.events(c, 'Target.attachedToTarget').some((e) => e.params.sessionId === 'CHILD-X')).toBe(false);
    expect(h.takeCommands()).toMatchObject([{ method: 'Target.detachFromTarget', params: { sessionId: 'CHILD-X' } }]);
  });

  it('caps the commands one client may have in flight', () => {
    h = new Harness(new CdpBridge({ maxPendingPerClient: 2 }));
    const { c, session } = attachedPage();
    const ids = [1, 2, 3].map(() => h.send(c, 'Runtime.evaluate', { expression: '1' }, session));
    expect(h.answerOf(c, ids[2])?.error?.message).toMatch(/Too many commands in flight \(2\)/);
    expect(h.takeCommands()).toHaveLength(2);
  });

  it('expires commands the extension never answers, and forgets those of clients that left', () => {
    let now = 0;
    const bridge = new CdpBridge({ pendingTimeoutMs: 1000, now: () => now });
    h = new Harness(bridge);
    const { c, session } = attachedPage();
    const id = h.send(c, 'Runtime.evaluate', { expression: 'new Promise(() => {})' }, session);
    now = 999;
    h.apply(bridge.expirePending());
    expect(h.answerOf(c, id)).toBeUndefined();
    now = 1001;
    h.apply(bridge.expirePending());
    expect(h.answerOf(c, id)?.error?.message).toMatch(/did not answer within 1 s/);
    expect(bridge.pendingCount).toBe(0);
    h.send(c, 'Runtime.evaluate', { expression: '2' }, session);
    expect(bridge.pendingCount).toBe(1);
    h.takeCommands();
    h.apply(bridge.removeClient(c));
    // Only the relay's own clean-up of the tab is left in flight; the client's command is forgotten.
    const cleanup = h.takeCommands();
    expect(cleanup.some((command: any) => command.method === 'Runtime.evaluate')).toBe(false);
    expect(bridge.pendingCount).toBe(cleanup.length);
  });

  it('drops extension payloads that are not JSON with a protocolError, state intact', () => {
    const { c, session } = attachedPage();
    h.toExtension.length = 0;
    const frame = (method: string, payload: string) => new TextEncoder().encode(encodeExtensionFrame({ type: 'event', tabId: 1, method }, payload));
    h.apply(h.bridge.handleExtensionMessage(frame('Runtime.executionContextCreated', '{"context": ')));
    h.apply(h.bridge.handleExtensionMessage(frame('Target.detachedFromTarget', 'null')));
    const id = h.send(c, 'Target.createTarget', { url: 'https://b.example/' });
    const create = h.toExtension.find((m) => m.type === 'createTab');
    h.apply(h.bridge.handleExtensionMessage(new TextEncoder().encode(encodeExtensionFrame({ type: 'result', id: create.id }, 'oops'))));
    expect(h.toExtension.filter((m) => m.type === 'protocolError').map((m) => m.message)).toEqual([
      expect.stringMatching(/^event frame dropped: payload is not (a )?JSON/),
      expect.stringMatching(/^event frame dropped: payload is not a JSON object/),
      expect.stringMatching(/^result frame dropped: payload is not (a )?JSON/),
    ]);
    // The client waiting on that answer is told, not left hanging.
    expect(h.answerOf(c, id)?.error?.message).toMatch(/unreadable answer/);
    h.takeCommands();
    h.send(c, 'Runtime.evaluate', { expression: '1' }, session);
    expect(h.takeCommands()).toHaveLength(1);
  });
});

describe('several clients on one tab', () => {
  it('replays live execution contexts to a client that enables Runtime second', () => {
    h.connectExtension([TAB_A]);
    const first = h.client();
    const s1 = playwrightAttach(first)[0].params.sessionId;
    h.send(first, 'Runtime.enable', {}, s1);
    h.answerAll();
    const context = { context: { id: 7, origin: 'https://a.example', name: '', uniqueId: 'u7', auxData: { isDefault: true, frameId: 'F' } } };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, context);
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: { ...context.context, id: 8 } });
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextDestroyed' }, { executionContextId: 8, executionContextUniqueId: 'u8' });

    const second = h.client();
    const s2 = playwrightAttach(second)[0].params.sessionId;
    const id = h.send(second, 'Runtime.enable', {}, s2);
    h.answerAll();
    const messages = h.toClient.get(second)!;
    const replayed = messages.filter((m) => m.method === 'Runtime.executionContextCreated');
    expect(replayed.map((m) => m.params.context.id)).toEqual([7]);
    expect(messages.indexOf(replayed[0])).toBeLessThan(messages.findIndex((m) => m.id === id));
  });

  it('replays contexts Chrome still reports after a disable of ours failed (crashed tab)', () => {
    h.connectExtension([TAB_A]);
    const leaving = h.client();
    const s1 = playwrightAttach(leaving)[0].params.sessionId;
    h.send(leaving, 'Runtime.enable', {}, s1);
    h.answerAll();
    h.apply(h.bridge.removeClient(leaving));
    // The relay's cleanup Runtime.disable fails: the renderer had crashed.
    for (const command of h.takeCommands()) h.fromExtension({ type: 'error', id: command.id }, { code: -32000, message: 'Target crashed' });
    // After a reload Chrome, still enabled, reports the new context to nobody.
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextsCleared' }, {});
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: { id: 31, origin: '', name: '', uniqueId: 'u31' } });

    const next = h.client();
    const s2 = playwrightAttach(next)[0].params.sessionId;
    const id = h.send(next, 'Runtime.enable', {}, s2);
    h.answerAll();
    expect(h.events(next, 'Runtime.executionContextCreated').map((m) => m.params.context.id)).toEqual([31]);
    expect(h.answerOf(next, id)?.result).toEqual({});
  });

  it('keeps a domain on in Chrome until the last client disables it', () => {
    h.connectExtension([TAB_A]);
    const a = h.client();
    const b = h.client();
    const sa = playwrightAttach(a)[0].params.sessionId;
    const sb = playwrightAttach(b)[0].params.sessionId;
    h.send(a, 'Network.enable', {}, sa);
    h.send(b, 'Network.enable', {}, sb);
    h.answerAll();
    const id = h.send(a, 'Network.disable', {}, sa);
    expect(h.takeCommands()).toEqual([]); // b still needs it
    expect(h.answerOf(a, id)?.result).toEqual({});
    h.apply(h.bridge.removeClient(b));
    expect(h.takeCommands().map((c) => (c as { method: string }).method)).toEqual(['Network.disable']);
    // The last client leaves: the tab is reset so nothing stays paused or intercepted.
    h.apply(h.bridge.removeClient(a));
    const reset = h.takeCommands().map((c) => (c as { method: string }).method);
    expect(reset).toContain('Target.setAutoAttach');
    expect(reset).toContain('Page.setInterceptFileChooserDialog');
  });

  it('announces child sessions to each client once and replays them to late auto-attachers', () => {
    h.connectExtension([TAB_A]);
    const a = h.client();
    const sa = playwrightAttach(a)[0].params.sessionId;
    h.send(a, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sa);
    h.answerAll();
    const iframe = {
      sessionId: 'CHILD-1',
      targetInfo: { targetId: 'FRAME-1', type: 'iframe', title: '', url: 'https://x.example/', attached: true, canAccessOpener: false },
      waitingForDebugger: true,
    };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.attachedToTarget' }, iframe);
    expect(h.events(a, 'Target.attachedToTarget').at(-1)).toMatchObject({ sessionId: sa, params: { sessionId: 'CHILD-1' } });

    // A command on the child session goes to chrome.debugger with that sessionId.
    h.send(a, 'Runtime.evaluate', { expression: '1' }, 'CHILD-1');
    expect(h.takeCommands()[0]).toMatchObject({ tabId: 1, sessionId: 'CHILD-1', method: 'Runtime.evaluate' });

    const b = h.client();
    const sb = playwrightAttach(b)[0].params.sessionId;
    const id = h.send(b, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, sb);
    h.answerAll();
    const late = h.events(b, 'Target.attachedToTarget').filter((e) => e.sessionId === sb);
    expect(late.map((e) => e.params.sessionId)).toEqual(['CHILD-1']);
    expect(h.answerOf(b, id)?.result).toEqual({});

    h.send(a, 'Runtime.enable', {}, 'CHILD-1');
    h.send(b, 'Runtime.enable', {}, 'CHILD-1');
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, sessionId: 'CHILD-1', method: 'Runtime.consoleAPICalled' }, { type: 'log', args: [] });
    expect(h.events(a, 'Runtime.consoleAPICalled')[0].sessionId).toBe('CHILD-1');
    expect(h.events(b, 'Runtime.consoleAPICalled')[0].sessionId).toBe('CHILD-1');

    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.detachedFromTarget' }, { sessionId: 'CHILD-1', targetId: 'FRAME-1' });
    expect(h.events(a, 'Target.detachedFromTarget').at(-1)).toMatchObject({ sessionId: sa, params: { sessionId: 'CHILD-1' } });
    expect(h.answerOf(a, h.send(a, 'Runtime.evaluate', {}, 'CHILD-1'))?.error?.code).toBe(-32001);
  });

  it('attaches a client to a child target it asks for by id, as a session of its own beside the auto-attached one', () => {
    h.connectExtension([TAB_A]);
    const a = h.client();
    const sa = playwrightAttach(a)[0].params.sessionId;
    h.send(a, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, sa);
    h.answerAll();
    const iframe = {
      sessionId: 'CHILD-2',
      targetInfo: { targetId: 'FRAME-2', type: 'iframe', title: '', url: 'https://x.example/', attached: true, canAccessOpener: false },
      waitingForDebugger: false,
    };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.attachedToTarget' }, iframe);
    // Playwright's newCDPSession(frame) for an out-of-process frame.
    const id = h.send(a, 'Target.attachToTarget', { targetId: 'FRAME-2', flatten: true });
    const own = (h.answerOf(a, id)?.result as { sessionId: string }).sessionId;
    expect(own).not.toBe('CHILD-2');
    expect(h.events(a, 'Target.attachedToTarget').at(-1)).toMatchObject({ params: { sessionId: own, targetInfo: { targetId: 'FRAME-2' } } });
    // Its commands go to the child's Chrome session; the child's events reach both of the client's sessions.
    h.send(a, 'Page.enable', {}, own);
    expect(h.takeCommands()[0]).toMatchObject({ tabId: 1, sessionId: 'CHILD-2', method: 'Page.enable' });
    h.answerAll();
    h.send(a, 'Runtime.enable', {}, 'CHILD-2');
    h.send(a, 'Runtime.enable', {}, own);
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, sessionId: 'CHILD-2', method: 'Runtime.consoleAPICalled' }, { type: 'log', args: [] });
    expect(
      h
        .events(a, 'Runtime.consoleAPICalled')
        .map((event) => event.sessionId)
        .sort(),
    ).toEqual(['CHILD-2', own].sort());
    // A target of no tab the client sees stays unknown.
    expect(h.answerOf(a, h.send(a, 'Target.attachToTarget', { targetId: 'NOPE', flatten: true }))?.error?.message).toMatch(/No target with given id found/);
    // The child going detaches both.
    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.detachedFromTarget' }, { sessionId: 'CHILD-2', targetId: 'FRAME-2' });
    expect(
      h
        .events(a, 'Target.detachedFromTarget')
        .map((event) => event.params.sessionId)
        .sort(),
    ).toEqual(['CHILD-2', own].sort());
    expect(h.answerOf(a, h.send(a, 'Runtime.evaluate', {}, own))?.error?.code).toBe(-32001);
  });

  it('resumes a child paused on start when no client is there to do it', () => {
    h.connectExtension([TAB_A]);
    const iframe = {
      sessionId: 'CHILD-9',
      targetInfo: { targetId: 'F9', type: 'iframe', title: '', url: '', attached: true, canAccessOpener: false },
      waitingForDebugger: true,
    };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.attachedToTarget' }, iframe);
    expect(h.takeCommands()).toEqual([expect.objectContaining({ sessionId: 'CHILD-9', method: 'Runtime.runIfWaitingForDebugger' })]);
  });
});

describe('tabs going away and the extension reconnecting', () => {
  it('fails pending commands and detaches sessions when a tab is unshared', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Target.setDiscoverTargets', { discover: true });
    const id = h.send(c, 'Runtime.evaluate', { expression: 'new Promise(() => {})' }, session);
    h.fromExtension({ type: 'tabUnshared', tabId: 1, reason: 'the user stopped sharing the tab' });
    expect(h.answerOf(c, id)?.error?.message).toBe('Target closed: the user stopped sharing the tab');
    expect(h.events(c, 'Target.detachedFromTarget')).toEqual([{ method: 'Target.detachedFromTarget', params: { sessionId: session, targetId: 'PAGE-A' } }]);
    expect(h.events(c, 'Target.targetDestroyed')).toEqual([{ method: 'Target.targetDestroyed', params: { targetId: 'PAGE-A' } }]);
    // A late answer from the extension for the failed command is ignored.
    const [command] = h.takeCommands();
    h.fromExtension({ type: 'result', id: command.id }, {});
    expect(h.toClient.get(c)!.filter((m) => m.id === id)).toHaveLength(1);
    expect(h.answerOf(c, h.send(c, 'Runtime.evaluate', {}, session))?.error?.code).toBe(-32001);
  });

  it('reports a renderer crash to the tab session and, as targetCrashed, to discovering clients', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Target.setDiscoverTargets', { discover: true });
    h.send(c, 'Inspector.enable', {}, session);
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, method: 'Inspector.targetCrashed' }, {});
    expect(h.events(c, 'Inspector.targetCrashed')).toEqual([{ method: 'Inspector.targetCrashed', sessionId: session, params: {} }]);
    expect(h.events(c, 'Target.targetCrashed')).toEqual([{ method: 'Target.targetCrashed', params: { targetId: 'PAGE-A', status: 'crashed', errorCode: 0 } }]);
    expect(h.bridge.sharedTabs()).toHaveLength(1); // the debugger stays attached to a crashed tab
  });

  it('hands downloads of shared tabs to its owner, not to CDP clients, and ignores unshared tabs', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    playwrightAttach(c);
    const before = h.toClient.get(c)!.length;
    const download = { url: 'https://a.example/f.zip', filename: '/home/u/f.zip', bytesReceived: 1, totalBytes: 2, error: undefined };
    h.fromExtension({ type: 'download', tabId: 1, download: { id: 7, state: 'in_progress', ...download } });
    h.fromExtension({ type: 'download', tabId: 1, download: { id: 7, state: 'complete', ...download } });
    h.fromExtension({ type: 'download', tabId: 99, download: { id: 8, state: 'complete', ...download } });
    expect(h.downloads).toEqual([
      { targetId: 'PAGE-A', id: 7, state: 'in_progress' },
      { targetId: 'PAGE-A', id: 7, state: 'complete' },
    ]);
    expect(h.toClient.get(c)!.length).toBe(before);
  });

  it("hands the person's consent answers to its owner, and refuses them before hello", () => {
    h.bridge.extensionConnected();
    h.fromExtension({ type: 'consentAnswer', id: 1, allowed: true, domains: ['a.example'] });
    expect(h.toExtension.splice(0).map((m) => m.message)).toEqual(['send hello first']);
    h.connectExtension([TAB_A]);
    h.fromExtension({ type: 'consentAnswer', id: 3, allowed: true, domains: ['a.example'] });
    h.fromExtension({ type: 'consentAnswer', id: 'x', allowed: true } as never);
    expect(h.consents).toEqual([{ id: 3, allowed: true, domains: ['a.example'] }]);
    expect(h.toExtension.filter((m) => m.type === 'protocolError').map((m) => m.message)).toEqual([
      expect.stringMatching(/bad extension frame \(type "consentAnswer"\)/),
    ]);
  });

  it("hands the person's teaching requests on a shared tab to its owner, with the tab's target; another tab's are answered at once", () => {
    h.connectExtension([TAB_A]);
    h.fromExtension({ type: 'teach', id: 4, tabId: 1, op: 'stop', name: 'sign-up' });
    expect(h.teaching).toEqual([{ id: 4, targetId: 'PAGE-A', op: 'stop', name: 'sign-up' }]);
    h.fromExtension({ type: 'teach', id: 5, tabId: 99, op: 'demonstrate' });
    expect(h.teaching.length).toBe(1);
    expect(h.toExtension.filter((m) => m.type === 'taught')).toEqual([
      { type: 'taught', id: 5, ok: false, error: expect.stringMatching(/^this tab is not shared/) },
    ]);
    h.fromExtension({ type: 'teach', id: 6, tabId: 1, op: 'erase everything' } as never);
    expect(h.toExtension.filter((m) => m.type === 'protocolError').map((m) => m.message)).toEqual([
      expect.stringMatching(/bad extension frame \(type "teach"\)/),
    ]);
  });

  it('emulates DOM.setFileInputFiles: the server reads the files, the page gets their contents', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.takeCommands();
    // By backendNodeId (a file chooser): the node is resolved first, then the files set on it.
    const id = h.send(c, 'DOM.setFileInputFiles', { files: ['/tmp/a.txt'], backendNodeId: 7 }, session);
    expect(h.takeCommands()).toEqual([]); // nothing reaches Chrome's refused method
    expect(h.fileReads).toEqual([{ requestId: 1, paths: ['/tmp/a.txt'] }]);
    h.apply(h.bridge.filesRead(1, { files: [{ name: 'a.txt', mimeType: 'text/plain', base64: 'aGk=' }] }));
    const [resolve] = h.takeCommands();
    expect(resolve).toMatchObject({ method: 'DOM.resolveNode', params: { backendNodeId: 7 } });
    h.fromExtension({ type: 'result', id: resolve.id }, { object: { objectId: 'OBJ-1' } });
    const [set] = h.takeCommands();
    expect(set).toMatchObject({
      method: 'Runtime.callFunctionOn',
      params: { objectId: 'OBJ-1', arguments: [{ value: [{ name: 'a.txt', mimeType: 'text/plain', base64: 'aGk=' }] }] },
    });
    h.fromExtension({ type: 'result', id: set.id }, { result: { type: 'undefined' } });
    expect(h.answerOf(c, id)).toMatchObject({ result: {} });

    // A path outside the upload folders: the server's refusal reaches the client.
    const refused = h.send(c, 'DOM.setFileInputFiles', { files: ['/root/.ssh/id_rsa'], objectId: 'OBJ-2' }, session);
    h.apply(h.bridge.filesRead(2, { error: 'no such file in the upload folders' }));
    expect(h.answerOf(c, refused)?.error?.message).toBe('Upload refused: no such file in the upload folders');
    // A page that throws (not a file input) fails the command with its message.
    const wrong = h.send(c, 'DOM.setFileInputFiles', { files: ['/tmp/a.txt'], objectId: 'OBJ-3' }, session);
    h.apply(h.bridge.filesRead(3, { files: [] }));
    const [call] = h.takeCommands();
    h.fromExtension(
      { type: 'result', id: call.id },
      { exceptionDetails: { text: 'Uncaught', exception: { description: 'Error: Node is not a file input element\n    at x' } } },
    );
    expect(h.answerOf(c, wrong)?.error?.message).toBe('Error: Node is not a file input element');
    expect(h.answerOf(c, h.send(c, 'DOM.setFileInputFiles', { files: [] }, session))?.error?.message).toMatch(/nodeId, backendNodeId or objectId/);
  });

  it('makes download events for clients that asked, and waits for the copy an allowAndName client expects', () => {
    h.connectExtension([TAB_A]);
    const playwright = h.client();
    const quiet = h.client();
    h.send(playwright, 'Browser.setDownloadBehavior', { behavior: 'allowAndName', downloadPath: '/tmp/pw-artifacts', eventsEnabled: true });
    h.send(quiet, 'Browser.setDownloadBehavior', { behavior: 'allow' });
    const base = { id: 4, url: 'https://a.example/r.txt', bytesReceived: 0, totalBytes: 12 };
    h.fromExtension({ type: 'download', tabId: 1, download: { ...base, filename: '', state: 'in_progress' } });
    expect(h.events(playwright)).toEqual([]); // no name chosen yet
    // The folder already held r.txt and r (1).txt: the site's name is what the extension heard before Chrome made it unique.
    const named = { ...base, filename: '/home/u/Downloads/r (2).txt', suggestedFilename: 'r.txt' };
    h.fromExtension({ type: 'download', tabId: 1, download: { ...named, state: 'in_progress', bytesReceived: 6 } });
    h.fromExtension({ type: 'download', tabId: 1, download: { ...named, state: 'complete', bytesReceived: 12 } });
    expect(h.events(playwright).map((e) => [e.method, e.params.state ?? e.params.suggestedFilename])).toEqual([
      ['Browser.downloadWillBegin', 'r.txt'],
      ['Browser.downloadProgress', 'inProgress'],
    ]);
    expect(h.events(playwright)[0].params.frameId).toBe('PAGE-A');
    expect(h.copies).toEqual([{ requestId: 1, from: '/home/u/Downloads/r (2).txt', dir: '/tmp/pw-artifacts', name: h.events(playwright)[0].params.guid }]);
    h.apply(h.bridge.downloadCopied(1, true));
    expect(h.events(playwright).at(-1)).toMatchObject({ method: 'Browser.downloadProgress', params: { state: 'completed', receivedBytes: 12 } });
    expect(h.events(quiet)).toEqual([]);
  });

  it('keeps sessions through a reconnect and queues commands meanwhile', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const inFlight = h.send(c, 'Runtime.evaluate', { expression: '1' }, session);
    h.apply(h.bridge.extensionDisconnected());
    expect(h.bridge.extensionState).toBe('reconnecting');
    expect(h.answerOf(c, inFlight)?.error?.message).toMatch(/disconnected while the command was in flight/);

    h.takeCommands();
    const queued = h.send(c, 'Runtime.evaluate', { expression: '2' }, session);
    expect(h.takeCommands()).toEqual([]);
    h.connectExtension([TAB_A]);
    const [command] = h.takeCommands();
    expect(command).toMatchObject({ method: 'Runtime.evaluate', params: { expression: '2' } });
    h.fromExtension({ type: 'result', id: command.id }, { result: { value: 2 } });
    expect(h.answerOf(c, queued)?.result).toEqual({ result: { value: 2 } });
    expect(h.events(c, 'Target.detachedFromTarget')).toEqual([]);
  });

  it('sends repeatable commands in flight again when the worker is back; others fail', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const world = h.send(c, 'Page.createIsolatedWorld', { frameId: 'F', worldName: 'utility' }, session);
    const enable = h.send(c, 'Network.enable', {}, session);
    const evaluate = h.send(c, 'Runtime.evaluate', { expression: '1' }, session);
    h.takeCommands();
    h.apply(h.bridge.extensionDisconnected());
    expect(h.answerOf(c, evaluate)?.error?.message).toMatch(/disconnected while the command was in flight/);
    expect(h.answerOf(c, world)).toBeUndefined();
    expect(h.answerOf(c, enable)).toBeUndefined();
    const queued = h.send(c, 'Runtime.evaluate', { expression: '2' }, session);
    h.connectExtension([TAB_A]);
    // Sent again in their order, ahead of what was queued meanwhile.
    const commands = h.answerAll((command) => (command.type === 'cdp' && command.method === 'Page.createIsolatedWorld' ? { executionContextId: 3 } : {}));
    expect(commands.map((command) => command.type === 'cdp' && command.method)).toEqual(['Page.createIsolatedWorld', 'Network.enable', 'Runtime.evaluate']);
    expect(h.answerOf(c, world)?.result).toEqual({ executionContextId: 3 });
    expect(h.answerOf(c, enable)?.result).toEqual({});
    expect(h.answerOf(c, queued)?.result).toEqual({});
    // Gone for good past the grace period: then they fail like the rest.
    const again = h.send(c, 'Page.createIsolatedWorld', { frameId: 'F', worldName: 'other' }, session);
    h.apply(h.bridge.extensionDisconnected());
    h.apply(h.bridge.expireGrace());
    expect(h.answerOf(c, again)?.error?.message).toMatch(/did not reconnect/);
  });

  it("reports a re-sent isolated world's context that went with the old worker, before its answer, once", () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Runtime.enable', {}, session);
    h.answerAll();
    const main = { id: 1, origin: 'https://a.example', name: '', uniqueId: 'u1', auxData: { frameId: 'F', isDefault: true, type: 'default' } };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: main });
    const worlds = ['lost', 'held'].map((worldName) => h.send(c, 'Page.createIsolatedWorld', { frameId: 'F', worldName }, session));
    h.takeCommands();
    h.apply(h.bridge.extensionDisconnected());
    h.connectExtension([TAB_A]);
    // The new worker hands on the event Chrome kept for it ('held'); the other one is lost.
    const held = { id: 3, origin: 'https://a.example', name: 'held', uniqueId: 'u3', auxData: { frameId: 'F', isDefault: false, type: 'isolated' } };
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.executionContextCreated' }, { context: held });
    // Chrome answers the worlds it made the first time with their ids, and reports nothing.
    h.answerAll((command) => ({
      executionContextId: command.type === 'cdp' && (command.params as { worldName?: string } | undefined)?.worldName === 'lost' ? 2 : 3,
    }));
    const messages = h.toClient.get(c)!.filter((m) => m.sessionId === session);
    const contexts = messages.filter((m) => m.method === 'Runtime.executionContextCreated').map((m) => m.params.context);
    expect(contexts.map((context) => [context.id, context.name])).toEqual([
      [1, ''],
      [3, 'held'],
      [2, 'lost'],
    ]);
    expect(contexts[2]).toMatchObject({ origin: 'https://a.example', auxData: { frameId: 'F', isDefault: false, type: 'isolated' } });
    const reported = messages.findIndex((m) => m.params?.context?.id === 2);
    expect(reported).toBeLessThan(messages.findIndex((m) => m.id === worlds[0]));
    // A client that enables Runtime later gets it replayed like any other context.
    const late = h.client();
    const lateSession = playwrightAttach(late)[0].params.sessionId;
    h.send(late, 'Runtime.enable', {}, lateSession);
    h.answerAll();
    expect(h.events(late, 'Runtime.executionContextCreated').map((m) => m.params.context.id)).toEqual([1, 3, 2]);
  });

  it('reports nothing of its own for a Page.createIsolatedWorld answered in one go', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Runtime.enable', {}, session);
    h.answerAll();
    const world = h.send(c, 'Page.createIsolatedWorld', { frameId: 'F', worldName: 'w' }, session);
    // The world existed (another client asked for it before Runtime was on here): Chrome answers its id only.
    h.answerAll(() => ({ executionContextId: 9 }));
    expect(h.answerOf(c, world)?.result).toEqual({ executionContextId: 9 });
    expect(h.events(c, 'Runtime.executionContextCreated')).toEqual([]);
  });

  it('stops holding events for an enable that failed unanswered', () => {
    let now = 0;
    h = new Harness(new CdpBridge({ pendingTimeoutMs: 1000, now: () => now }));
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const enable = h.send(c, 'Runtime.enable', {}, session);
    h.takeCommands();
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.consoleAPICalled' }, { type: 'log', args: [] });
    now = 1001;
    h.apply(h.bridge.expirePending());
    expect(h.answerOf(c, enable)?.error?.message).toMatch(/did not answer within 1 s/);
    h.fromExtension({ type: 'event', tabId: 1, method: 'Runtime.consoleAPICalled' }, { type: 'log', args: [] });
    expect(h.events(c, 'Runtime.consoleAPICalled')).toHaveLength(1);
  });

  it('bounds the queue while the extension is away', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.apply(h.bridge.extensionDisconnected());
    const ids = [1, 2, 3, 4].map(() => h.send(c, 'Runtime.evaluate', {}, session));
    expect(h.answerOf(c, ids[3])?.error?.message).toMatch(/Too many commands queued/);
    expect(h.answerOf(c, ids[0])).toBeUndefined();
  });

  it('drops tabs when the grace period ends, failing queued commands', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.apply(h.bridge.extensionDisconnected());
    const queued = h.send(c, 'Runtime.evaluate', {}, session);
    h.apply(h.bridge.expireGrace());
    expect(h.answerOf(c, queued)?.error?.message).toMatch(/did not reconnect/);
    expect(h.events(c, 'Target.detachedFromTarget')).toHaveLength(1);
    expect(h.bridge.extensionState).toBe('absent');
    expect(h.answerOf(c, h.send(c, 'Target.createTarget', { url: 'about:blank' }))?.error?.message).toMatch(/not connected/);
  });

  it('reconciles tabs on hello: gone ones are detached, new ones announced', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    playwrightAttach(c);
    h.apply(h.bridge.extensionDisconnected());
    h.connectExtension([TAB_B]);
    expect(h.events(c, 'Target.detachedFromTarget').map((e) => e.params.targetId)).toEqual(['PAGE-A']);
    expect(h.events(c, 'Target.attachedToTarget').map((e) => e.params.targetInfo.targetId)).toEqual(['PAGE-A', 'PAGE-B']);
  });
});

describe('bad input', () => {
  it('answers malformed client messages with CDP errors', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    h.raw(c, 'this is not json');
    h.raw(c, JSON.stringify({ id: 1 }));
    h.raw(c, JSON.stringify({ id: -4, method: 'X.y' }));
    const [parse, missingMethod, badId] = h.toClient.get(c)!;
    expect(parse.error).toEqual({ code: -32700, message: 'Message must be a valid JSON' });
    expect(missingMethod).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(badId.error?.code).toBe(-32600);
    expect(h.answerOf(c, h.send(c, 'Made.up'))?.error).toMatchObject({ code: -32601, message: expect.stringMatching(/'Made.up' wasn't found/) });
    expect(h.answerOf(c, h.send(c, 'Runtime.evaluate', {}, 'no-such-session'))?.error?.code).toBe(-32001);
    expect(h.answerOf(c, h.send(c, 'Target.attachToTarget', { targetId: 'STALE', flatten: true }))?.error?.message).toMatch(/No target with given id/);
    expect(h.answerOf(c, h.send(c, 'Target.setAutoAttach', { autoAttach: 'yes' }))?.error?.message).toMatch(/Invalid parameters for Target.setAutoAttach/);
    expect(h.answerOf(c, h.send(c, 'Target.setAutoAttach', { autoAttach: true, flatten: false }))?.error?.message).toMatch(/flatten/);
  });

  it('takes a batch of frames in one message, in order', () => {
    h.connectExtension([TAB_A]);
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Page.enable', {}, session);
    h.answerAll();
    const first = h.send(c, 'Runtime.evaluate', { expression: '1' }, session);
    const second = h.send(c, 'Runtime.evaluate', { expression: '2' }, session);
    const [a, b] = h.takeCommands();
    const batch = [
      encodeExtensionFrame({ type: 'result', id: a.id }, '{"n":1}'),
      encodeExtensionFrame({ type: 'event', tabId: 1, method: 'Page.loadEventFired' }, '{"timestamp":3}'),
      encodeExtensionFrame({ type: 'result', id: b.id }, '{"n":2}'),
    ].join('\n');
    h.apply(h.bridge.handleExtensionMessage(new TextEncoder().encode(batch)));
    const order = h.toClient
      .get(c)!
      .slice(-3)
      .map((m) => m.id ?? m.method);
    expect(order).toEqual([first, 'Page.loadEventFired', second]);
    expect(h.answerOf(c, second)?.result).toEqual({ n: 2 });
  });

  it('answers malformed extension frames with protocolError and carries on', () => {
    h.bridge.extensionConnected();
    h.apply(h.bridge.handleExtensionMessage(new TextEncoder().encode('garbage')));
    h.fromExtension({ type: 'tabShared', tab: TAB_A });
    h.fromExtension({ type: 'hello', protocol: 99, browser: { userAgent: '', product: '' }, tabs: [], proof: '' });
    h.fromExtension({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION } as never);
    h.fromExtension({ type: 'result' } as never);
    const errors = h.toExtension.splice(0).map((m) => m.message);
    expect(errors).toEqual([
      expect.stringMatching(/not JSON/),
      'send hello first',
      expect.stringMatching(/wire protocol 99/),
      expect.stringMatching(/bad extension frame \(type "hello"\)/),
      expect.stringMatching(/numeric id/),
    ]);
    h.connectExtension([TAB_A]);
    expect(h.bridge.sharedTabs()).toEqual([TAB_A]);
  });
});

describe("this server's own origins, out of a shared tab's reach", () => {
  const OWN = [18791, 18792];
  const offline = OWN.map((port) => ({ urlPattern: `*://*:${port}/*`, offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }));
  const ownPatterns = OWN.map((port) => ({ urlPattern: `*://*:${port}/*`, requestStage: 'Request' }));
  const paused = (url: string, requestId = 'interception-job-1.0') => ({
    requestId,
    request: { url, method: 'GET', headers: {} },
    frameId: 'PAGE-A',
    resourceType: 'Document',
  });
  const child = {
    sessionId: 'CHILD-1',
    targetInfo: { targetId: 'FRAME-1', type: 'iframe', title: '', url: 'https://x.example/', attached: true, canAccessOpener: false },
    waitingForDebugger: true,
  };
  beforeEach(() => {
    h = new Harness(new CdpBridge({ maxQueuedCommands: 10, ownPorts: () => OWN }));
  });

  it("puts its ports offline on every shared tab and each child, before any client's command; an older browser gets its interception instead", () => {
    h.connectExtension([TAB_A]);
    const [rule] = h.takeCommands();
    expect(rule).toMatchObject({ tabId: 1, method: 'Network.emulateNetworkConditionsByRule', params: { matchedNetworkConditions: offline } });
    expect(rule).not.toHaveProperty('sessionId');
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }, session);
    h.answerAll();
    h.fromExtension({ type: 'event', tabId: 1, method: 'Target.attachedToTarget' }, child);
    expect(h.takeCommands()).toEqual([
      expect.objectContaining({
        tabId: 1,
        sessionId: 'CHILD-1',
        method: 'Network.emulateNetworkConditionsByRule',
        params: { matchedNetworkConditions: offline },
      }),
    ]);
    // A browser that does not know the method: the relay intercepts its ports itself.
    const older = new Harness(new CdpBridge({ maxQueuedCommands: 10, ownPorts: () => OWN }));
    older.connectExtension([TAB_A]);
    const [unknown] = older.takeCommands();
    older.fromExtension({ type: 'error', id: unknown.id }, { code: -32601, message: "'Network.emulateNetworkConditionsByRule' wasn't found" });
    expect(older.takeCommands()).toEqual([expect.objectContaining({ method: 'Fetch.enable', params: { patterns: ownPatterns, handleAuthRequests: false } })]);
  });

  it("puts a client's conditions after its own, answers the client its own rules' ids, and goes offline again after Network.disable", () => {
    h.connectExtension([TAB_A]);
    h.answerAll();
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    const slow = { urlPattern: '*://a.example/*', offline: false, latency: 400, downloadThroughput: 1000, uploadThroughput: 1000 };
    const byRule = h.send(c, 'Network.emulateNetworkConditionsByRule', { matchedNetworkConditions: [slow] }, session);
    const [sent] = h.takeCommands();
    expect(sent).toMatchObject({ method: 'Network.emulateNetworkConditionsByRule', params: { matchedNetworkConditions: [...offline, slow] } });
    h.fromExtension({ type: 'result', id: sent.id }, { ruleIds: ['r1', 'r2', 'r3'] });
    expect(h.answerOf(c, byRule)?.result).toEqual({ ruleIds: ['r3'] });
    // Playwright's setOffline: the older call, a rule for every request after the relay's, and navigator.onLine's state.
    const legacy = h.send(c, 'Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }, session);
    const [rules, state] = h.takeCommands();
    expect(rules).toMatchObject({
      method: 'Network.emulateNetworkConditionsByRule',
      params: { matchedNetworkConditions: [...offline, { urlPattern: '', offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }] },
    });
    expect(state).toMatchObject({
      method: 'Network.overrideNetworkState',
      params: { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 },
    });
    h.fromExtension({ type: 'result', id: rules.id }, { ruleIds: ['a', 'b', 'c'] });
    h.fromExtension({ type: 'result', id: state.id }, {});
    expect(h.answerOf(c, legacy)?.result).toEqual({});
    // Network.disable forgets every condition in Chrome: the relay's come back right behind it.
    h.send(c, 'Network.enable', {}, session);
    h.answerAll();
    h.send(c, 'Network.disable', {}, session);
    const [disable, again] = h.takeCommands();
    expect(disable).toMatchObject({ method: 'Network.disable' });
    expect(again).toMatchObject({ method: 'Network.emulateNetworkConditionsByRule', params: { matchedNetworkConditions: offline } });
  });

  it("fails a request for its own origins that a client's interception catches, before the client hears of it; refuses a rewrite onto them", () => {
    h.connectExtension([TAB_A]);
    h.answerAll();
    const c = h.client();
    const session = playwrightAttach(c)[0].params.sessionId;
    h.send(c, 'Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Response' }] }, session);
    expect(h.answerAll()[0]).toMatchObject({ method: 'Fetch.enable', params: { patterns: [...ownPatterns, { urlPattern: '*', requestStage: 'Response' }] } });
    for (const url of ['http://127.0.0.1:18791/chrome/picker/abc/tabs', 'http://localhost:18792/json/list', 'http://[::1]:18791/']) {
      h.fromExtension({ type: 'event', tabId: 1, method: 'Fetch.requestPaused' }, paused(url));
      expect(h.takeCommands()).toEqual([
        expect.objectContaining({ method: 'Fetch.failRequest', params: { requestId: 'interception-job-1.0', errorReason: 'BlockedByClient' } }),
      ]);
    }
    expect(h.events(c, 'Fetch.requestPaused')).toEqual([]);
    h.fromExtension({ type: 'event', tabId: 1, method: 'Fetch.requestPaused' }, paused('https://a.example/app.js', 'job-2'));
    expect(h.events(c, 'Fetch.requestPaused').map((event) => event.params.request.url)).toEqual(['https://a.example/app.js']);
    const rewrite = h.send(c, 'Fetch.continueRequest', { requestId: 'job-3', url: 'http://127.0.0.1:18791/chrome/picker/abc/tabs' }, session);
    expect(h.answerOf(c, rewrite)?.error?.message).toMatch(/^Fetch\.continueRequest refused: clawd-browser's own pages/);
    h.send(c, 'Fetch.continueRequest', { requestId: 'job-4', url: 'https://b.example/' }, session);
    expect(h.takeCommands()).toEqual([expect.objectContaining({ method: 'Fetch.continueRequest', params: { requestId: 'job-4', url: 'https://b.example/' } })]);
    const interception = h.send(c, 'Network.setRequestInterception', { patterns: [] }, session);
    expect(h.answerOf(c, interception)?.error?.message).toMatch(/is not forwarded to shared tabs: it is deprecated: use the Fetch domain/);
    // The client disables Fetch: with nobody else intercepting, Chrome's goes off (the ports stay offline by their conditions).
    const disabled = h.send(c, 'Fetch.disable', {}, session);
    const [sent] = h.answerAll();
    expect(sent).toMatchObject({ method: 'Fetch.disable' });
    expect(h.answerOf(c, disabled)?.result).toEqual({});
  });
});
