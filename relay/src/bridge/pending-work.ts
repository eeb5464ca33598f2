import type { DebuggerSession, Session } from './client-sessions.js';

/** Work to do when Chrome answers a forwarded or internal command. */
export type Followup =
  /** X.enable: replay what Chrome will not report again, release held events (domain-gate.ts). */
  | { kind: 'enable'; session: DebuggerSession; domain: string; contexts: Uint8Array[] }
  /** Target.setAutoAttach: announce the children Chrome announced earlier to others. */
  | { kind: 'children'; session: DebuggerSession }
  /** Runtime.disable reached Chrome: its contexts are no longer reported. */
  | { kind: 'runtimeDisabled'; chromeSessionId: string }
  /** One of several internal commands a client's command waits for (answered or not). */
  | { kind: 'step'; done: () => void }
  /**
   * Page.createIsolatedWorld. `repeated`: sent again after the extension's worker restarted,
   * so the world's executionContextCreated may have gone with the old worker (domain-gate.ts).
   */
  | { kind: 'isolatedWorld'; chromeSessionId: string; frameId: string; worldName: string; repeated?: boolean }
  /** The relay's own command Chrome may not know (an older browser): `run` does without it. */
  | { kind: 'orElse'; run: () => void };

/** What a command sent to the extension is waiting to do with the answer. */
export type PendingWork =
  /** Chrome's answer goes to the client as it is. */
  | { kind: 'forward'; session: Session; messageId: number; tabId: number; followup?: Followup }
  /** Answered by the client's own transformation of Chrome's result (scoped cookies). */
  | { kind: 'transform'; session: Session; messageId: number; tabId: number; transform: (result: unknown) => object | undefined }
  | { kind: 'createTarget'; session: Session; messageId: number }
  /** Closing or activating a tab: answered with `result` once the extension has done it. */
  | { kind: 'tabOp'; session: Session; messageId: number; tabId: number; result: Record<string, unknown> }
  /** The relay's own command: nobody waits for the answer but the followup. */
  | { kind: 'internal'; tabId: number; followup?: Followup };
