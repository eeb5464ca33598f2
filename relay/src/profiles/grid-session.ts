import WebSocket from 'ws';
import { TooManyError, UnavailableError } from '../errors.js';
import { type BrowserVersion, EVERY_TAB_LIVE_SWITCHES } from './managed-browser.js';

/** What it takes to reach a Grid session's browser again, from any server with the same Grid (sessions/session-registry.ts keeps it). */
export interface GridPlacement {
  /** The Grid's id for the session. */
  session: string;
  /** The Grid's se:cdp address for it (no credentials: those are each server's config). */
  cdpUrl: string;
  /** e.g. "Chrome/131.0.6778.85". */
  product: string;
  node?: string;
}

/**
 * A browser placed on a Selenium Grid 4 (spec §11, "beyond one machine"): the
 * Grid's router, queue and nodes decide where it runs; clawd-browser asks for
 * a session over WebDriver, speaks CDP to it through the Grid's `se:cdp`
 * (never handed out: clients reach it through the relay like any launched
 * browser), keeps it alive while it is used, and ends it. Grid faults come
 * back as the error family's own errors, naming the Grid and its reason;
 * credentials for the Grid never appear in a message or a log.
 */

/** config.json `grid`. */
export interface GridSettings {
  url: string;
  username?: string;
  password?: string;
  /** WebDriver `alwaysMatch` capabilities; default: headless Chrome. */
  capabilities?: Record<string, unknown>;
  /**
   * A WebDriver command this often keeps the Grid from timing the session
   * out while only CDP is used, and notices a session the Grid ended (its
   * se:cdp proxy does not always close the CDP connection when it does).
   */
  keepAliveSeconds: number;
  /** How long a session request may wait in the Grid's queue. */
  requestTimeoutSeconds: number;
}

const DEFAULT_CAPABILITIES = {
  browserName: 'chrome',
  // Every tab driven as the one in front, as a managed browser's (managed-browser.ts).
  'goog:chromeOptions': {
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check', ...EVERY_TAB_LIVE_SWITCHES],
  },
};

/** The Grid's address for messages: never its credentials. */
export function gridName(grid: Pick<GridSettings, 'url'>): string {
  try {
    const url = new URL(grid.url);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(the configured Grid)';
  }
}

/** Basic auth from grid.username/password, or from the URL's own user:password@ (never sent in the URL itself). */
function authHeaders(grid: Pick<GridSettings, 'url' | 'username' | 'password'>): Record<string, string> {
  let { username, password } = grid;
  if (!username) {
    const url = URL.canParse(grid.url) ? new URL(grid.url) : undefined;
    if (url?.username) [username, password] = [decodeURIComponent(url.username), decodeURIComponent(url.password)];
  }
  return username ? { authorization: `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}` } : {};
}

async function gridFetch(
  grid: Pick<GridSettings, 'url' | 'username' | 'password'>,
  path: string,
  init: { method?: string; body?: object; timeoutMs: number },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- W3C WebDriver JSON, read field by field where it is used
): Promise<{ status: number; body: any }> {
  const base = gridName(grid);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      // The Grid refuses a new session sent as plain application/json.
      headers: { 'content-type': 'application/json; charset=utf-8', ...authHeaders(grid) },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (error) {
    const cause =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${Math.round(init.timeoutMs / 1000)} s`
        : ((error as { cause?: Error }).cause?.message ?? (error as Error).message);
    throw new UnavailableError(`Selenium Grid at ${base} is not reachable (${cause}): is it running?`, { grid: base });
  }
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = { value: { message: text.slice(0, 200) } };
  }
  return { status: response.status, body };
}

/** The Grid's own `/status`: whether it takes sessions now, and what it says (clawd-browser doctor). Unreachable: an UnavailableError naming it. */
export async function gridReadiness(grid: Pick<GridSettings, 'url' | 'username' | 'password'>): Promise<{ ready: boolean; message?: string; status: number }> {
  const { status, body } = await gridFetch(grid, '/status', { timeoutMs: 5_000 });
  return { ready: status < 300 && body?.value?.ready === true, message: body?.value?.message, status };
}

/** One CDP connection to the Grid's browser: what the mux sends into, as a launched browser's pipe. */
export interface CdpChannel {
  send(message: string): void;
  onmessage: (message: string) => void;
  onclose: (reason: string) => void;
  close(): void;
}

export class GridSession {
  private keepAlive: NodeJS.Timeout | undefined;
  private ended = false;
  /** Keep-alive answers in a row that were a server error (touch()). */
  private failedTouches = 0;
  /** Told once if the Grid no longer knows the session (its timeout, or someone ended it there). */
  onGone: () => void = () => {};

  private constructor(
    readonly grid: GridSettings,
    readonly id: string,
    private readonly cdpUrl: string,
    readonly version: BrowserVersion,
    /** The node it runs on, as the Grid names it (for "lost with node …"). */
    readonly nodeUri: string | undefined,
  ) {}

  /** Asks the Grid for a browser; resolves once a node holds it. */
  static async create(grid: GridSettings): Promise<GridSession> {
    const base = gridName(grid);
    const capabilities = { alwaysMatch: grid.capabilities ?? DEFAULT_CAPABILITIES };
    const { status, body } = await gridFetch(grid, '/session', {
      method: 'POST',
      body: { capabilities },
      timeoutMs: grid.requestTimeoutSeconds * 1000 + 5_000,
    });
    const value = body?.value ?? {};
    if (status === 401 || status === 403)
      throw new UnavailableError(`Selenium Grid at ${base} refused clawd-browser's credentials (HTTP ${status}): check grid.username and grid.password`, {
        grid: base,
      });
    if (status >= 300 || !value.sessionId) {
      const reason = String(value.message ?? value.error ?? `HTTP ${status}`)
        .split('\n')[0]
        .slice(0, 300);
      const hint = { grid: base, retryAfterSeconds: 10 };
      if (/queue.*(full|capacity)|too many/i.test(reason))
        throw new TooManyError(`Selenium Grid at ${base} has no room for another session: ${reason}. Try again in a moment`, hint);
      throw new UnavailableError(`Selenium Grid at ${base} could not place the session: ${reason}. Try again when a slot frees, or add nodes`, hint);
    }
    const cdpUrl = value.capabilities?.['se:cdp'];
    if (typeof cdpUrl !== 'string') {
      await gridFetch(grid, `/session/${value.sessionId}`, { method: 'DELETE', timeoutMs: 10_000 }).catch(() => {});
      throw new UnavailableError(`Selenium Grid at ${base} placed the session on a node without CDP (no se:cdp): a Chromium-based browser is needed`, {
        grid: base,
      });
    }
    const version = { product: `Chrome/${value.capabilities?.browserVersion ?? ''}`, protocolVersion: '1.3', userAgent: '' };
    return new GridSession(grid, value.sessionId, cdpUrl, version, await nodeOf(grid, value.sessionId)).keptAlive();
  }

  /**
   * A session another server of the fleet placed, taken over when that
   * server was lost: nothing is asked of the Grid but that it still knows
   * the session (its browser, tabs and pages are as they were).
   */
  static async attach(grid: GridSettings, placement: GridPlacement): Promise<GridSession> {
    const { status } = await gridFetch(grid, `/session/${encodeURIComponent(placement.session)}/timeouts`, { timeoutMs: 10_000 });
    if (status === 404) throw new UnavailableError(`Selenium Grid at ${gridName(grid)} no longer knows session ${placement.session}`, { grid: gridName(grid) });
    const version = { product: placement.product, protocolVersion: '1.3', userAgent: '' };
    return new GridSession(grid, placement.session, placement.cdpUrl, version, placement.node).keptAlive();
  }

  private keptAlive(): this {
    this.keepAlive = setInterval(() => void this.touch(), this.grid.keepAliveSeconds * 1000);
    this.keepAlive.unref();
    return this;
  }

  /** What another server needs to take this session over. */
  placement(): GridPlacement {
    return { session: this.id, cdpUrl: this.cdpUrl, product: this.version.product, ...(this.nodeUri ? { node: this.nodeUri } : {}) };
  }

  /** A CDP connection to the browser through the Grid. */
  connect(): Promise<CdpChannel> {
    const socket = new WebSocket(this.cdpUrl, {
      headers: authHeaders(this.grid),
      perMessageDeflate: false,
      maxPayload: 512 * 1024 * 1024,
      handshakeTimeout: 30_000,
    });
    return new Promise((resolve, reject) => {
      socket.once('error', (error) =>
        reject(new UnavailableError(`Selenium Grid at ${gridName(this.grid)}: the browser's CDP did not open (${error.message})`)),
      );
      socket.once('open', () => {
        const channel: CdpChannel = {
          send: (message) => socket.readyState === WebSocket.OPEN && socket.send(message),
          onmessage: () => {},
          onclose: () => {},
          // Not a closing handshake: the far end may be a proxy to a browser that is gone.
          close: () => socket.terminate(),
        };
        socket.on('message', (data) => channel.onmessage(data.toString()));
        socket.on('close', (code, reason) => channel.onclose(`the Grid closed its CDP connection (${code}${reason.length ? `: ${reason}` : ''})`));
        socket.on('error', () => {});
        resolve(channel);
      });
    });
  }

  /**
   * Why the browser went away, as far as can be told: its node no longer
   * answers (asked directly: the hub notices a dead node only after its
   * heartbeats fail), or the node is up and the Grid ended the session.
   */
  async lostBecause(): Promise<string> {
    const node = this.nodeUri ?? 'its node';
    switch (await this.nodeState()) {
      case 'silent':
        return `lost with node ${node} (it no longer answers)`;
      case 'gone':
        return `lost with node ${node} (the node is gone from the Grid)`;
      case 'grid-silent':
        return `lost with the Grid at ${gridName(this.grid)} (it no longer answers)`;
      case 'up':
        return `ended by the Grid on node ${node} (its session timeout, or someone ended it there)`;
    }
  }

  /** The node as seen directly (does it answer?), then through the Grid's /status (is it listed, and UP?). */
  private async nodeState(): Promise<'silent' | 'gone' | 'grid-silent' | 'up'> {
    if (
      this.nodeUri &&
      !(await fetch(`${this.nodeUri}/status`, { signal: AbortSignal.timeout(3_000) }).then(
        (r) => r.ok,
        () => false,
      ))
    )
      return 'silent';
    try {
      const { body } = await gridFetch(this.grid, '/status', { timeoutMs: 5_000 });
      const nodes: Array<{ uri: string; availability: string }> = body?.value?.nodes ?? [];
      const mine = nodes.find((candidate) => candidate.uri === this.nodeUri);
      return this.nodeUri && (!mine || mine.availability !== 'UP') ? 'gone' : 'up';
    } catch {
      return 'grid-silent';
    }
  }

  /** This server lets go of the session without ending it: another server of the fleet holds it now. */
  letGo(): void {
    this.ended = true;
    clearInterval(this.keepAlive);
  }

  /** Ends the session on the Grid (the node closes the browser); safe to call twice. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.keepAlive);
    await gridFetch(this.grid, `/session/${this.id}`, { method: 'DELETE', timeoutMs: 10_000 }).catch(() => {});
  }

  /** Ends a session this process no longer holds (the reaper, after a server died): best effort. */
  static async endById(grid: GridSettings, id: string): Promise<void> {
    await gridFetch(grid, `/session/${encodeURIComponent(id)}`, { method: 'DELETE', timeoutMs: 10_000 }).catch(() => {});
  }

  /**
   * A WebDriver command: the Grid counts only those towards its session
   * timeout. Its answer also tells when the browser is gone while the se:cdp
   * proxy keeps the CDP connection open (Grid 4.48 can hold it for minutes):
   * a 404 is a session the Grid ended; a 5xx is what the hub answers, for as
   * long as it still lists the session, once its node died. Two 5xx in a row
   * with the node silent or no longer UP on the Grid count as gone; one could
   * be a hiccup on the way to a node this process cannot reach directly.
   */
  private async touch(): Promise<void> {
    const answer = await gridFetch(this.grid, `/session/${this.id}/timeouts`, { timeoutMs: 5_000 }).catch(() => undefined);
    // An unreachable Grid says nothing yet: the CDP connection tells.
    const failed = answer !== undefined && answer.status >= 500;
    this.failedTouches = failed ? this.failedTouches + 1 : 0;
    const gone = answer?.status === 404 || (this.failedTouches >= 2 && (await this.nodeState()) !== 'up');
    if (gone && !this.ended) {
      clearInterval(this.keepAlive);
      this.onGone();
    }
  }
}

/** The node the Grid placed a session on (its GraphQL view); undefined if it will not say. */
async function nodeOf(grid: GridSettings, sessionId: string): Promise<string | undefined> {
  try {
    const { body } = await gridFetch(grid, '/graphql', { method: 'POST', body: { query: `{ session (id: "${sessionId}") { nodeUri } }` }, timeoutMs: 5_000 });
    return body?.data?.session?.nodeUri ?? undefined;
  } catch {
    return undefined;
  }
}
