import type { ProfileManager } from '../driver/profile-manager.js';
import { describeSpan } from '../driver/idle-browsers.js';
import type { Logger } from '../log.js';

/**
 * Nothing left running that nobody uses. Every server stops its managed
 * browsers once they have gone unused for config idleStopMinutes
 * (ProfileManager.sweepIdle). A server that `mcp` or the native host started
 * by itself (`serve --exit-when-idle`) also exits once it has had no
 * browser, no shared tab, no task session and no client for that long; a
 * server a person started stays up until they stop it.
 */

export interface IdleServerState {
  manager: ProfileManager;
  sharedTabs(): number;
  openSessions(): number;
  /** MCP sessions over Streamable HTTP, and CDP clients of the extension relay. */
  otherClients(): number;
  /** When the control API last answered a request. */
  lastRequestAt(): number;
}

export interface IdleWatch {
  stop(): void;
}

/** How often to look: a quarter of the idle time, between 250 ms and 30 s. */
function periodFor(idleMs: number): number {
  return Math.min(30_000, Math.max(250, idleMs / 4));
}

export function watchIdle(state: IdleServerState, log: Logger, options: { exitWhenIdle?: () => Promise<void> } = {}): IdleWatch {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const idleMs = () => state.manager.registry.config().idleStopMinutes * 60_000;
  // With idleStopMinutes 0, config.json is looked at again each minute (an edit applies).
  const schedule = (ms: number) => (timer = setTimeout(() => void tick(), periodFor(ms || 60_000)).unref());
  const tick = async () => {
    const ms = idleMs();
    if (ms > 0) {
      await state.manager.sweepIdle(ms).catch((error: Error) => log.warn(`idle sweep: ${error.message}`));
      if (options.exitWhenIdle && !stopped) {
        const quietFor = Math.min(state.manager.idle.idleForMs(), Date.now() - state.lastRequestAt());
        const holding = state.manager.managedRunning || state.sharedTabs() > 0 || state.openSessions() > 0 || state.otherClients() > 0;
        if (!holding && quietFor >= ms) {
          log.info(
            `exiting: started by mcp or the native host, and unused for ${describeSpan(quietFor)} (no browser, shared tab, session or client; config idleStopMinutes)`,
          );
          stopped = true;
          await options.exitWhenIdle();
          return;
        }
      }
    }
    if (!stopped) schedule(ms);
  };
  schedule(idleMs());
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
