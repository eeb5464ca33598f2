import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$CLAWD_HOME`, default `~/.clawd` (spec §3). */
export function clawdHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAWD_HOME || join(homedir(), '.clawd');
}

export function tokenPath(home: string): string {
  return join(home, 'token');
}

/**
 * The shared secret for the control API and the relay: created on first use
 * with mode 0600 (the state dir 0700), and tightened if someone loosened it.
 */
export function loadOrCreateToken(home: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const path = tokenPath(home);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 32) {
      if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return token;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('hex');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}
