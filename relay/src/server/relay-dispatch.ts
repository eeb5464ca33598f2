import type { Outbound } from '../bridge/cdp-bridge.js';
import type { Logger } from '../log.js';

/**
 * How the bridge's output leaves the relay. The bridge returns what to send
 * (`Outbound`); relay-server.ts routes each message to the part that sends or
 * does it (`Dispatch`), and the sockets write at the end of the turn
 * (`EndOfTurnFlush`).
 */

/** Hands each message the bridge emitted to the socket, log or task it is for. */
export type Dispatch = (outbound: Outbound[]) => void;

/** Runs a bridge entry point for one socket; a fault there closes that socket, never the process. */
export function dispatchGuarded(log: Logger, dispatch: Dispatch, what: string, close: (reason: string) => void, work: () => Outbound[]): void {
  let outbound: Outbound[];
  try {
    outbound = work();
  } catch (error) {
    log.error(`${what}: ${(error as Error).stack ?? error}`);
    close(`internal error handling a message: ${(error as Error).message}`.slice(0, 120));
    return;
  }
  dispatch(outbound);
}

/**
 * Everything the bridge emits in one turn of the event loop leaves in as
 * few writes as possible: commands for the extension as one JSON array (one
 * WebSocket message, one hop through Chrome's network service), and each
 * client's raw socket corked until the turn ends (one syscall, not one per
 * CDP message). Nothing waits longer than the current turn.
 *
 * A writer that held something back calls `schedule()`; once per turn, in a
 * microtask, `write` sends all of it.
 */
export class EndOfTurnFlush {
  private scheduled = false;

  constructor(private readonly write: () => void) {}

  schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.write();
  };
}
