import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** `$CLAWD_HOME`, default `~/.clawd` (spec §3). */
export function clawdHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAWD_HOME || join(homedir(), '.clawd');
}

/**
 * Makes `$CLAWD_HOME` (and any missing parent) on first run, mode 0700: only
 * the user reads what is kept there. An existing folder is left as it is
 * (CLAWD_HOME may name one the user made). Every first-run path goes
 * through here before writing into the home: secrets, `serve` started in
 * the background (its relay.log), `mcp`, the native host.
 */
export function ensureHome(home: string): string {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  return home;
}

export function tokenPath(home: string): string {
  return join(home, 'token');
}

/** The extension link's secret: only the extension (through the native host or manual pairing) and the relay hold it. */
export function extensionKeyPath(home: string): string {
  return join(home, 'extension-key');
}

/**
 * The shared secret for the control API, `/json/*` and `/cdp`: created on
 * first use with mode 0600 (the state dir 0700), and tightened if someone
 * loosened it.
 */
export function loadOrCreateToken(home: string): string {
  return loadOrCreateSecret(tokenPath(home));
}

/** The token if there is one yet; reading never creates it (clients of a server that never ran). */
export function readToken(home: string): string | undefined {
  try {
    return readFileSync(tokenPath(home), 'utf8').trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The key the extension and the relay prove to each other on `/extension`
 * (protocol/link-auth.ts). Separate from the token, so a CDP client cannot pose
 * as the extension.
 */
export function loadOrCreateExtensionKey(home: string): string {
  return loadOrCreateSecret(extensionKeyPath(home));
}

/**
 * The cookie vault's key (AES-256-GCM): `CLAWD_VAULT_KEY` (64 hex digits) when
 * set, else `$CLAWD_HOME/vault.key` (0600), made on first use.
 */
export function loadOrCreateVaultKey(home: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const given = env.CLAWD_VAULT_KEY?.trim();
  if (given) {
    if (!/^[0-9a-f]{64}$/i.test(given)) throw new Error('CLAWD_VAULT_KEY must be 64 hex digits (32 bytes)');
    return Buffer.from(given, 'hex');
  }
  return Buffer.from(loadOrCreateSecret(join(home, 'vault.key')).slice(0, 64), 'hex');
}

/** The key grant tokens are signed with: not the vault key, so one leaking does not give the other. */
export function loadOrCreateGrantKey(home: string): Buffer {
  return Buffer.from(loadOrCreateSecret(join(home, 'grant.key')), 'utf8');
}

/**
 * The key a hand-off's webhook is signed with (Standard Webhooks: HMAC-SHA256),
 * `$CLAWD_HOME/webhook.key` (0600), made on first use. Its receiver holds it
 * too, as `whsec_<base64>` (`clawd-browser webhook-secret`): it is not the
 * token, and opens nothing here.
 */
export function loadOrCreateWebhookKey(home: string): Buffer {
  return Buffer.from(loadOrCreateSecret(join(home, 'webhook.key')).slice(0, 64), 'hex');
}

/** The webhook key as its receiver is given it (Standard Webhooks' `whsec_` and base64). */
export const webhookSecretText = (key: Buffer) => `whsec_${key.toString('base64')}`;

function loadOrCreateSecret(path: string): string {
  ensureHome(dirname(path));
  const existing = readSecret(path);
  if (existing !== undefined) return existing;
  // Written whole under a temporary name, then published in one step: two processes making it at
  // once (`serve` starting while `clawd-browser token` runs) both end up with the first one published.
  const secret = randomBytes(32).toString('hex');
  const temporary = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600 });
  try {
    // The first link wins. A file already there is read again: another process's secret, just
    // published, is everyone's; one that holds no secret (empty, damaged) is replaced.
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const published = readSecret(path);
    if (published !== undefined) return published;
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
  chmodSync(path, 0o600);
  return secret;
}

/** The secret in `path` (its mode tightened if someone loosened it), or undefined when there is none worth the name. */
function readSecret(path: string): string | undefined {
  try {
    const secret = readFileSync(path, 'utf8').trim();
    if (secret.length < 32 || /\s/.test(secret)) return undefined;
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
