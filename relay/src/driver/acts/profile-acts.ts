import type { z } from 'zod';
import type { ActionResult } from '../../api/responses.js';
import { MAX_WAIT_MS, type Action, type schemas } from '../../api/schemas.js';
import { ForbiddenError } from '../../errors.js';
import type { DriverTab } from '../driver-tab.js';
import type { ScriptRecorder } from '../script-recorder.js';
import { sendViewInput } from '../screen/view-input.js';
import type { BrowserSecrets } from '../secrets/browser-secrets.js';
import { type SecretOpener, secretNames, withSecrets } from '../secrets/secret-typing.js';
import type { VirtualAuthenticators } from '../secrets/virtual-authenticators.js';
import { heldBack, whilePainted } from '../tab-painting.js';
import type { TabHost } from '../tab-host.js';
import { type EgressWitness, failedNavigationEvent } from '../tab-navigation.js';
import type { SecretKind } from '../../api/session-responses.js';
import { watchEffect } from './act-effect.js';
import { withAftermath } from './aftermath.js';
import { armFileChooser, setInputFiles, uploadThroughChooser } from './file-chooser.js';
import { pathOf, pointOf } from './mouse-acts.js';
import { performAction, withoutSecrets } from './page-actions.js';
import { hitAt } from './pointer.js';
import { type InlineFile, inlineUploads, readUploads, type UploadPolicy } from './uploads.js';

/**
 * What a profile's tabs are made to do (profile-driver.ts hands its requests
 * here): an act, with the secrets it types, what it set off and what it
 * changed; the hooks for a file chooser and a dialog; a person's input from
 * the live view. Each finds its tab, holds the URL policy and marks the tab
 * used through the driver's TabHost, as vision and page tools do.
 */

/** How an action may type secrets: who opens them, and who hears each use (by name and host, never by value). */
export interface ActSecrets {
  open?: SecretOpener;
  onTyped?: (typed: Array<{ name: string; host: string; kind: SecretKind }>) => void;
}

/** What acts need of their profile beyond the TabHost: its secrets and passkeys, its script, where uploads may come from, why its egress failed. */
export interface ActParts {
  secrets: BrowserSecrets;
  passkeys: VirtualAuthenticators;
  script: ScriptRecorder;
  uploads: () => UploadPolicy;
  egress: EgressWitness;
}

export class ProfileActs {
  constructor(
    private readonly host: TabHost,
    private readonly parts: ActParts,
  ) {}

  /**
   * `POST /act`. `{{secret:NAME}}` in what it types is opened by `secrets`
   * (the caller's: a task session's grant) and checked against the field's
   * domain first (secret-typing.ts), and typed only in a browser no code of
   * the caller's ran in; from then on the browser holds it and runs none
   * (browser-secrets.ts).
   */
  async act(action: Action, signal?: AbortSignal, secrets: ActSecrets = {}): Promise<ActionResult> {
    const tab = await this.host.tab(action.targetId);
    // A demonstration in the tab hears every field a secret goes into as a secret's, before one is typed (person-watch.ts).
    const heardAsSecrets = await tab.person.typingSecrets(secretNames(action));
    try {
      return await this.actIn(tab, action, signal, secrets);
    } finally {
      await heardAsSecrets();
    }
  }

  private async actIn(tab: DriverTab, action: Action, signal: AbortSignal | undefined, secrets: ActSecrets): Promise<ActionResult> {
    await this.host.guard(tab);
    // Chrome may have dropped the tab's passkey authenticator since it opened (virtual-authenticators.ts), and an act is what sets a site's passkey prompt off.
    await this.parts.passkeys.settle(tab);
    if (action.kind === 'evaluate') {
      if (this.parts.secrets.holding) throw this.parts.secrets.heldError('scripts of the caller are refused in it');
      // From here on this browser takes no secret: what the script leaves behind could hear it typed (browser-secrets.ts).
      this.parts.secrets.callerCodeRan('evaluate');
    }
    let performed = action;
    if (secretNames(action).length) {
      if (!secrets.open)
        throw new ForbiddenError('Secrets are lent to task sessions under a grant that names them: {{secret:…}} and {{totp:…}} type nothing here');
      const unfit = this.parts.secrets.unfitError();
      if (unfit) throw unfit;
      const substituted = await withSecrets(tab, action, secrets.open);
      // Checked last, with nothing awaited before the browser holds the secret: code of the caller's cannot slip in between.
      const ran = this.parts.secrets.unfitError();
      if (ran) throw ran;
      performed = substituted.action;
      for (const typed of substituted.typed) this.parts.secrets.remember(typed.name, typed.value);
      secrets.onTyped?.(substituted.typed.map(({ name, host, kind }) => ({ name, host, kind })));
    }
    const targetId = await tab.targetId();
    const urlBefore = tab.page.url();
    const titleBefore = await tab.page.title().catch(() => undefined);
    // Chosen before it runs, while its refs mean what the agent saw (script-recorder.ts).
    const elements = await this.parts.script.elementsOf(tab, action);
    // An act by coordinates says what it hit, and watches that element as an act by ref does.
    const point = pointOf(tab, action);
    const hit = point ? await hitAt(tab, point) : undefined;
    const effect = await watchEffect(tab, action, hit?.ref);
    const since = Date.now();
    // Painted as the tab in front is, whichever is (tab-painting.ts).
    const {
      result,
      events: opened,
      failedNavigations,
    } = await whilePainted(tab.page, () =>
      withAftermath(
        tab,
        () => performAction(tab, performed, signal),
        (popup) => this.host.describePopup(popup),
        signal,
      ),
    ).catch(async (error: unknown) => {
      throw await heldBack(tab.page, withoutSecrets(error, performed));
    });
    // The action as the agent sent it: a secret stays its placeholder.
    this.parts.script.add({
      kind: 'act',
      tab: targetId,
      url: urlBefore,
      action,
      elements,
      ...(result.typedAs === 'keys' || result.retyped ? { typedAs: 'keys' as const } : {}),
      ...(pathOf(result) ?? {}),
    });
    const failed = failedNavigations.flatMap(({ url, error }) => failedNavigationEvent(this.parts.egress, url, error, since) ?? []);
    const events = [...tab.takeEvents(), ...opened, ...failed];
    const happened = { ...(events.length ? { events } : {}), ...(hit ? { hit } : {}) };
    if (tab.page.isClosed()) return tab.secrets.redactDeep({ targetId, kind: action.kind, changed: true, ...result, ...happened });
    const info = await this.host.use(tab);
    const navigated = info.url !== urlBefore;
    const changes = await effect.finish({ navigated, events });
    const retitled = !navigated && titleBefore !== undefined && info.title !== titleBefore ? { retitled: true as const } : {};
    return tab.secrets.redactDeep({
      targetId,
      kind: action.kind,
      url: info.url,
      title: info.title,
      ...(navigated ? { navigated } : {}),
      ...retitled,
      ...changes,
      ...result,
      ...happened,
    });
  }

  /**
   * `POST /hooks/file-chooser`: set files on an input directly (inputRef /
   * element), or arm for the next file chooser, clicking `ref` to open it.
   */
  async fileChooser(
    options: { targetId?: string; paths?: string[]; files?: InlineFile[]; ref?: string; inputRef?: string; element?: string; timeoutMs?: number },
    signal?: AbortSignal,
  ) {
    const fromPaths = options.paths ? await readUploads(options.paths, this.parts.uploads()) : [];
    const files = [...fromPaths, ...inlineUploads(options.files ?? [], fromPaths)];
    const tab = await this.host.tab(options.targetId);
    const targetId = (await this.host.use(tab)).targetId;
    const uploaded = files.map((file) => file.name);
    if (options.inputRef || options.element) {
      await setInputFiles(tab, options, files);
      return { targetId, uploaded };
    }
    const timeout = options.timeoutMs ?? MAX_WAIT_MS;
    if (!options.ref) {
      armFileChooser(tab, files, timeout);
      return { targetId, armed: true, timeoutMs: timeout, files: uploaded };
    }
    await uploadThroughChooser(tab, options.ref, files, timeout, signal);
    return { targetId, uploaded };
  }

  /** `POST /screencast/input`: a person's click, scroll or keys from the live view, sent to the tab as input events. */
  async viewInput(
    input: z.output<typeof schemas.viewInput>,
    beforePress?: (tab: DriverTab, at: { x: number; y: number } | 'focused' | 'focused-space') => Promise<void>,
  ): Promise<{ targetId: string; kind: string; url: string }> {
    const tab = await this.host.tab(input.targetId);
    await sendViewInput(tab, input, beforePress && ((at) => beforePress(tab, at)));
    return { targetId: await tab.targetId(), kind: input.type, url: tab.page.url() };
  }

  /**
   * `POST /hooks/dialog`: the next alert/confirm/prompt on the tab is
   * accepted (with promptText) or dismissed. Unarmed dialogs are dismissed
   * (Playwright's default), so a page never hangs on one.
   */
  async armDialog(options: { targetId?: string; accept: boolean; promptText?: string; timeoutMs?: number }) {
    const tab = await this.host.tab(options.targetId);
    const targetId = (await this.host.use(tab)).targetId;
    const timeout = options.timeoutMs ?? MAX_WAIT_MS;
    tab.armDialog(options.accept, options.promptText, timeout);
    return { targetId, armed: true, accept: options.accept, timeoutMs: timeout };
  }
}
