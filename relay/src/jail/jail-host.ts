import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { type CgroupVersion, detectCgroups } from './cgroup.js';

/**
 * Whether this host can jail a task session's browser (spec §14), asked once
 * per server: Linux, run as root (namespaces and cgroups need it), `ip` and
 * `setpriv` present, a cgroup tree it may write. When it cannot, sessions
 * run as `process` and every session's answer says why.
 */
export type JailHost = { cgroups: { version: CgroupVersion; root: string }; sandbox: boolean; sandboxNote?: string } | { unusable: string };

let detected: JailHost | undefined;

export function jailHost(): JailHost {
  return (detected ??= detect());
}

function detect(): JailHost {
  if (process.platform !== 'linux') return { unusable: `jails need Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0) return { unusable: 'jails need serve to run as root (to make network namespaces and cgroups)' };
  for (const [tool, args] of [
    ['ip', ['-V']],
    ['setpriv', ['--version']],
  ] as const) {
    try {
      execFileSync(tool, args, { stdio: 'ignore' });
    } catch {
      return { unusable: `jails need \`${tool}\` (Debian: ${tool === 'ip' ? 'iproute2' : 'util-linux'})` };
    }
  }
  const probe = `clawd-probe-${process.pid}`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'delete', probe], { stdio: 'pipe' });
  } catch (error) {
    return { unusable: `this host does not let serve make network namespaces: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}` };
  }
  const cgroups = detectCgroups();
  if ('unusable' in cgroups) return { unusable: cgroups.unusable };
  // Chromium's own sandbox, run by an unprivileged user, needs user namespaces.
  const clone = '/proc/sys/kernel/unprivileged_userns_clone';
  const maxUserNamespaces = Number(readOr('/proc/sys/user/max_user_namespaces', '1'));
  if ((existsSync(clone) && readOr(clone, '1').trim() === '0') || maxUserNamespaces === 0)
    return { cgroups, sandbox: false, sandboxNote: 'this host turns unprivileged user namespaces off, so Chromium runs in the jail without its own sandbox' };
  return { cgroups, sandbox: true };
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}
