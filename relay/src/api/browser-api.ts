import type {
  ActionResult,
  AiSnapshotResponse,
  Capture,
  ConsoleMessage,
  DialogArmed,
  DownloadRecord,
  FileChooserAnswer,
  PageTextResponse,
  ProfileSummary,
  RecordingAnswer,
  Screenshot,
  Status,
  Tab,
  TabList,
  PlaywrightScript,
  ViewInputAnswer,
} from './responses.js';
import type { ActionRequest, QueryOf, RequestOf } from './schemas.js';
import type { ActOptions } from './act-options.js';
import type { ToolboxApi } from './toolbox-api.js';
import type { VisionApi } from './vision-api.js';
import type { PageToolsApi } from './page-tools-api.js';
import type { TeachApi } from './teach-api.js';
import type { HandoffAnswer } from './session-responses.js';
export type { ActOptions, Confirmation } from './act-options.js';
import type { BrowseOptions, BrowseRequest, BrowseResult } from './browse-schemas.js';

/** `GET /snapshot`'s query: the tab, the format, and the shaping options (SnapshotShaping). */
export type SnapshotRequest = Omit<QueryOf<'snapshotQuery'>, 'profile'>;

/** `browser_record` (MCP): the network log, a HAR of it, a trace (service/recording-service.ts), a film (film-service.ts). */
export interface RecordRequest {
  action: 'network-start' | 'network-stop' | 'network' | 'body' | 'request-body' | 'har' | 'trace-start' | 'trace-stop' | 'video-start' | 'video-stop';
  targetId?: string;
  /** `body`, `request-body`: the request's id in the log. */
  id?: number;
  /** Filters of `network`: a URL substring, a status (404) or class (4xx), a resource type. */
  url?: string;
  status?: string;
  type?: string;
  limit?: number;
  /** `har`: every recorded tab of the profile. */
  all?: boolean;
  /** `har`, `trace-stop`, `video-stop`: keep the file after a task session ends. */
  keep?: boolean;
  /** `video-start`: WebM (the default) or MP4. */
  format?: 'webm' | 'mp4';
}

export interface HandoffWaitOptions {
  onWaiting?: (handoff: HandoffAnswer) => void;
  signal?: AbortSignal;
}

/**
 * One profile's browser, as an agent's tools use it: what the MCP tools call.
 * Two implementations, one contract: the typed client over HTTP (for
 * `clawd-browser mcp` beside a separate server) and the control service in
 * process (for `/mcp` on the server itself, with no HTTP round trip).
 */
export interface BrowserApi {
  /** The same API for another profile. */
  withProfile(profile: string): BrowserApi;
  status(): Promise<Status>;
  profiles(): Promise<{ profiles: ProfileSummary[]; defaultProfile: string }>;
  tabs(): Promise<Tab[]>;
  /** The tabs, with how a person lends one when their browser lends none yet. */
  tabList(): Promise<TabList>;
  openTab(url?: string): Promise<Tab>;
  focusTab(targetId: string): Promise<Tab>;
  closeTab(targetId: string): Promise<Tab>;
  navigate(url: string, targetId?: string): Promise<Tab>;
  screenshot(options?: RequestOf<'screenshot'>): Promise<Screenshot>;
  pdf(targetId?: string): Promise<Capture>;
  console(options?: { targetId?: string; level?: string }): Promise<{ targetId: string; messages: ConsoleMessage[]; fence?: string }>;
  snapshot(options?: SnapshotRequest & { format?: 'ai' }): Promise<AiSnapshotResponse>;
  /**
   * One action. With `diffMaxChars`, the answer also carries the page's diff
   * since the previous snapshot (`diff`, cut at that many characters) when the
   * action did not navigate: one call where an agent would make two.
   */
  act(action: ActionRequest, options?: ActOptions): Promise<ActionResult>;
  /** The page's (or a ref's, or a selector's) readable content as Markdown, cut at maxChars. */
  text(options?: Omit<QueryOf<'textQuery'>, 'profile'>): Promise<PageTextResponse>;
  fileChooser(options: RequestOf<'fileChooser'>): Promise<FileChooserAnswer>;
  dialog(options: RequestOf<'dialog'>): Promise<DialogArmed>;
  downloads(): Promise<{ downloads: DownloadRecord[]; fence?: string }>;
  record(request: RecordRequest): Promise<RecordingAnswer>;
  /** A tab's (or every tab's) recorded steps as a Playwright test. */
  script(query?: Omit<RequestOf<'scriptQuery'>, 'profile'>): Promise<PlaywrightScript>;
  /** Emulation, network routes, init scripts, storage (toolbox-api.ts). */
  readonly toolbox: ToolboxApi;
  /** Labelled screenshots and computer use (vision-api.ts). */
  readonly vision: VisionApi;
  /** The tools the page offers agents, WebMCP (page-tools-api.ts). */
  readonly pageTools: PageToolsApi;
  /** A person's demonstrations, the routines they make, their notes (teach-api.ts). */
  readonly teach: TeachApi;
  /**
   * Asks a person to act in a tab and waits for the answer (or the time
   * out); `onWaiting` hears the hand-off once it waits, with the person's
   * link. Aborting `signal` (or the caller) cancels it.
   */
  handoff(request: Omit<RequestOf<'handoff'>, 'profile'>, options?: HandoffWaitOptions): Promise<HandoffAnswer>;
  /**
   * Runs the agent loop for a goal against a configured model (spec §24)
   * on this profile (or the request's session, or a fresh task session) and
   * answers with the model's final answer; `onEvent` hears each step.
   */
  browse(request: BrowseRequest, options?: BrowseOptions): Promise<BrowseResult>;
  /** A hand-off as its MCP App shows it: its state and, while it waits, its tab's picture now (a look, not an action). */
  handoffView(id: string): Promise<HandoffView>;
  /** The person's input on a waiting hand-off's tab, from its MCP App (logged as the person's). */
  handoffInput(id: string, input: RequestOf<'handoffInput'>): Promise<ViewInputAnswer>;
  /** The person's answer, from the hand-off's MCP App. */
  answerHandoff(id: string, answer: RequestOf<'handoffAnswer'>): Promise<HandoffAnswer>;
}

export interface HandoffView {
  handoff: HandoffAnswer;
  frame?: { mimeType: 'image/jpeg'; data: string };
}
