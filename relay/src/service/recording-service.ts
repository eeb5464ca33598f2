import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { z } from 'zod';
import type { NetworkEntry, RecordingAnswer } from '../api/responses.js';
import type { schemas } from '../api/schemas.js';
import type { ActionRecord } from '../api/session-responses.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { redact, toHar } from '../driver/network/network-log.js';
import { chooseFence, withFence } from '../api/page-content.js';
import { BadRequestError, ForbiddenError } from '../errors.js';
import { roomLeft } from './recording-room.js';

/**
 * A record of what happened (issue 22), for HTTP and MCP alike: a tab's
 * network log (off until asked for), exported as HAR 1.2, and a Playwright
 * trace of a profile's browser context (screenshots and DOM snapshots, with
 * the action log's entries beside it). Files are written under
 * `$CLAWD_HOME/recordings/<profile>/` with 0600; a task session's go with
 * it unless exported with `keep` (then under `recordings/kept/`).
 * Credential headers are shown only to the token's holder. Bounded (config
 * `recordings`): a trace stops itself after traceMaxMinutes, and nothing new
 * is written while a profile's recordings take maxMiB.
 */

export interface RecordingHome {
  /** Where a profile's recordings go; `kept` ones outlive a task session. */
  dirFor(profile: string, kept: boolean): string;
  /** The action log's entries of a profile since a time: written beside its trace. */
  actionsSince(profile: string, since: string): ActionRecord[];
}

type TraceWritten = RecordingAnswer & { path: string; actionsPath: string };

/** Why a caller may not see credential headers, or undefined when it may. */
export type SecretsRefusal = string | undefined;

export class RecordingService {
  /** Profiles being traced: when each trace started, and the timer of its time bound. */
  private readonly tracing = new Map<string, { since: string; bound: NodeJS.Timeout }>();
  /** Traces that stopped themselves at their bound, kept for the /trace/stop that asks next. */
  private readonly stoppedAtBound = new Map<string, TraceWritten>();

  constructor(
    private readonly manager: ProfileManager,
    private readonly home: RecordingHome,
    private readonly version: string,
  ) {}

  async networkRecord(profile: string | undefined, request: z.output<typeof schemas.networkRecord>): Promise<RecordingAnswer> {
    const tab = await this.manager.driver(profile).tabFor(request.targetId);
    tab.network.record(request.on);
    return { targetId: await tab.targetId(), network: { recording: tab.network.recording, since: tab.network.since } };
  }

  async network(
    profile: string | undefined,
    query: Omit<z.output<typeof schemas.networkQuery>, 'profile'>,
    secretsRefusal: SecretsRefusal,
  ): Promise<RecordingAnswer> {
    const secrets = query.secrets === 'true';
    if (secrets && secretsRefusal) throw new ForbiddenError(secretsRefusal);
    const tab = await this.manager.driver(profile).tabFor(query.targetId);
    const entries = tab.secrets.redactDeep(tab.network.list(query));
    // The URLs a page requested are its words too.
    return withFence({
      targetId: await tab.targetId(),
      network: { recording: tab.network.recording, since: tab.network.since, entries: secrets ? entries : entries.map(redact) },
    });
  }

  async networkBody(profile: string | undefined, query: Omit<z.output<typeof schemas.networkBody>, 'profile'>) {
    const tab = await this.manager.driver(profile).tabFor(query.targetId);
    const body = await tab.network.body(query.id, query.part);
    // A typed secret may be in a form's body, as typed or encoded: it is shown by name.
    const base64 = tab.secrets.redactBody(body.base64);
    // Its fence is chosen against the body as text: what a reader is shown.
    return { targetId: await tab.targetId(), ...body, base64, fence: chooseFence([Buffer.from(base64, 'base64').toString('utf8')]) };
  }

  /** Writes the HAR of one tab (or, with `all`, of every tab of the profile that recorded) and says where. */
  async har(
    profile: string | undefined,
    request: z.output<typeof schemas.har>,
    secretsRefusal: SecretsRefusal,
  ): Promise<RecordingAnswer & { entries: number }> {
    if (request.secrets && secretsRefusal) throw new ForbiddenError(secretsRefusal);
    const driver = this.manager.driver(profile);
    const tabs = request.all ? await driver.allTabs() : [await driver.tabFor(request.targetId)];
    const entries: NetworkEntry[] = tabs.flatMap((tab) => tab.secrets.redactDeep(tab.network.list())).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    if (!tabs.some((tab) => tab.network.since))
      throw new BadRequestError('Nothing was recorded: start the network log first (POST /network/record {on: true})');
    this.checkRoom(driver.profile.name);
    const har = toHar(request.secrets ? entries : entries.map(redact), this.version);
    const path = this.write(driver.profile.name, request.keep === true, 'har', JSON.stringify(har, null, 1));
    return { ...(request.all ? {} : { targetId: await tabs[0].targetId() }), path, entries: entries.length };
  }

  /** Whether a trace records the profile's browser now. */
  isTracing(profile: string): boolean {
    return this.tracing.has(profile);
  }

  async traceStart(profile: string | undefined): Promise<RecordingAnswer> {
    const driver = this.manager.driver(profile);
    // A trace keeps DOM snapshots and screenshots whole: it cannot be redacted, so none starts in a browser that holds a secret.
    if (driver.secrets.holding) throw driver.secrets.heldError('no trace is recorded (a trace cannot be redacted)');
    const name = driver.profile.name;
    const trace = this.tracing.get(name);
    if (trace) throw new BadRequestError(`Profile ${name} is being traced since ${trace.since}: stop that trace first`);
    this.checkRoom(name);
    const { traceMaxMinutes } = this.limits();
    await (await driver.context()).tracing.start({ screenshots: true, snapshots: true, title: name });
    this.stoppedAtBound.delete(name);
    const bound = setTimeout(() => {
      const why = `The trace stopped itself after ${traceMaxMinutes} minutes (config recordings.traceMaxMinutes)`;
      this.finishTrace(name, false).then(
        (written) => this.stoppedAtBound.set(name, { ...written, bound: why }),
        () => {}, // its browser went meanwhile: there is nothing left to write
      );
    }, traceMaxMinutes * 60_000);
    bound.unref();
    this.tracing.set(name, { since: new Date().toISOString(), bound });
    return { tracing: true };
  }

  /** Stops the trace and writes it (a zip for `npx playwright show-trace`), with the profile's action log entries since it started beside it. */
  async traceStop(profile: string | undefined, request: z.output<typeof schemas.traceStop>): Promise<TraceWritten> {
    const name = this.manager.driver(profile).profile.name;
    if (this.tracing.has(name)) return this.finishTrace(name, request.keep === true);
    const stopped = this.stoppedAtBound.get(name);
    if (!stopped) throw new BadRequestError(`Profile ${name} is not being traced: POST /trace/start first`);
    this.stoppedAtBound.delete(name);
    return request.keep ? this.keep(name, stopped) : stopped;
  }

  private async finishTrace(name: string, kept: boolean): Promise<TraceWritten> {
    const { since, bound } = this.tracing.get(name)!;
    clearTimeout(bound);
    this.tracing.delete(name);
    const context = await this.manager.driver(name).context();
    const path = this.path(name, kept, 'zip');
    await context.tracing.stop({ path });
    chmodSync(path, 0o600);
    const actionsPath = path.replace(/\.zip$/, '.actions.json');
    writeFileSync(actionsPath, JSON.stringify(this.home.actionsSince(name, since), null, 1), { mode: 0o600 });
    return { path, actionsPath, tracing: false };
  }

  /** Moves a trace written at its bound to the kept recordings, as `keep` asks. */
  private keep(name: string, written: TraceWritten): TraceWritten {
    const dir = this.home.dirFor(name, true);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const moved = { ...written, path: join(dir, basename(written.path)), actionsPath: join(dir, basename(written.actionsPath)) };
    renameSync(written.path, moved.path);
    renameSync(written.actionsPath, moved.actionsPath);
    return moved;
  }

  private limits() {
    return this.manager.registry.config().recordings;
  }

  /** Refuses a new recording while the profile's recordings (kept or not) take their bound. */
  private checkRoom(name: string): void {
    roomLeft(name, [this.home.dirFor(name, false), this.home.dirFor(name, true)], this.limits().maxMiB);
  }

  private path(profile: string, kept: boolean, extension: string): string {
    const dir = this.home.dirFor(profile, kept);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.${extension}`);
  }

  private write(profile: string, kept: boolean, extension: string, content: string): string {
    const path = this.path(profile, kept, extension);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  }
}
