import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * What a local process without credentials could connect to: the TCP ports
 * that processes listen on, read from /proc (Linux), on any address.
 */

/** The process and every descendant of it that runs now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    // 0: exited while we looked.
    if (parent) children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree: number[] = [];
  const visit = (pid: number) => {
    tree.push(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return tree;
}

/** A process's parent; 0 once it has exited. */
export function parentOf(pid: number): number {
  try {
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** The TCP ports (IPv4 and IPv6, any address) on which one of `pids` listens. */
export function listeningPorts(pids: number[]): Array<{ pid: number; port: number }> {
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // No IPv6 in this kernel.
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // `sl local_address rem_address st … inode`; 0A is LISTEN.
      if (fields.length > 9 && fields[3] === '0A') byInode.set(fields[9], Number.parseInt(fields[1].split(':')[1], 16));
    }
  }
  const found: Array<{ pid: number; port: number }> = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode && byInode.has(inode)) found.push({ pid, port: byInode.get(inode)! });
      } catch {
        // Closed between readdir and readlink.
      }
    }
  }
  return found;
}
