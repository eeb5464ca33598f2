/**
 * The egress proxy alone, in a process of its own (as it runs inside
 * `serve`, apart from the browser), for bench/egress.ts: prints its port.
 */
import { EgressProxy } from '../relay/src/egress/egress-proxy.js';
import { createLogger } from '../relay/src/log.js';

const proxy = new EgressProxy({ owner: 'bench', policy: () => undefined, forbiddenPorts: () => new Set(), log: createLogger('warn') });
const port = await proxy.listen({ port: 0 });
console.log(`listening ${port}`);
process.stdin.on('end', () => process.exit(0)).resume();
