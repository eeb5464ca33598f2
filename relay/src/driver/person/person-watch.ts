import { randomBytes } from 'node:crypto';
import type { CDPSession } from 'playwright-core';
import type { Protocol } from 'devtools-protocol';
import type { PersonStep } from '../../replay/person-steps.js';
import type { PersonWatchMode } from '../../page-runtime/person-watch.js';
import { personWatchSource } from '../../page-runtime/runtime-source.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * What a person does in one tab, heard while a demonstration or a note is
 * being made (spec §23), on every kind of profile alike: a shared tab of the
 * person's own Chrome (their own mouse and keyboard), or any tab through the
 * live view (their input, sent by the console).
 *
 * Why this way: a script of clawd's own, in an isolated world of its own in
 * every document of the tab (Page.addScriptToEvaluateOnNewDocument with a
 * worldName), reports DOM events through a CDP binding that exists in that
 * world only (Runtime.addBinding with executionContextName). The page's
 * scripts can neither see it nor call it, and it counts only trusted events.
 * It hears what the person did to which element (CDP input events would give
 * points and keys, not elements), describes that element at that moment
 * (page-runtime/person-watch.ts, the page runtime's part for this world),
 * before a click can take the page away, and never
 * reads a password's value. Navigations the browser started (the address
 * bar, back, reload) are heard from CDP: a page's own navigation (a link, a
 * form) follows from the click that caused it, and is not a step.
 */

export class PersonWatch {
  private session: CDPSession | undefined;
  private script: string | undefined;
  private readonly binding = `__clawdPerson_${randomBytes(6).toString('hex')}`;
  private readonly world = `clawd-person-${randomBytes(6).toString('hex')}`;
  private mainFrame: string | undefined;
  /** The main frame asked to navigate itself (a link, a form, a script): its next document is not a step. */
  private pageNavigating = false;

  /** Who hears the steps now (the demonstration, or the note being written). */
  private heard: (step: PersonStep) => void = () => {};

  constructor(private readonly tab: DriverTab) {}

  get mode(): PersonWatchMode {
    return this.current;
  }
  private current: PersonWatchMode = 'off';

  /** Starts hearing the person (or changes what a click means), in the document there is and every one after. */
  async watch(mode: Exclude<PersonWatchMode, 'off'>, heard: (step: PersonStep) => void): Promise<void> {
    this.heard = heard;
    const session = this.session ?? (await this.open());
    await this.install(session, mode);
  }

  /** Stops hearing: the world keeps no listener that acts, no later document gets one, the binding goes. */
  async stop(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.heard = () => {};
    this.current = 'off';
    if (!session) return;
    await this.install(session, 'off').catch(() => {});
    if (this.script) await session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: this.script }).catch(() => {});
    await session.send('Runtime.removeBinding', { name: this.binding }).catch(() => {});
    await session.detach().catch(() => {});
  }

  private async open(): Promise<CDPSession> {
    const session = await this.tab.page.context().newCDPSession(this.tab.page);
    session.on('Runtime.bindingCalled', (event: Protocol.Runtime.BindingCalledEvent) => {
      if (event.name !== this.binding) return;
      const step = parseStep(event.payload);
      if (step) this.heard(step);
    });
    session.on('Page.frameRequestedNavigation', (event: Protocol.Page.FrameRequestedNavigationEvent) => {
      if (event.frameId === this.mainFrame) this.pageNavigating = true;
    });
    session.on('Page.frameNavigated', (event: Protocol.Page.FrameNavigatedEvent) => {
      if (event.frame.parentId !== undefined) return;
      this.mainFrame = event.frame.id;
      const byPage = this.pageNavigating;
      this.pageNavigating = false;
      if (!byPage && this.current === 'demonstrate') this.heard({ kind: 'goto', url: event.frame.url });
    });
    await session.send('Runtime.enable');
    await session.send('Page.enable');
    const { frameTree } = await session.send('Page.getFrameTree');
    this.mainFrame = frameTree.frame.id;
    await session.send('Runtime.addBinding', { name: this.binding, executionContextName: this.world });
    this.session = session;
    return session;
  }

  /** The source for new documents, and run at once in the one there is: a world that has it already only takes the mode. */
  private async install(session: CDPSession, mode: PersonWatchMode): Promise<void> {
    const before = this.script;
    const { identifier } = await session.send('Page.addScriptToEvaluateOnNewDocument', { source: personWatchSource(this.binding, mode), worldName: this.world, runImmediately: true });
    this.script = identifier;
    this.current = mode;
    if (before) await session.send('Page.removeScriptToEvaluateOnNewDocument', { identifier: before }).catch(() => {});
  }
}

/** What the page script sent, as a step (a malformed one is dropped: only clawd's world can call the binding). */
function parseStep(payload: string): PersonStep | undefined {
  try {
    const step = JSON.parse(payload) as PersonStep;
    return step && typeof step === 'object' && typeof step.kind === 'string' ? step : undefined;
  } catch {
    return undefined;
  }
}
