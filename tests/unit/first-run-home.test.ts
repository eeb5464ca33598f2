import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureHome, loadOrCreateToken } from '../../relay/src/config/state-dir.js';
import { ensureRelay, RelayStartError } from '../../relay/src/native-host/operations.js';
import { tempDirs } from '../harness/temp-dirs.js';

/**
 * The first run: `$CLAWD_HOME` does not exist yet (an MCP client, or the
 * extension through the native host, before anyone ran `serve`). What starts
 * the server in the background makes the home (0700) and its log (0600)
 * itself, through the one `ensureHome`.
 */

const tempDir = tempDirs('clawd-first-run-');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('ensureHome', () => {
  it('makes a missing home and its missing parents, 0700', () => {
    const home = join(tempDir(), 'not', 'yet', '.clawd');
    expect(ensureHome(home)).toBe(home);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, '..'))).toBe(0o700);
    // Again: nothing to do, nothing thrown.
    expect(ensureHome(home)).toBe(home);
  });

  it("leaves an existing folder's mode alone (CLAWD_HOME may name one the user made)", () => {
    const home = join(tempDir(), 'mine');
    mkdirSync(home, { mode: 0o755 });
    ensureHome(home);
    expect(mode(home)).toBe(0o755);
  });

  it('secrets made on first use go through it', () => {
    const home = join(tempDir(), 'fresh', '.clawd');
    loadOrCreateToken(home);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'token'))).toBe(0o600);
  });
});

describe("ensureRelay (the native host's ensure_relay, and `mcp`) on a home that does not exist yet", () => {
  it('makes the home and relay.log, and a serve that cannot start is a RelayStartError naming the log', async () => {
    const home = join(tempDir(), 'fresh', '.clawd');
    // A CLI that is not there: `node <it> serve` exits at once, on any machine, whatever listens on the default ports.
    const cliPath = join(tempDir(), 'no-such-cli.js');
    const started = ensureRelay({ home, version: '0.0.0-test', cliPath, startTimeoutMs: 15_000 });
    // Before the fix this was ENOENT opening <home>/relay.log.
    await expect(started).rejects.toBeInstanceOf(RelayStartError);
    await expect(started).rejects.toThrow(`(log: ${join(home, 'relay.log')})`);
    await expect(started).rejects.toThrow(/clawd-browser serve exited at start: /);
    expect(mode(home)).toBe(0o700);
    expect(mode(join(home, 'relay.log'))).toBe(0o600);
    expect(readFileSync(join(home, 'relay.log'), 'utf8')).toContain('Cannot find module');
    // Nothing else was written: config.json is serve's to make, and serve never ran.
    expect(existsSync(join(home, 'config.json'))).toBe(false);
  });
});
