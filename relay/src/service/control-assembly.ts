import type { BrowseOptions, BrowseRequest, BrowseResult } from '../api/browse-schemas.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { UnavailableError } from '../errors.js';
import type { ActionLog } from '../runtime/action-log.js';
import { ActPerformer } from './act-performer.js';
import { ConfirmService } from './confirm-service.js';
import { ControlService } from './control-service.js';
import { type Credentials, CredentialService } from './credential-service.js';
import { DemonstrationService } from './demonstration-service.js';
import { FilmService } from './film-service.js';
import { HandoffService, type LinkMaker } from './handoff-service.js';
import { HandoffWebhook, type WebhookTarget } from './handoff-webhook.js';
import { KeptDemonstrations } from './kept-demonstrations.js';
import { LiveInput } from './live-input.js';
import { NotesService } from './notes-service.js';
import { OperationRunner } from './operation-runner.js';
import { PageToolsService } from './page-tools-service.js';
import { type RecordingHome, RecordingService } from './recording-service.js';
import { RoutineService } from './routine-service.js';
import { Teaching, type TeachingStores } from './teaching.js';
import { ToolboxService } from './toolbox-service.js';
import { VisionService } from './vision-service.js';

/**
 * The one place the services are built, in the order they depend on each
 * other (as Selenium Grid wires its router, distributor, session map and
 * queue): the operation runner first, then hand-offs (which know nothing of
 * confirmations), the confirmations that ask through them, and the services
 * that act through those. Each gets the narrow ports it uses, never the
 * whole; what one needs of a later one is a port given here.
 */

/** The browse runtime (browse/browse-runs.ts), as the server hands it over: a run for a caller's scope. */
export type BrowseRunner = (request: BrowseRequest, scope: { profile?: string; locked?: boolean }, options: BrowseOptions) => Promise<BrowseResult>;

/** What the server has built before the services: the browsers, task sessions, logs, stores, and its own links. */
export interface ControlParts {
  manager: ProfileManager;
  /** Task sessions, the vault, grants, the audit, and how the person at the extension's Chrome is told of a hand-off. */
  credentials: Credentials;
  actionLog: ActionLog;
  /** Where recordings and films are written (recording-service.ts). */
  recordingHome: RecordingHome;
  /** This package's version, in the HAR files it writes. */
  version: string;
  /** Where what people taught is kept (teaching.ts). */
  teachingStores: TeachingStores;
  /**
   * A person's one-time link to a hand-off: the server makes it, since it
   * holds the codes and knows its address (on a request's own host when
   * there is one, else where it listens).
   */
  handoffLink: (host?: string) => LinkMaker;
  /** Where waiting hand-offs are announced, when config names a webhook. */
  handoffWebhook?: () => WebhookTarget | undefined;
  /** Whether the operator's console is open: a person watching it can be asked to confirm an act. */
  consoleOpen: () => boolean;
}

/** Every service of the control API, built: what the routes, the in-process API and the server use. */
export interface ControlServices {
  control: ControlService;
  toolbox: ToolboxService;
  vision: VisionService;
  pageTools: PageToolsService;
  handoffs: HandoffService;
  confirmations: ConfirmService;
  liveInput: LiveInput;
  teaching: Teaching;
  credentials: CredentialService;
  /** The network log, HAR and traces. */
  recordings: RecordingService;
  films: FilmService;
  manager: ProfileManager;
  handoffLink: (host?: string) => LinkMaker;
  /** The browse runtime, once the server hands it over (it sits above the services: it drives their in-process API). */
  browse: BrowseRunner;
  browseWith(runner: BrowseRunner): void;
}

export function assembleControl(parts: ControlParts): ControlServices {
  const { manager, actionLog } = parts;
  const { sessions, audit } = parts.credentials;
  const recordings = new RecordingService(manager, parts.recordingHome, parts.version);
  const films = new FilmService(manager, parts.recordingHome);
  const operations = new OperationRunner(manager, sessions, actionLog);
  const { perform } = new ActPerformer(operations, sessions, (profile) => recordings.isTracing(profile));
  const handoffs = new HandoffService(
    { operations, drivers: manager, actionLog },
    audit,
    parts.handoffWebhook && new HandoffWebhook(parts.handoffWebhook, audit),
  );
  if (parts.credentials.noticeHandoff) handoffs.onExtensionHandoff(parts.credentials.noticeHandoff);
  const confirmations = new ConfirmService(
    {
      config: () => manager.registry.config(),
      drivers: manager,
      perform,
      handoffs,
      link: () => parts.handoffLink(),
      sessionsHave: (id) => sessions.has(id),
      consoleOpen: parts.consoleOpen,
    },
    audit,
  );
  // Every driver asks before it keeps a download (a confirm rule may hold an executable for a yes).
  manager.holdDownload = (held) => confirmations.download(held);
  // A task session's film is one of the film service's.
  sessions.filmWith(films.sessionFilms());
  const notes = new NotesService(manager, parts.teachingStores.notes);
  const control = new ControlService({ drivers: manager, operations, actionLog, confirmations, notes });
  const demonstrations = new DemonstrationService(manager, parts.teachingStores.routines, new KeptDemonstrations(parts.teachingStores.demonstrations));
  const routines = new RoutineService({ browser: control, operations, drivers: manager, secrets: sessions }, demonstrations);
  const tenantOf = (id: string) => sessions.list().find((info) => info.id === id)?.tenant;
  let browse: BrowseRunner = async () => {
    throw new UnavailableError('The browse runtime is not running on this server');
  };
  return {
    control,
    toolbox: new ToolboxService(operations, manager),
    vision: new VisionService(operations, confirmations),
    pageTools: new PageToolsService(operations, manager, confirmations),
    handoffs,
    confirmations,
    liveInput: new LiveInput(operations, confirmations, handoffs),
    teaching: new Teaching(demonstrations, routines, notes, tenantOf),
    credentials: new CredentialService(parts.credentials, manager, actionLog),
    recordings,
    films,
    manager,
    handoffLink: parts.handoffLink,
    browse: (request, scope, options) => browse(request, scope, options),
    browseWith: (runner) => {
      browse = runner;
    },
  };
}
