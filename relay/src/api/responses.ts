import type { z } from 'zod';
import type { DriverKind } from '../config/config.js';
import type { Profile } from '../profiles/profile-registry.js';
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
  cdpPort?: number;
  cdpUrl?: string;
  extension?: 'absent' | 'connected' | 'reconnecting';
  attachedTabs?: number;
}

/** What a profile's browser endpoint reports about itself (part of Status). */
export type EndpointState = Pick<Status, 'running' | 'pid' | 'extension' | 'attachedTabs'>;

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
