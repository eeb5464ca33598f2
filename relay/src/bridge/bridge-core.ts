import type { Protocol } from 'devtools-protocol';
import { CLAWD_OWN_PAGE, clawdOwnPage, navigationProblem } from '../../../protocol/url-gate.js';
import { type UrlPolicy, urlPolicyProblemWithoutDns } from '../runtime/url-policy.js';
import type { RelayCommand } from '../../../protocol/wire.js';
import { CdpErrorCode } from './cdp-frames.js';
import { CdpFailure } from './cdp-failure.js';
import { type Client, type Session, SessionTable } from './client-sessions.js';
import { releaseDomains } from './domain-gate.js';
import { ExtensionLink, type ExtensionLinkOptions } from './extension-link.js';
import { OutboundQueue } from './outbound.js';
import { OwnOrigins } from './own-origins.js';
import type { Followup, PendingWork } from './pending-work.js';
import { type ChildTarget, type SharedTabRecord, TabRegistry } from './tab-registry.js';

/** After the last client leaves a tab, undo what clients may have switched on. */
const TAB_RESET_COMMANDS: Array<[string, object]> = [
  ['Target.setAutoAttach', { autoAttach: false, waitForDebuggerOnStart: false, flatten: true }],
  ['Page.setInterceptFileChooserDialog', { enabled: false }],
  ['Emulation.clearDeviceMetricsOverride', {}],
  ['Runtime.runIfWaitingForDebugger', {}],
];

/**
 * The state every part of the bridge shares (shared tabs, client sessions,
 * the extension link, the output) and the few operations they all need.
 */
export class BridgeCore {
  readonly tabs = new TabRegistry();
  readonly sessions = new SessionTable();
  readonly out = new OutboundQueue();
  readonly link: ExtensionLink<PendingWork>;
  /** This server's own origins, out of every shared tab's reach (own-origins.ts). */
  readonly ownOrigins: OwnOrigins;

  constructor(
    linkOptions: ExtensionLinkOptions,
    private readonly allowedUrlSchemes: string[],
    private readonly urlPolicy: () => UrlPolicy | undefined,
    private readonly ownPorts: () => readonly number[],
  ) {
    this.link = new ExtensionLink<PendingWork>(linkOptions, this.out, (work) => (work.kind === 'internal' ? undefined : work.session.client));
    this.ownOrigins = new OwnOrigins(this, ownPorts);
  }

  /** A chrome.debugger command on a tab's own session, or on a child's. */
  static cdp(tab: SharedTabRecord, method: string, params: object | undefined, chromeSessionId?: string): RelayCommand {
    const command: RelayCommand = { type: 'cdp', id: 0, tabId: tab.tabId, method, params };
    if (chromeSessionId) command.sessionId = chromeSessionId;
    return command;
  }

  /** The relay's own command to a tab; dropped when the link is down (the tab state resets on reconnect anyway). */
  sendInternal(tab: SharedTabRecord, method: string, params: object, chromeSessionId?: string, followup?: Followup): void {
    if (!this.link.isUp) return;
    this.link.send(BridgeCore.cdp(tab, method, params, chromeSessionId), { kind: 'internal', tabId: tab.tabId, followup });
  }

  /**
   * Ends a client session and those under it. With `undo`, domains only they
   * had enabled are disabled in Chrome, and a tab nobody watches any more is
   * reset. (Without: the target is gone, there is nothing to undo.)
   */
  closeSession(session: Session, { undo }: { undo: boolean }): void {
    const closed = this.sessions.close(session);
    if (!undo) return;
    const tabs = new Set<SharedTabRecord>();
    for (const target of closed) {
      if (!this.tabs.get(target.tab.tabId)) continue;
      tabs.add(target.tab);
      if (target.kind === 'tab') continue;
      // Its Fetch patterns go, the others' stay (own-origins.ts), and Chrome is told once.
      this.ownOrigins.released(target.tab, target.chromeSessionId, target.key);
      for (const domain of releaseDomains(target)) {
        if (domain === 'Fetch') continue;
        const followup: Followup | undefined = domain === 'Runtime' ? { kind: 'runtimeDisabled', chromeSessionId: target.chromeSessionId } : undefined;
        this.sendInternal(target.tab, `${domain}.disable`, {}, target.chromeSessionId || undefined, followup);
        // Network.disable forgets network conditions: this server's ports go offline again at once.
        if (domain === 'Network') this.ownOrigins.networkDisabled(target.tab, target.chromeSessionId);
      }
    }
    for (const tab of tabs) {
      if (this.sessions.isWatched(tab.tabId)) continue;
      for (const [method, params] of TAB_RESET_COMMANDS) this.sendInternal(tab, method, params);
    }
  }

  /** The URL gate (protocol/url-gate.ts), then the URL policy, for every navigation a client asks for. */
  checkUrl(url: string): void {
    const problem = navigationProblem(url, this.allowedUrlSchemes);
    if (problem) throw new CdpFailure(CdpErrorCode.invalidParams, `Navigation refused: ${problem}`, 'bad_request');
    if (clawdOwnPage(url, this.ownPorts())) throw new CdpFailure(CdpErrorCode.serverError, `Navigation refused: ${CLAWD_OWN_PAGE}`, 'forbidden');
    const refused = urlPolicyProblemWithoutDns(url, this.urlPolicy());
    if (refused) throw new CdpFailure(CdpErrorCode.serverError, `Navigation refused: ${refused}`, 'forbidden');
  }

  requireTab(targetId: string, client: Client): SharedTabRecord {
    const tab = this.tabs.byTargetId(targetId);
    // Another group's tab is as unknown to a grouped client as one that does not exist.
    if (!tab || !sees(client, tab)) throw new CdpFailure(CdpErrorCode.invalidParams, `No target with given id found: ${targetId}`, 'not_found');
    return tab;
  }

  /** The shared tabs this client sees: all, or its group's (`/cdp?group=`). */
  tabsFor(client: Client): SharedTabRecord[] {
    return this.tabs.all().filter((tab) => sees(client, tab));
  }

  /** Any shared tab the client sees, for browser-level commands that Chrome runs through a tab's session. */
  anyTab(client: Client): SharedTabRecord {
    const tab = this.tabsFor(client)[0];
    if (!tab) throw new CdpFailure(CdpErrorCode.serverError, this.link.words.noTab, 'unavailable');
    return tab;
  }

  /** A child target (an out-of-process frame, a worker) of a tab the client sees, by its target id. */
  childFor(targetId: string, client: Client): { tab: SharedTabRecord; child: ChildTarget } | undefined {
    for (const tab of this.tabsFor(client)) {
      for (const child of tab.children.values()) if (child.targetInfo.targetId === targetId) return { tab, child };
    }
    return undefined;
  }

  targetInfoFor(targetId: string, client: Client): Protocol.Target.TargetInfo {
    const tab = this.tabs.byTargetId(targetId);
    if (tab && sees(client, tab)) return targetId === tab.tabTargetId ? tab.tabTargetInfo() : tab.pageTargetInfo();
    for (const candidate of this.tabsFor(client)) {
      for (const child of candidate.children.values()) if (child.targetInfo.targetId === targetId) return child.targetInfo;
    }
    throw new CdpFailure(CdpErrorCode.invalidParams, `No target with given id found: ${targetId}`, 'not_found');
  }
}

/** Whether a client sees a tab: every client sees every tab, but a grouped one only its group's. */
export function sees(client: Client, tab: SharedTabRecord): boolean {
  return client.group === undefined || tab.info.group === client.group;
}
