import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_VERSION } from '../config/package-root.js';
import { liveServerRecord, readServerRecord, removeServerRecord, writeServerRecord } from '../config/server-record.js';
import type { Logger } from '../log.js';

/**
 * How a `serve` process lives and ends. One per home: a second is refused.
 * Once it listens it says where (server.json, relay.pid), and it takes both
 * back when it stops. And it never ends without a word in its log
 * (relay.log, when `mcp` or the native host started it): a signal, the idle
 * stop, a fatal error, each says so as it happens, and the last line says
 * the exit. What no process can write (SIGKILL, the kernel's OOM killer, a
 * machine that stopped) is said by the next server of the home, which finds
 * the record of one that never took it back.
 */

/** The signals that end a server: Ctrl-C, a service manager or `kill`, a terminal that closed. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_FROM: Record<(typeof STOP_SIGNALS)[number], string> = {
  SIGINT: 'Ctrl-C, or a signal sent as it',
  SIGTERM: 'from another process: a person, a service manager, or a program stopping the processes it started',
  SIGHUP: 'the terminal that ran it closed',
};

/**
 * Before anything starts: a server of this home that still answers is in the
 * way (a second would share its profiles' data, sessions and vault); the
 * record of one whose process is gone is said, then left for the new record.
 */
export async function refuseSecondServer(home: string, log: Logger): Promise<void> {
  const running = liveServerRecord(home);
  if (!running) {
    const stale = readServerRecord(home);
    if (stale)
      log.warn(
        `the previous server of this home (pid ${stale.pid}, started ${stale.startedAt}) ended without stopping: it was killed (SIGKILL, or the kernel's OOM killer), or the machine stopped`,
      );
    return;
  }
  const answers = await fetch(`${running.controlUrl}/`, { signal: AbortSignal.timeout(1_000) }).then(
    () => true,
    () => false,
  );
  if (answers)
    throw new Error(
      `A clawd-browser server already runs for ${home} (pid ${running.pid}, ${running.controlUrl}). Use it (every command and \`mcp\` find it), stop it first, or set CLAWD_HOME to another folder for a second one.`,
    );
}

/**
 * From the first moment: a fatal error is logged with its stack before the
 * process ends. A promise nobody awaited failing is a bug to report, not a
 * reason to drop every client and orphan the browsers: it is logged, and
 * the server goes on. (A server that cannot start says why in one line, and
 * exits: that line is its log.)
 */
export function logFatalErrors(log: Logger): void {
  process.on('unhandledRejection', (reason) => {
    log.error(`internal error (a bug; please report it): ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  process.on('uncaughtException', (error) => {
    log.error(`exiting: a fatal error (a bug; please report it): ${error.stack ?? error.message}`);
    process.exit(1);
  });
}

/**
 * Says where this server listens (config/server-record.ts): every command,
 * `mcp` and the native host find it there. From then on its exit is the last
 * line of its log, with its code (written synchronously, as the process ends).
 */
export function announceServer(home: string, where: { controlUrl: string; relayPort: number }, log: Logger): void {
  writeFileSync(join(home, 'relay.pid'), `${process.pid}\n`);
  writeServerRecord(home, { pid: process.pid, ...where, version: PACKAGE_VERSION, startedAt: new Date().toISOString() });
  process.on('exit', (code) => log.info(`exited (code ${code})`));
}

/** Takes back what announceServer wrote. */
export function withdrawServer(home: string): void {
  rmSync(join(home, 'relay.pid'), { force: true });
  removeServerRecord(home, process.pid);
}

/** Each stop signal is said in the log, with where such a signal comes from, then `stop` runs (once). */
export function stopOnSignals(log: Logger, stop: (reason: string) => Promise<void>): void {
  for (const signal of STOP_SIGNALS)
    process.once(signal, () => {
      log.info(`stopping: received ${signal} (${SIGNAL_FROM[signal]})`);
      void stop(signal);
    });
}
