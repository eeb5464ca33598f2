import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Cgroup, detectCgroups, listGroups, removeGroup } from '../../relay/src/jail/cgroup.js';
import { tempDirs } from '../harness/temp-dirs.js';

const temp = tempDirs('clawd-cgroup-');
const limits = { memoryMiB: 256, cpus: 1.5, pids: 100 };
/** Real v1 groups are made only as root on a host that has the v1 memory hierarchy (this CI machine). */
const realV1 = process.getuid?.() === 0 && existsSync('/sys/fs/cgroup/memory') && !existsSync('/sys/fs/cgroup/cgroup.controllers');

/** A v2 root as the kernel shows it, before anything is enabled for children. */
function fakeV2(controllers = 'cpuset cpu io memory pids'): string {
  const root = temp();
  writeFileSync(join(root, 'cgroup.controllers'), `${controllers}\n`);
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  return root;
}

const read = (file: string) => readFileSync(file, 'utf8').trim();
const uniqueName = (what: string) => `test-${what}-${process.pid}-${Date.now().toString(36)}`;

describe('cgroup detection', () => {
  it('finds nothing usable in a dir with neither layout', () => {
    const result = detectCgroups(temp());
    expect(result).toHaveProperty('unusable');
    expect((result as { unusable: string }).unusable).toMatch(/no cgroup v1 or v2/);
  });

  it('refuses a v2 tree without the controllers the limits need', () => {
    expect(detectCgroups(fakeV2('cpuset io memory'))).toEqual({ unusable: expect.stringMatching(/lacks the cpu, pids controller/) });
  });

  it('finds v2 by cgroup.controllers', () => {
    const root = fakeV2();
    expect(detectCgroups(root)).toEqual({ version: 2, root });
  });

  it.skipIf(!realV1)('finds v1 on this machine', () => {
    expect(detectCgroups()).toEqual({ version: 1, root: '/sys/fs/cgroup' });
  });
});

describe('cgroup v2 (a fake tree)', () => {
  it('enables the controllers down to clawd/, writes the limits, reads usage and removes the group', async () => {
    const root = fakeV2();
    const host = { version: 2 as const, root };
    const group = Cgroup.create(host, 'session-1', limits);
    const dir = join(root, 'clawd', 'session-1');

    expect(read(join(root, 'cgroup.subtree_control'))).toBe('+memory +cpu +pids');
    expect(read(join(root, 'clawd', 'cgroup.subtree_control'))).toBe('+memory +cpu +pids');
    expect(read(join(dir, 'memory.max'))).toBe(String(256 * 1048576));
    expect(read(join(dir, 'cpu.max'))).toBe('150000 100000');
    expect(read(join(dir, 'pids.max'))).toBe('100');
    expect(existsSync(join(dir, 'memory.swap.max'))).toBe(false); // Written only where the kernel has it.
    expect(group.procsFiles).toEqual([join(dir, 'cgroup.procs')]);

    expect(group.pids()).toEqual([]);
    expect(group.oomKills()).toBe(0);
    expect(group.cpuUsageMicros()).toBe(0);
    writeFileSync(join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 7\noom 3\noom_kill 2\noom_group_kill 0\n');
    writeFileSync(join(dir, 'cpu.stat'), 'usage_usec 123456\nuser_usec 100000\nsystem_usec 23456\n');
    expect(group.oomKills()).toBe(2);
    expect(group.cpuUsageMicros()).toBe(123456);

    Cgroup.create(host, 'session-2', { memoryMiB: 64, cpus: 0.001, pids: 1 });
    expect(read(join(root, 'clawd', 'session-2', 'cpu.max'))).toBe('1000 100000'); // The kernel's smallest quota.
    expect(listGroups(host)).toEqual(['session-1', 'session-2']);

    await group.remove();
    expect(existsSync(dir)).toBe(false);
    await group.remove();
    await removeGroup(host, 'session-2');
    expect(listGroups(host)).toEqual([]);
  });

  it('holds back the CPU cap of a group made for a launch until capCpu(), memory and pids from the start', async () => {
    const root = fakeV2();
    const host = { version: 2 as const, root };
    const group = Cgroup.create(host, 'spare', limits, { capCpuLater: true });
    const dir = join(root, 'clawd', 'spare');
    expect(existsSync(join(dir, 'cpu.max'))).toBe(false);
    expect(read(join(dir, 'memory.max'))).toBe(String(256 * 1048576));
    expect(read(join(dir, 'pids.max'))).toBe('100');
    group.capCpu();
    expect(read(join(dir, 'cpu.max'))).toBe('150000 100000');
    await group.remove();
  });

  it('refuses a name already taken, a path for a name, and limits that are not positive numbers', () => {
    const host = { version: 2 as const, root: fakeV2() };
    Cgroup.create(host, 'taken', limits);
    expect(() => Cgroup.create(host, 'taken', limits)).toThrow(/Cannot create cgroup taken.*EEXIST/);
    expect(() => Cgroup.create(host, '../escape', limits)).toThrow(/Invalid cgroup name/);
    expect(() => Cgroup.create(host, 'x', { ...limits, memoryMiB: 0 })).toThrow(/memoryMiB/);
    expect(() => Cgroup.create(host, 'x', { ...limits, cpus: Number.NaN })).toThrow(/cpus/);
    expect(() => Cgroup.create(host, 'x', { ...limits, pids: -1 })).toThrow(/pids/);
    expect(listGroups(host)).toEqual(['taken']);
  });

  it('lists no groups before clawd/ exists', () => {
    expect(listGroups({ version: 2, root: fakeV2() })).toEqual([]);
  });
});

describe.skipIf(!realV1)('cgroup v1 (this machine, as root)', () => {
  const host = { version: 1 as const, root: '/sys/fs/cgroup' };

  /** `sh` joins the group, then runs `command` inside it: as a launcher does. */
  function spawnInside(group: Cgroup, command: string) {
    const files = group.procsFiles.map((file) => `'${file}'`).join(' ');
    const child = spawn('/bin/sh', ['-c', `for f in ${files}; do echo $$ > "$f"; done; ${command}`], { stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    return { child, exited };
  }

  async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition() && Date.now() < deadline) await sleep(20);
  }

  it('writes the limits, holds a spawned process, and remove() kills it and the dirs', async () => {
    const name = uniqueName('hold');
    const group = Cgroup.create(host, name, { memoryMiB: 128, cpus: 0.5, pids: 64 });
    try {
      const dirs = group.procsFiles.map(dirname);
      const dirOf = (controller: string) => dirs.find((dir) => existsSync(join(dir, controller)))!;
      expect(read(join(dirOf('memory.limit_in_bytes'), 'memory.limit_in_bytes'))).toBe('134217728');
      expect(read(join(dirOf('cpu.cfs_quota_us'), 'cpu.cfs_quota_us'))).toBe('50000');
      expect(read(join(dirOf('cpu.cfs_period_us'), 'cpu.cfs_period_us'))).toBe('100000');
      expect(read(join(dirOf('pids.max'), 'pids.max'))).toBe('64');
      expect(listGroups(host)).toContain(name);

      const { child, exited } = spawnInside(group, 'exec sleep 30');
      await until(() => group.pids().includes(child.pid!));
      expect(group.pids()).toContain(child.pid);
      expect(group.oomKills()).toBe(0);

      await group.remove();
      expect(await exited).toBe('SIGKILL');
      for (const dir of dirs) expect(existsSync(dir)).toBe(false);
      expect(listGroups(host)).not.toContain(name);
    } finally {
      await group.remove();
    }
  });

  it('a spare weighs a quarter of one thread until it is in use, then four (cpu.shares)', async () => {
    const group = Cgroup.create(host, uniqueName('spare'), { memoryMiB: 128, cpus: 1, pids: 64 }, { capCpuLater: true, spare: true });
    try {
      const shares = join(
        group.procsFiles.map(dirname).find((dir) => existsSync(join(dir, 'cpu.shares')))!,
        'cpu.shares',
      );
      expect(read(shares)).toBe('256');
      group.inUse();
      expect(read(shares)).toBe('4096');
    } finally {
      await group.remove();
    }
  });

  it('counts the OOM killer’s kills and the CPU time spent', async () => {
    const name = uniqueName('oom');
    const group = Cgroup.create(host, name, { memoryMiB: 64, cpus: 1, pids: 16 });
    try {
      // tail keeps a whole "line" of /dev/zero (no newline ever comes) until the 64 MiB limit stops it.
      const { exited } = spawnInside(group, 'head -c 400000000 /dev/zero | tail > /dev/null');
      await exited;
      expect(group.oomKills()).toBeGreaterThanOrEqual(1);
      expect(group.cpuUsageMicros()).toBeGreaterThan(0);
    } finally {
      await removeGroup(host, name);
    }
    expect(listGroups(host)).not.toContain(name);
  });
});
