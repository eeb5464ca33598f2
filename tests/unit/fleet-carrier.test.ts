import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError } from '../../relay/src/errors.js';
import { createLogger } from '../../relay/src/log.js';
import { asHttpFailure, sendError } from '../../relay/src/server/http-errors.js';
import { carriedTarget, FleetCarrier, type FleetRouting, type FleetServer } from '../../relay/src/server/fleet-carrier.js';

/**
 * A carried call goes to the holder's origin and nowhere else (spec §18).
 * Real sockets: a holder, a host an attacker names, and a server carrying
 * every request to the holder as a fleet server does. Request targets whose
 * path a URL parser would rewrite into `//host/…` (dot segments, `%2e`,
 * backslashes) are refused and never reach the attacker's host, with a
 * session's key or with the fleet's token the console's calls are carried
 * with; a plain path still reaches the holder.
 */

interface Seen {
  path: string;
  authorization?: string;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

function recorder(seen: Seen[], body: string): Server {
  return createServer((request: IncomingMessage, response) => {
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
}

/** A request written as it is on the wire (no client normalises its target); the status line's code. */
function raw(port: number, target: string, headers: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Connection: close\r\n\r\n`));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

const holderSeen: Seen[] = [];
const attackerSeen: Seen[] = [];
const holder = recorder(holderSeen, '{"webSocketDebuggerUrl":"ws://holder/cdp?profile=session-abc"}');
const attacker = recorder(attackerSeen, '{"stolen":true}');
let holderPort = 0;
let attackerPort = 0;
let carrying: Server;
let carryingPort = 0;
let carrier: FleetCarrier;
/** Whether the carrying server stands for the console (carries with the fleet's token). */
let asConsole = false;
const FLEET_TOKEN = 'fleet-token-never-to-leave';

beforeAll(async () => {
  holderPort = await listen(holder);
  attackerPort = await listen(attacker);
  const holderServer: FleetServer = {
    id: 'A',
    controlUrl: `http://127.0.0.1:${holderPort}`,
    relayUrl: `http://127.0.0.1:${holderPort}`,
    leaseUntil: new Date(Date.now() + 60_000).toISOString(),
  };
  const routing: FleetRouting = {
    server: 'B',
    locate: async () => ({ carry: holderServer }),
    keyOf: async () => ({ id: 'abc' }),
    forgetServer: () => {},
    takeoversUnderWay: () => undefined,
  };
  carrier = new FleetCarrier(routing, createLogger('error'));
  carrying = createServer((request, response) => {
    const discovery = request.url?.includes('discover=1');
    const done = discovery
      ? carrier
          .carryDiscovery(request, 'abc', { ok: true, tokenVia: 'header' })
          .then((answer) => void response.writeHead(answer?.status ?? 500).end(JSON.stringify(answer?.body)))
      : Promise.resolve().then(() => carrier.carryHttp(request, response, holderServer, asConsole ? { token: FLEET_TOKEN } : undefined));
    done.catch((error: unknown) => sendError(response, asHttpFailure(error).error));
  });
  carryingPort = await listen(carrying);
});

afterAll(async () => {
  for (const server of [holder, attacker, carrying]) await new Promise((resolve) => server.close(resolve));
});

const attacks = (port: number) => [
  `/.//127.0.0.1:${port}/steal`,
  `/x/%2e%2e//127.0.0.1:${port}/steal`,
  `/x/%2E%2E//127.0.0.1:${port}/steal`,
  `/x/../\\127.0.0.1:${port}/steal`,
  `/x/..\\/127.0.0.1:${port}/steal`,
  `/\\127.0.0.1:${port}/steal`,
  `//127.0.0.1:${port}/steal`,
  `http://127.0.0.1:${port}/steal`,
];

describe('carrying a call to the session holder', () => {
  it('refuses every target a parser would turn into another host, with a key or as the console, and sends nothing there', async () => {
    for (const console of [false, true]) {
      asConsole = console;
      for (const target of attacks(attackerPort)) {
        const status = await raw(carryingPort, `${target}?profile=session-abc`, 'Authorization: Bearer session-key\r\n');
        expect(status, target).toBe(400);
      }
    }
    expect(attackerSeen).toEqual([]);
  });

  it('carries a plain path to the holder, and discovery only ever to /json/version', async () => {
    asConsole = true;
    expect(await raw(carryingPort, '/tabs?profile=session-abc', '')).toBe(200);
    expect(holderSeen.at(-1)).toEqual({ path: '/tabs?profile=session-abc', authorization: `Bearer ${FLEET_TOKEN}` });
    expect(await raw(carryingPort, `/.//127.0.0.1:${attackerPort}/steal?profile=session-abc&discover=1`, 'Authorization: Bearer session-key\r\n')).toBe(200);
    expect(holderSeen.at(-1)?.path).toBe('/json/version?profile=session-abc&discover=1');
    expect(attackerSeen).toEqual([]);
  });

  it('makes targets of plain paths only (pure)', () => {
    const holderUrl = 'http://10.0.0.7:18791';
    expect(carriedTarget('/tabs?profile=session-abc', holderUrl).href).toBe('http://10.0.0.7:18791/tabs?profile=session-abc');
    expect(carriedTarget('/sessions/abc/tabs#x', holderUrl).href).toBe('http://10.0.0.7:18791/sessions/abc/tabs');
    for (const target of [...attacks(1), '/a/./b', '/a/b/..', '/%2e/x', '', 'tabs', '/a\\b'])
      expect(() => carriedTarget(target, holderUrl), target).toThrow(BadRequestError);
  });
});
