import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { NetworkEntry, RecordingAnswer } from '../api/responses.js';
import type { schemas } from '../api/schemas.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { redact, toHar } from '../driver/network-log.js';
import { BadRequestError, ForbiddenError } from '../errors.js';

/**
 * A record of what happened (issue 22), for HTTP and MCP alike: a tab's
 * network log (off until asked for), exported as HAR 1.2, and a Playwright
 * trace of a profile's browser context (screenshots and DOM snapshots, with
 * the action log's entries beside it). Files are written under
 * `$CLAWD_HOME/recordings/<profile>/` with 0600; a task session's go with
 * it unless exported with `keep` (then under `recordings/kept/`).
 * Credential headers are shown only to the token's holder.
 */

export interface RecordingPaths {
  /** Where a profile's recordings go; `kept` ones outlive a task session. */
  dirFor(profile: string, kept: boolean): string;
}

/** Why a caller may not see credential headers, or undefined when it may. */
export type SecretsRefusal = string | undefined;

export class RecordingService {
  /** Profiles being traced, and when the trace started. */
  private readonly tracing = new Map<string, string>();

  constructor(
    private readonly manager: ProfileManager,
    private readonly paths: RecordingPaths,
    private readonly version: string,
  ) {}

  async networkRecord(profile: string | undefined, request: z.output<typeof schemas.networkRecord>): Promise<RecordingAnswer> {
    const tab = await this.manager.driver(profile).tabFor(request.targetId);
    tab.network.record(request.on);
    return { targetId: await tab.targetId(), network: { recording: tab.network.recording, since: tab.network.since } };
  }

  async network(profile: string | undefined, query: Omit<z.output<typeof schemas.networkQuery>, 'profile'>, secretsRefusal: SecretsRefusal): Promise<RecordingAnswer> {
    const secrets = query.secrets === 'true';
    if (secrets && secretsRefusal) throw new ForbiddenError(secretsRefusal);
    const tab = await this.manager.driver(profile).tabFor(query.targetId);
    const entries = tab.network.list(query);
    return { targetId: await tab.targetId(), network: { recording: tab.network.recording, since: tab.network.since, entries: secrets ? entries : entries.map(redact) } };
  }

  async networkBody(profile: string | undefined, query: Omit<z.output<typeof schemas.networkBody>, 'profile'>) {
    const tab = await this.manager.driver(profile).tabFor(query.targetId);
    return { targetId: await tab.targetId(), ...(await tab.network.body(query.id)) };
  }

  /** Writes the HAR of one tab (or, with `all`, of every tab of the profile that recorded) and says where. */
  async har(profile: string | undefined, request: z.output<typeof schemas.har>, secretsRefusal: SecretsRefusal): Promise<RecordingAnswer & { entries: number }> {
    if (request.secrets && secretsRefusal) throw new ForbiddenError(secretsRefusal);
    const driver = this.manager.driver(profile);
    const tabs = request.all ? await driver.allTabs() : [await driver.tabFor(request.targetId)];
    const entries: NetworkEntry[] = tabs.flatMap((tab) => tab.network.list()).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    if (!tabs.some((tab) => tab.network.since))
      throw new BadRequestError('Nothing was recorded: start the network log first (POST /network/record {on: true})');
    const har = toHar(request.secrets ? entries : entries.map(redact), this.version);
    const path = this.write(driver.profile.name, request.keep === true, 'har', JSON.stringify(har, null, 1));
    return { ...(request.all ? {} : { targetId: await tabs[0].targetId() }), path, entries: entries.length };
  }

  async traceStart(profile: string | undefined): Promise<RecordingAnswer> {
    const driver = this.manager.driver(profile);
    const name = driver.profile.name;
    if (this.tracing.has(name)) throw new BadRequestError(`Profile ${name} is being traced since ${this.tracing.get(name)}: stop that trace first`);
    await (await driver.context()).tracing.start({ screenshots: true, snapshots: true, title: name });
    this.tracing.set(name, new Date().toISOString());
    return { tracing: true };
  }

  /** Stops the trace and writes it (a zip for `npx playwright show-trace`), with the profile's action log entries since it started beside it. */
  async traceStop(profile: string | undefined, request: z.output<typeof schemas.traceStop>, actions: (profile: string, since: string) => unknown[]): Promise<RecordingAnswer & { actionsPath: string }> {
    const driver = this.manager.driver(profile);
    const name = driver.profile.name;
    const since = this.tracing.get(name);
    if (!since) throw new BadRequestError(`Profile ${name} is not being traced: POST /trace/start first`);
    this.tracing.delete(name);
    const path = this.path(name, request.keep === true, 'zip');
    await (await driver.context()).tracing.stop({ path });
    chmodSync(path, 0o600);
    const actionsPath = path.replace(/\.zip$/, '.actions.json');
    writeFileSync(actionsPath, JSON.stringify(actions(name, since), null, 1), { mode: 0o600 });
    return { path, actionsPath, tracing: false };
  }

  private path(profile: string, kept: boolean, extension: string): string {
    const dir = this.paths.dirFor(profile, kept);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}.${extension}`);
  }

  private write(profile: string, kept: boolean, extension: string, content: string): string {
    const path = this.path(profile, kept, extension);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  }
}
