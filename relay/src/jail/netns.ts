import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * A jail's network: a named Linux network namespace (`ip netns`) with only
 * its loopback up. Nothing in it can reach any address of this machine or
 * beyond, except one port on its own loopback: a bridge (a small Node
 * process started inside the namespace) that carries each connection to the
 * egress proxy's unix socket. A socket file is reached by path, not by
 * network, so it is the namespace's one way out.
 */

const run = promisify(execFile);

/**
 * The bridge: listens on the namespace's loopback, joins each connection to
 * the proxy's socket, and holds no more than the proxy would take (beyond,
 * Node closes a new one at once). Prints its port.
 */
const BRIDGE = `
const net = require('node:net');
const [port, path, most] = process.argv.slice(1);
const server = net.createServer({ noDelay: true }, (inside) => {
  const proxy = net.connect(path);
  const end = () => { inside.destroy(); proxy.destroy(); };
  for (const socket of [inside, proxy]) { socket.on('error', end); socket.on('close', end); }
  inside.pipe(proxy).pipe(inside);
});
server.maxConnections = Number(most);
server.listen(Number(port), '127.0.0.1', () => console.log('listening ' + server.address().port));
process.stdin.on('end', () => process.exit(0)).resume();
`;

export class NetworkNamespace {
  private bridge: ChildProcess | undefined;

  private constructor(readonly name: string) {}

  /** Makes the namespace with its loopback up. */
  static async create(name: string): Promise<NetworkNamespace> {
    await run('ip', ['netns', 'add', name]);
    const namespace = new NetworkNamespace(name);
    try {
      await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
    } catch (error) {
      await namespace.remove();
      throw error;
    }
    return namespace;
  }

  /**
   * Starts the bridge to `socketPath` inside the namespace, holding at most
   * `maxConnections` at once; resolves to its port there. Its stdin is this process's pipe: when this server goes,
   * however it goes, the bridge ends too.
   */
  async bridgeTo(socketPath: string, maxConnections: number): Promise<number> {
    const child = spawn('ip', ['netns', 'exec', this.name, process.execPath, '-e', BRIDGE, '0', socketPath, String(maxConnections)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.bridge = child;
    return new Promise<number>((resolve, reject) => {
      let said = '';
      const timer = setTimeout(() => reject(new Error(`the jail's network bridge did not start: ${said}`)), 10_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        const port = /listening (\d+)/.exec(said)?.[1];
        if (port) {
          clearTimeout(timer);
          resolve(Number(port));
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the jail's network bridge exited (${code}): ${said.trim().slice(-300)}`));
      });
    });
  }

  /** Ends the bridge and anything else still in the namespace, then deletes it. Safe twice. */
  async remove(): Promise<void> {
    this.bridge?.kill('SIGKILL');
    this.bridge = undefined;
    await removeNamespace(this.name);
  }
}

/** The processes in a namespace (by name); none when it is gone. */
export async function namespacePids(name: string): Promise<number[]> {
  return run('ip', ['netns', 'pids', name]).then(
    ({ stdout }) => stdout.split(/\s+/).filter(Boolean).map(Number),
    () => [],
  );
}

/** Kills what runs in a namespace (by name) and deletes it; nothing when it is gone already. */
export async function removeNamespace(name: string): Promise<void> {
  const pids = await namespacePids(name);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await run('ip', ['netns', 'delete', name]).catch(() => {});
}

/** The namespaces there are (`ip netns list`). */
export async function listNamespaces(): Promise<string[]> {
  const { stdout } = await run('ip', ['netns', 'list']).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .map((line) => line.split(/\s/)[0])
    .filter(Boolean);
}
