import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { findProfileProcesses, killProcesses } from '../../relay/src/profiles/orphans.js';

const children: ChildProcess[] = [];
function spawnNode(script: string, ...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-e', script, '--', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return child;
}
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** How a child ended. Node reaps it a moment after it dies; until then it is a zombie. */
async function endedBy(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  return child.signalCode;
}

describe('findProfileProcesses', () => {
  const processes = [
    { pid: 10, args: '/usr/lib/chromium/chromium\0--headless\0--user-data-dir=/a/b\0about:blank\0' },
    { pid: 11, args: '/usr/lib/chromium/chromium\0--user-data-dir=/a/b2\0' },
    { pid: 12, args: '/usr/lib/chromium/chromium\0--user-data-dir=/a/b/c\0' },
    // A Chrome child that rewrote its title, and a ps line: one string, space-separated.
    { pid: 13, args: '/usr/lib/chromium/chromium --type=renderer --user-data-dir=/a/b --lang=en-US' },
    { pid: 14, args: '/Applications/Chromium.app/Contents/MacOS/Chromium --user-data-dir=/a/b2 --no-first-run' },
    { pid: 15, args: '/usr/bin/vim\0/a/b/--user-data-dir=/a/b.txt\0' },
    { pid: process.pid, args: `node\0--user-data-dir=/a/b\0` },
  ];

  it('matches the whole --user-data-dir argument, never a prefix', () => {
    expect(findProfileProcesses('/a/b', () => processes)).toEqual([10, 13]);
    expect(findProfileProcesses('/a/b2', () => processes)).toEqual([11, 14]);
    expect(findProfileProcesses('/a', () => processes)).toEqual([]);
  });

  it('handles paths with spaces in a real argv', () => {
    const list = [{ pid: 20, args: 'chrome\0--user-data-dir=/Users/u/My Profiles/work\0' }];
    expect(findProfileProcesses('/Users/u/My Profiles/work', () => list)).toEqual([20]);
    expect(findProfileProcesses('/Users/u/My', () => list)).toEqual([]);
  });
});

describe('real processes', () => {
  it('finds an orphan holding a profile and kills it', async () => {
    const userDataDir = `/tmp/clawd-orphan-${process.pid}-${Date.now()}`;
    const orphan = spawnNode('setInterval(() => {}, 1000)', `--user-data-dir=${userDataDir}`);
    await once(orphan, 'spawn');
    const pid = orphan.pid!;

    expect(findProfileProcesses(userDataDir)).toEqual([pid]);
    expect(findProfileProcesses(`${userDataDir}-other`)).toEqual([]);
    expect(await killProcesses([pid], 2000)).toEqual([pid]);
    expect(await endedBy(orphan)).toBe('SIGTERM');
    expect(findProfileProcesses(userDataDir)).toEqual([]);
  });

  it('falls back to SIGKILL for a process that ignores SIGTERM', async () => {
    const stubborn = spawnNode("process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)");
    await once(stubborn.stdout!, 'data'); // The handler is installed.
    const started = Date.now();
    expect(await killProcesses([stubborn.pid!], 300)).toEqual([stubborn.pid]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(await endedBy(stubborn)).toBe('SIGKILL');
  });

  it('ignores pids that are already gone', async () => {
    const done = spawnNode('');
    await once(done, 'exit');
    expect(await killProcesses([done.pid!])).toEqual([]);
  });
});
