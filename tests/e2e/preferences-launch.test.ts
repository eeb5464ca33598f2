import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { colorToChromeInt, readProfilePreferences, seedProfilePreferences } from '../../relay/src/profiles/preferences.js';
import { findProfileProcesses } from '../../relay/src/profiles/orphans.js';
import { chromiumPath, HEADLESS_TEST_FLAGS, waitFor } from '../harness/chromium.js';
import { tempDirs } from '../harness/temp-dirs.js';

/** Seeded preferences (unit-tested in unit/preferences.test.ts) survive a real Chromium's start and shutdown. */

const userDataDir = tempDirs('clawd-prefs-');

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('a real Chromium launch', () => {
  it('keeps the seeded name and colour', async () => {
    const dir = userDataDir();
    seedProfilePreferences(dir, { name: 'clawd', color: '#FF4500' });
    const preferences = join(dir, 'Default', 'Preferences');
    const seededSize = statSync(preferences).size;

    const chromium = spawn(chromiumPath(), [...HEADLESS_TEST_FLAGS, `--user-data-dir=${dir}`, 'about:blank'], { stdio: 'ignore' });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      chromium.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      // Chrome only saves Preferences every 10 s or at shutdown, so wait for a sign the
      // profile is open (its cookie database), then shut it down to make it save.
      const deadline = Date.now() + 15_000;
      while (!existsSync(join(dir, 'Default', 'Cookies')) && Date.now() < deadline) await sleep(100);
      await sleep(1000);
    } finally {
      chromium.kill('SIGTERM');
    }
    // Never leave a browser behind, even if it ignores SIGTERM.
    const stuck = setTimeout(() => chromium.kill('SIGKILL'), 10_000);
    const exit = await exited;
    clearTimeout(stuck);
    // Its helper processes (zygote, utility) outlive the main one by a moment, still writing into
    // the profile: the test's temp dir is removed once none is left.
    await waitFor(() => findProfileProcesses(dir).length === 0, { message: "Chromium's helpers did not exit" });
    // A clean exit: Chromium aborts on startup if Local State has inconsistent profile colours.
    expect(exit).toEqual({ code: 0, signal: null });

    // Chrome rewrote the file (it adds many prefs of its own) and kept ours.
    expect(statSync(preferences).size).toBeGreaterThan(seededSize);
    expect(readProfilePreferences(dir)).toEqual({ name: 'clawd', color: '#FF4500' });
    const entry = readJson(join(dir, 'Local State')).profile.info_cache.Default;
    expect(entry.name).toBe('clawd');
    // Chrome derives the profile menu colours from the theme colour it kept.
    expect(entry.profile_color_seed).toBe(colorToChromeInt('#FF4500'));
  });
});
