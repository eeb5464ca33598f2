import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Secrets made by several processes at once (`serve` starting while
 * `clawd-browser token` runs, as a packaging test once caught): every one of
 * them ends up with the same token, the file is 0600, and no temporary file
 * is left. Real processes, the built module.
 */

const run = promisify(execFile);
const STATE_DIR = fileURLToPath(new URL('../../dist/node/relay/src/config/state-dir.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'clawd-secret-race-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the token, made by eight processes at once', () => {
  // The old write-in-place lost this race about once in ten rounds of eight: five rounds here.
  it.each([1, 2, 3, 4, 5])('is one token for all of them (round %i)', async (round) => {
    const dir = join(home, `fresh-${round}`);
    const script = `import(${JSON.stringify(STATE_DIR)}).then((m) => console.log(m.loadOrCreateToken(${JSON.stringify(dir)})))`;
    const tokens = await Promise.all(Array.from({ length: 8 }, () => run(process.execPath, ['-e', script]).then(({ stdout }) => stdout.trim())));
    expect(tokens[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(tokens).size).toBe(1);
    expect(statSync(join(dir, 'token')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['token']);
  });
});
