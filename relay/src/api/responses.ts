import type { z } from 'zod';
import type { ActionSchema, schemas } from './schemas.js';

/**
 * What the control API answers, shared by the driver that produces it and
 * the client that reads it, so the two cannot drift. Requests are the
 * schemas' input types (what a caller may send, defaults still optional).
 */

export type RequestOf<K extends keyof typeof schemas> = z.input<(typeof schemas)[K]>;
/** Any `POST /act` body. */
export type ActionRequest = z.input<typeof ActionSchema>;
/** The body of one action kind, without its `kind` (the client's shorthands). */
export type ActionOptions<K extends ActionRequest['kind']> = Omit<Extract<ActionRequest, { kind: K }>, 'kind'>;

export interface Tab {
  targetId: string;
  url: string;
  title: string;
  type: 'page';
}

/** How a profile's browser is reached: launched by us, the user's own through the extension, or a cdpUrl elsewhere. */
export type DriverKind = 'clawd' | 'extension' | 'remote';

/** A profile as config.json and the registry describe it. */
export interface Profile {
  name: string;
  driver: DriverKind;
  color: string;
  builtIn: boolean;
  /**
   * Managed profiles: the port their Chromium listens on only under
   * attachOnly (the user's own browser there); a browser clawd-browser
   * launches listens on no port (it speaks over a pipe).
   */
  cdpPort?: number;
  /** Remote profiles: where their browser is. In listings and status: where a CDP client connects. */
  cdpUrl?: string;
  /** Managed profiles: $CLAWD_HOME/browser/<name>/user-data. */
  userDataDir?: string;
}

/** `GET /profiles`: each profile, and whether its browser runs. */
export interface ProfileSummary extends Profile {
  running?: boolean;
}

/** `GET /`: the profile, and what its endpoint reports (a managed pid, the extension's state...). */
export interface Status {
  profile: string;
  driver: DriverKind;
  enabled: boolean;
  color: string;
  running?: boolean;
  connected?: boolean;
  pid?: number;
  /** Where a CDP client (Playwright connectOverCDP, Puppeteer connect) reaches this profile, with the token. */
  cdpUrl: string;
  extension?: 'absent' | 'connected' | 'reconnecting';
  attachedTabs?: number;
  /** A task session on a Selenium Grid: the node its browser runs on. */
  node?: string;
}

/** What a profile's browser endpoint reports about itself (part of Status). */
export type EndpointState = Pick<Status, 'running' | 'pid' | 'extension' | 'attachedTabs' | 'node'>;

/** A screenshot or PDF. */
export interface Capture {
  targetId: string;
  mimeType: string;
  /** Base64. */
  data: string;
}

export interface Screenshot extends Capture {
  type: 'png' | 'jpeg';
}

export interface ConsoleMessage {
  level: string;
  text: string;
  timestamp: number;
  url?: string;
  line?: number;
}

/** `GET /snapshot`: format ai (the outline with refs) or aria (the raw accessibility tree). */
export type Snapshot = AiSnapshotResponse | AriaSnapshotResponse;
export interface AiSnapshotResponse {
  targetId: string;
  format: 'ai';
  url: string;
  title: string;
  /** The outline, with [ref=eN] on what can be acted on. */
  text: string;
  refCount: number;
  truncated: boolean;
  /** Frames whose content is in the outline, the main frame included. */
  frames: number;
  /** With diff: lines added, removed and unchanged since the previous snapshot (absent when there was none to compare). */
  changes?: { added: number; removed: number; changed: number; unchanged: number };
}
export interface AriaSnapshotResponse {
  targetId: string;
  format: 'aria';
  /** The raw accessibility tree. */
  nodes: unknown[];
  truncated: boolean;
}

export interface ActionResult {
  targetId: string;
  kind: ActionRequest['kind'];
  /** After the action (absent when it closed the tab). */
  url?: string;
  title?: string;
  /** Dialogs answered and downloads started on the tab since its previous action. */
  events?: string[];
  /**
   * Whether anything observable happened: a navigation, an event, the
   * target's state, the page's DOM. False says the page did not react.
   */
  changed?: boolean;
  /** The target's state that the action changed, as it is now (checked, value, expanded, selected, pressed, open). */
  state?: Record<string, string | boolean | null>;
  /** With `changed: false`: what that likely means, and what to try; with a change, what it did not reach (only the control's own state changed). */
  hint?: string;
  /** A `type` into an element that is not a field (a code editor): the text went in as keys at its caret, not replacing its text. */
  typedAs?: 'keys';
  /** Asked for with `diffMaxChars` (`POST /act?diff=N`): the page's diff since the previous snapshot, when the action did not navigate. */
  diff?: string;
  /** What the action itself reports (an evaluate's value, a drag's points...). */
  [key: string]: unknown;
}

/** A download, wherever the browser put it. */
export interface DownloadRecord {
  targetId?: string;
  url: string;
  /** Where the file is (or will be) on this machine. */
  path?: string;
  state: 'in_progress' | 'complete' | 'failed';
  error?: string;
}

// ---- task sessions, grants, the vault, the action log (spec §11, §12) --------

export type CredentialMode = 'clean' | 'operator';
/** What a session keeps of its actions: nothing, screenshots removed with it, or kept for the audit. */
export type RecordMode = 'off' | 'transient' | 'audit';

/** One request in a tab's network log (`GET /network`); credential headers redacted unless the token's holder asks. */
export interface NetworkEntry {
  /** Counts up within the tab's log: `GET /network/body?id=`. */
  id: number;
  url: string;
  method: string;
  /** Playwright's resource type: document, script, image, fetch, xhr, stylesheet, … */
  resourceType: string;
  status?: number;
  statusText?: string;
  mimeType?: string;
  requestHeaders: Record<string, string>;
  responseHeaders?: Record<string, string>;
  startedAt: string;
  durationMs?: number;
  /** Response body bytes, once finished. */
  size?: number;
  /** Request body bytes (a POST's form or JSON), when it sent one: GET /network/body?part=request gives it. */
  requestBodySize?: number;
  failure?: string;
}

/** A body of a logged request, as the browser still holds it: base64, cut at 1 MiB (and said). */
export interface NetworkBody {
  id: number;
  part: 'response' | 'request';
  mimeType?: string;
  base64: string;
  size: number;
  truncated: boolean;
}

/** What `browser_record` (MCP) and the recording routes answer. */
export interface RecordingAnswer {
  targetId?: string;
  network?: { recording: boolean; since?: string; entries?: NetworkEntry[] };
  /** A HAR or trace written under $CLAWD_HOME/recordings (0600). */
  path?: string;
  tracing?: boolean;
  /** `body`, `request-body` (MCP): a body of one logged request (GET /network/body answers it unwrapped). */
  body?: NetworkBody;
  /** Set when the trace had stopped itself at its time bound before /trace/stop asked (config recordings.traceMaxMinutes). */
  bound?: string;
}

export const AUDIT_EVENT_KINDS = [
  'grant',
  'grant-revoked',
  'refresh-start',
  'refresh-saved',
  'extension-saved',
  'inject',
  'session-start',
  'session-extended',
  'session-limit',
  'session-stop',
  'vault-forget',
  'cdp-connect',
  'cdp-disconnect',
] as const;
export type AuditEventKind = (typeof AUDIT_EVENT_KINDS)[number];

/** One line of the audit log (`GET /audit`): never a cookie value or a token. */
export interface AuditEntry {
  time: string;
  event: AuditEventKind;
  tenant?: string;
  session?: string;
  domains?: string[];
  grantId?: string;
  /** A grant's expiry (ISO), on `grant` entries. */
  expiresAt?: string;
  outcome: 'ok' | 'refused' | 'error';
  detail?: string;
}

/** A grant that can still be used (`GET /grants`): from the audit log, since tokens are kept by no one but their holder. */
export interface LiveGrant {
  id: string;
  tenant: string;
  domains: string[];
  issuedAt: string;
  expiresAt: string;
  /** Sessions that were given cookies under it. */
  sessions: string[];
}

/** `GET /sessions` also tells how many spare browsers are warm (config sessionSpares). */
export interface SpareCounts {
  /** Started, connected, holding a blank page. */
  ready: number;
  starting: number;
  /** config sessionSpares: the pool is topped up to this after the first session. */
  wanted: number;
}

/** `POST /sessions`, `GET /sessions`. */
export interface SessionInfo {
  id: string;
  /** The profile name every control route takes (`?profile=session-<id>`). */
  profile: string;
  credential_mode: CredentialMode | 'refresh';
  tenant?: string;
  /** Domains whose cookies were injected (operator) or will be saved (refresh). */
  domains: string[];
  injectedCookies: number;
  grantId?: string;
  record: RecordMode;
  /** Where its browser runs: this machine, or a node of the configured Selenium Grid. */
  place: 'local' | 'grid';
  /** On a Grid: the node it was placed on. */
  node?: string;
  /** The session browser's CDP: the relay's `/cdp?profile=session-<id>` (with the token or the session's key). */
  cdpUrl: string;
  createdAt: string;
  expiresAt: string;
  /** CDP clients connected to it now (its driver not counted). */
  cdpClients: number;
  /** A local session's isolation (config sessionIsolation): its own jail, or a browser process of this machine. */
  isolation?: 'jail' | 'process';
  /** Why a session is not in the jail it would have had (the host cannot make one), or what its jail lacks. */
  isolationNote?: string;
  /** Its browser's traffic through its egress proxy, in `GET /sessions`: bytes each way, connections, and those refused. */
  egress?: { bytesIn: number; bytesOut: number; connections: number; refused: number };
  /**
   * The session's own key, in `POST /sessions`'s answer only: it opens this
   * session's routes (and MCP scoped to it) and nothing else, and expires
   * with the session. The main token still reaches everything.
   */
  key?: string;
}

/** A signed grant's payload: whose cookies, of which domains, until when. */
export interface Grant {
  id: string;
  tenant: string;
  allowed_domains: string[];
  /** Epoch milliseconds. */
  expires_at: number;
  origin_session_id?: string;
}

/** `GET /vault`: what the vault holds for a (tenant, domain), never a value. */
export interface VaultListing {
  tenant: string;
  domain: string;
  savedAt: string;
  cookies: number;
}

export type Actor = 'agent' | 'person';
export type Outcome = 'ok' | 'error' | 'timeout' | 'aborted';

/** One line of the action log (`GET /actions`): never what was typed. */
export interface ActionRecord {
  time: string;
  profile: string;
  targetId?: string;
  kind: string;
  ref?: string;
  url?: string;
  durationMs: number;
  outcome: Outcome;
  error?: string;
  actor: Actor;
}
