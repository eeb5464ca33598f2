import type { z } from 'zod';
import { withFence, withSharedFence } from '../api/page-content.js';
import type { ActionResult, DialogArmed, FileChooserAnswer, PlaywrightScript, ProfileSummary, Status } from '../api/responses.js';
import type { TextOptions } from '../api/schemas.js';
import type { schemas } from '../api/schemas.js';
import { abortable } from '../runtime/operation.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { NotFoundError } from '../errors.js';
import type { ActionLog } from '../runtime/action-log.js';
import type { PerformOptions } from './act-performer.js';
import type { ConfirmService } from './confirm-service.js';
import type { NotesService } from './notes-service.js';
import type { Operations } from './operation-runner.js';

/**
 * What the control API does on a profile's browser, once, for every
 * surface: status and lifecycle, tabs, pages, snapshots, acts, profiles.
 * HTTP routes (server/control-server.ts) are thin adapters over it, and
 * `/mcp` calls it in process (in-process-api.ts). It takes plain, validated
 * arguments and the caller's AbortSignal; every call that acts on a browser
 * goes through an operation (operation-runner.ts: cancelled with its
 * caller, bounded, logged). The services beside it (toolbox, vision, page
 * tools, hand-offs, confirmations, teaching) are built with it by one
 * assembly (control-assembly.ts), each given the narrow ports it needs.
 */

/** What the control service needs of the profiles: their drivers, their list, the default, a reset. */
export type ControlDrivers = Pick<ProfileManager, 'driver' | 'peek' | 'registry' | 'cdpUrlOf' | 'defaultProfile' | 'resetProfile'>;

export interface ControlPorts {
  drivers: ControlDrivers;
  operations: Operations;
  actionLog: Pick<ActionLog, 'recent'>;
  /** Acts go through the confirm rules (confirm-service.ts), which perform them. */
  confirmations: Pick<ConfirmService, 'act'>;
  /** The person's notes that come with a tab's outline (notes-service.ts). */
  notes: Pick<NotesService, 'forSnapshot'>;
}

export class ControlService {
  private readonly manager: ControlDrivers;
  private readonly operations: Operations;
  private readonly actionLog: Pick<ActionLog, 'recent'>;
  private readonly confirmations: Pick<ConfirmService, 'act'>;
  private readonly notes: Pick<NotesService, 'forSnapshot'>;

  constructor(ports: ControlPorts) {
    this.manager = ports.drivers;
    this.operations = ports.operations;
    this.actionLog = ports.actionLog;
    this.confirmations = ports.confirmations;
    this.notes = ports.notes;
  }

  /** `GET /script`: the profile's recorded steps (one tab's with targetId) as a Playwright test. */
  script(profile: string | undefined, query: { targetId?: string; title?: string }): PlaywrightScript {
    const driver = this.manager.driver(profile);
    const name = driver.profile.name;
    const written = driver.script.script(
      query.targetId,
      query.title ?? `recorded on ${name}`,
      `Recorded by clawd-browser on profile ${name}, ${new Date().toISOString()}.`,
    );
    if (query.targetId && !written.steps)
      throw new NotFoundError(`No recorded steps for tab ${JSON.stringify(query.targetId)} in profile ${name}`, { next: 'list-tabs' });
    return { language: 'typescript', runner: '@playwright/test', ...written };
  }

  // ---- status and lifecycle ------------------------------------------------

  async status(profile?: string): Promise<Status> {
    const driver = this.manager.peek(profile);
    const config = this.manager.registry.config();
    const { profile: described } = driver;
    return {
      profile: described.name,
      driver: described.driver,
      enabled: config.enabled,
      color: described.color,
      cdpUrl: this.manager.cdpUrlOf(driver),
      ...(config.enabled ? await driver.status() : { running: false }),
    };
  }

  start(profile: string | undefined, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'start' }, signal, async (driver, bounded) => {
      await abortable(driver.start(), bounded);
      return { profile: driver.profile.name, ...(await driver.status()) };
    });
  }

  async stop(profile?: string) {
    const driver = this.manager.driver(profile);
    await driver.stop();
    return { profile: driver.profile.name, ...(await driver.status()) };
  }

  // ---- tabs and inspection -------------------------------------------------

  // Titles and URLs are the page's words: each answer carries its fence (api/page-content.ts).
  async tabs(profile?: string) {
    return (await this.tabList(profile)).tabs;
  }
  async tabList(profile?: string) {
    const { tabs, hint } = await this.manager.driver(profile).tabList();
    return { tabs: withSharedFence(tabs), ...(hint ? { hint } : {}) };
  }
  openTab(profile: string | undefined, url: string, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'open' }, signal, async (driver, bounded) => withFence(await driver.openTab(url, bounded)));
  }
  focusTab(profile: string | undefined, targetId: string, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'focus', targetId }, signal, async (driver) => withFence(await driver.focusTab(targetId)));
  }
  closeTab(profile: string | undefined, targetId: string, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'close', targetId }, signal, async (driver) => withFence(await driver.closeTab(targetId)));
  }
  navigate(profile: string | undefined, url: string, targetId: string | undefined, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'navigate', targetId }, signal, async (driver, bounded) =>
      withFence(await driver.navigate(url, targetId, bounded)),
    );
  }
  screenshot(profile: string | undefined, options: z.output<typeof schemas.screenshot>, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'screenshot', targetId: options.targetId, ref: options.ref }, signal, (driver) =>
      driver.screenshot(options),
    );
  }
  pdf(profile: string | undefined, targetId: string | undefined, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'pdf', targetId }, signal, (driver) => driver.pdf(targetId));
  }
  async console(profile: string | undefined, options: { targetId?: string; level?: string }) {
    return withFence(await this.manager.driver(profile).console(options));
  }
  async downloads(profile?: string) {
    return withFence(await this.manager.driver(profile).downloads());
  }

  // ---- snapshots, actions, hooks -------------------------------------------

  snapshot(profile: string | undefined, options: Omit<z.output<typeof schemas.snapshotQuery>, 'profile'>, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'snapshot', targetId: options.targetId }, signal, async (driver) => {
      const snapshot = withFence(await driver.snapshot(options));
      // The person's notes on the tab come with it, apart from the page's words, with their elements' refs (notes-service.ts).
      const notes = snapshot.format === 'ai' ? await this.notes.forSnapshot(driver, snapshot.targetId) : undefined;
      return notes ? { ...snapshot, notes } : snapshot;
    });
  }
  text(profile: string | undefined, options: TextOptions, signal?: AbortSignal) {
    return this.operations.operation(profile, { kind: 'text', targetId: options.targetId, ref: options.ref }, signal, async (driver) =>
      withFence(await driver.text(options)),
    );
  }
  /**
   * One action, unless a confirm rule names it (confirm-service.ts): then it waits for a person's yes
   * (`wait`: here, until they answer; else the answer says so, with the hand-off's handle), or is refused.
   */
  act(
    profile: string | undefined,
    action: z.output<typeof schemas.act>,
    signal?: AbortSignal,
    options: PerformOptions & { wait?: boolean } = {},
  ): Promise<ActionResult> {
    return this.confirmations.act(profile, action, signal, options);
  }

  fileChooser(profile: string | undefined, hook: z.output<typeof schemas.fileChooser>, signal?: AbortSignal): Promise<FileChooserAnswer> {
    const request = { kind: 'file-chooser', targetId: hook.targetId, ref: hook.ref ?? hook.inputRef };
    return this.operations.operation(profile, request, signal, (driver, bounded) => driver.fileChooser(hook, bounded));
  }
  armDialog(profile: string | undefined, hook: z.output<typeof schemas.dialog>, signal?: AbortSignal): Promise<DialogArmed> {
    return this.operations.operation(profile, { kind: 'dialog', targetId: hook.targetId }, signal, (driver) => driver.armDialog(hook));
  }
  /** The action log's recent records, newest last (never what was typed: runtime/action-log.ts). */
  actions(query: { profile?: string; limit: number }) {
    return { actions: this.actionLog.recent(query) };
  }

  // ---- profiles ------------------------------------------------------------

  async profiles(): Promise<{ profiles: ProfileSummary[]; defaultProfile: string }> {
    const profiles = await Promise.all(
      this.manager.registry.list().map(async (profile) => {
        const driver = this.manager.peek(profile.name);
        return { ...profile, cdpUrl: this.manager.cdpUrlOf(driver), running: (await driver.status()).running ?? false };
      }),
    );
    return { profiles, defaultProfile: this.manager.defaultProfile };
  }
  async resetProfile(profile?: string) {
    const name = profile ?? this.manager.defaultProfile;
    return { profile: name, ...(await this.manager.resetProfile(name)) };
  }
}
