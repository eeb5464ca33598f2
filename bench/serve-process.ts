import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../tests/harness/chromium.js';

/**
 * `clawd-browser serve` as its own process, as users run it, for benches that
 * measure from outside the server: `home` holds its config.json, `root` the
 * checkout whose build runs (another one measures an older build). Resolves
 * once it answers its control API with the token it wrote.
 */
export async function startServe(
  home: string,
  controlPort: number,
  root = fileURLToPath(new URL('..', import.meta.url)),
): Promise<{ token: string; stop(): Promise<void> }> {
  const server: ChildProcess = spawn(process.execPath, [join(root, 'bin/clawd-browser.js'), 'serve', '--log-level', 'warn'], {
    env: { ...process.env, CLAWD_HOME: home },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };
  try {
    const token = (): string => {
      try {
        return readFileSync(join(home, 'token'), 'utf8').trim();
      } catch {
        return '';
      }
    };
    await waitFor(
      async () =>
        token().length > 0 &&
        (await fetch(`http://127.0.0.1:${controlPort}/`, { headers: { authorization: `Bearer ${token()}` } }).then(
          (r) => r.ok,
          () => false,
        )),
      {
        timeoutMs: 20_000,
        message: 'serve did not start',
      },
    );
    return { token: token(), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
