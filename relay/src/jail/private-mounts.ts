/**
 * A jail's own temporary folders. `ip netns exec` gives the browser a mount
 * namespace of its own, but with the host's /tmp, /var/tmp and /dev/shm in
 * it: the jail's user could fill the host's disk or pin shared memory, and
 * what it left would outlive its cgroup. So, inside that namespace and
 * before the browser starts, each is a fresh tmpfs (bounded, and its pages
 * charged to the jail's memory cgroup); its own folder (its browser's data,
 * on the host's disk, which teardown removes) and X's sockets, when there
 * are any, are put back where they were. The mounts go with the last
 * process of the namespace: nothing is left to remove.
 */

/** The folders a process of any user may write, made private. */
export const PRIVATE_FOLDERS = ['/tmp', '/var/tmp', '/dev/shm'];

const SCRIPT = `set -e
dir="$1"; mib="$2"; shift 2
mount -t tmpfs -o size=1m,mode=0700 tmpfs /mnt
mkdir /mnt/data /mnt/x11
mount --rbind "$dir" /mnt/data
if [ -d /tmp/.X11-unix ]; then mount --rbind /tmp/.X11-unix /mnt/x11; fi
for at in ${PRIVATE_FOLDERS.join(' ')}; do mount -t tmpfs -o "size=\${mib}m,mode=1777,nosuid,nodev" tmpfs "$at"; done
mkdir -p "$dir" && mount --move /mnt/data "$dir"
if mountpoint -q /mnt/x11; then mkdir -p /tmp/.X11-unix && mount --move /mnt/x11 /tmp/.X11-unix; fi
umount /mnt
exec "$@"`;

/** What runs before the jail's command, inside its namespace: the mounts above, each at most `mib` MiB, then `exec` of the rest of the line. */
export function withPrivateFolders(dir: string, mib: number): string[] {
  return ['/bin/sh', '-c', SCRIPT, 'private-folders', dir, String(mib)];
}
