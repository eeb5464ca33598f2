import { WIRE_PROTOCOL_VERSION } from '../../protocol/constants';
import { encodeExtensionFrame, type RelayCommand, type RelayMessage, type SharedTab } from '../../protocol/wire';
import { shareableUrlProblem, tabUrlProblem } from '../../protocol/url-gate';
import { cdpError, workerStopping } from './logic/cdp-error';
import { commandProblem, landedOn } from './logic/ownership';
import { StartupHold } from './logic/startup-hold';
import { showBadge } from './badge';
import { HandoffNotices } from './handoff-notice';
import { watchDownloads } from './downloads';
import { loadPairing, normaliseExtensionKey, normaliseRelayUrl, onPairingChanged, savePairing } from './pairing';
import { RelayFinder } from './relay-finder';
import { RelayLink } from './relay-link';
import { SharedTabs } from './shared-tabs';
import { SHARE_MODE_KEY, TabGroupConsent } from './tab-groups';
import { watchGroupConsent } from './group-consent-events';
import { isBlankNavigation, navigateToBlank } from './blank-navigation';
import { watchPopupFirstPages } from './popup-first-page';
import { VaultConsent } from './vault-consent';
import { watchToolbarClicks } from './toolbar-click';
import { type TeachAnswer, Teaching } from './teaching';
import type { ConsentRequest, ExtensionStatus, OptionsRequest } from './status';

/**
 * The service worker: a thin transport between chrome.debugger and the relay.
 * All CDP emulation lives in the relay. Every listener is registered
 * synchronously at top level so Chrome can wake a stopped worker for it.
 */

/** Relay commands being run; while any are, answers are batched (see RelayLink). */
let commandsInFlight = 0;

interface DebuggerEvent {
  source: chrome.debugger.Debuggee;
  method: string;
  params: object | undefined;
  payload: string;
}

/** Debugger events that arrive while this worker starts, sent after its first hello (startup-hold.ts). */
const startupEvents = new StartupHold<DebuggerEvent>();

const link = new RelayLink(
  {
    onOpen: (proof) => {
      link.send(encodeExtensionFrame({ type: 'hello', protocol: WIRE_PROTOCOL_VERSION, browser: browserInfo(), tabs: shared.list(), proof }));
      // The relay knows the tabs now: what Chrome reported while this worker was stopped follows.
      for (const event of startupEvents.release()) forwardEvent(event);
      void shared.setLinkOpen(true);
    },
    onMessage: (message) => void handleRelayMessage(message),
    onClose: () => void shared.setLinkOpen(false),
  },
  () => commandsInFlight > 0,
);

/** Group mode's consent: a clawd tab group (tab-groups.ts). */
const groups = new TabGroupConsent();

const shared = new SharedTabs({
  groupOf: (tabId) => groups.nameOf(tabId),
  shared: (tab) => link.send(encodeExtensionFrame({ type: 'tabShared', tab })),
  updated: (tab) => link.send(encodeExtensionFrame({ type: 'tabUpdated', tab })),
  unshared: (tabId, reason) => link.send(encodeExtensionFrame({ type: 'tabUnshared', tabId, reason })),
});

function browserInfo() {
  const userAgent = navigator.userAgent;
  const version = /Chrome\/([\d.]+)/.exec(userAgent)?.[1] ?? '0.0.0.0';
  return { userAgent, product: `Chrome/${version}` };
}

// ---- pairing: by hand, or through the native host ---------------------------

const finder = new RelayFinder(link);

// ---- start-up: restore state, then connect ---------------------------------

const ready = (async () => {
  await groups.restore();
  await shared.restore();
  const pairing = await finder.currentPairing();
  // No tab shared from before: no client waits for what Chrome reported meanwhile.
  if (!shared.list().length) startupEvents.release();
  link.configure(pairing);
  // Tabs still shared from before (a worker restart): bring their relay back.
  if (pairing && shared.list().length) void finder.ensureRelay(pairing);
})();

onPairingChanged(() => void ready.then(async () => link.configure(await loadPairing())));
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && SHARE_MODE_KEY in changes) groups.setMode(changes[SHARE_MODE_KEY].newValue);
});

// An alarm wakes a stopped worker; waking is enough to reconnect.
chrome.alarms.create('keepalive', { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => void ready.then(() => link.connectSoon()));

// ---- the toolbar button ------------------------------------------------------

watchToolbarClicks((tabId) => {
  void (async () => {
    await ready;
    if (shared.has(tabId)) {
      await shared.unshare(tabId, 'the user stopped sharing the tab', { detach: true });
      if (groups.mode === 'group') await groups.release(tabId);
      return;
    }
    // An open link has proved its pairing's key just now: the native host (a process Chrome
    // starts, about half a second) is asked again only when the link is down.
    const pairing = link.state === 'open' ? await loadPairing() : await finder.currentPairing();
    if (!pairing) {
      await shared.refuse(tabId, 'not paired with the relay: run `clawd-browser install-native-host`, or pair by hand on the options page');
      await chrome.runtime.openOptionsPage();
      return;
    }
    if (link.state !== 'open') await showBadge(tabId, { kind: 'connecting', why: 'starting the clawd-browser relay…' });
    await finder.ensureRelay(pairing);
    link.connectSoon();
    const sharing = await shared.share(tabId).then(
      () => true,
      (error: Error) => shared.refuse(tabId, error.message).then(() => false),
    );
    if (sharing && groups.mode === 'group')
      await groups.adopt(tabId).catch((error: Error) => console.warn(`clawd-browser: could not group the tab: ${error.message}`));
    if (sharing) setTimeout(() => void sayIfUnreached(tabId), RELAY_WAIT_MS);
  })();
});

/** How long a click waits for the relay before its badge says why it is not reached. */
const RELAY_WAIT_MS = 8_000;

/**
 * A click is consent, and the person must see what came of it: a tab shared
 * while the relay cannot be reached shows '!' with the reason, not a '…'
 * that never ends. It stays shared, and turns ON once the link opens.
 */
async function sayIfUnreached(tabId: number): Promise<void> {
  if (link.state === 'open' || !shared.get(tabId)) return;
  const why = link.lastError ?? finder.error ?? `no answer from the relay at ${link.relayUrl ?? 'an unknown address'}`;
  await showBadge(tabId, {
    kind: 'error',
    why: `not connected to clawd-browser: ${why}. Start it with \`clawd-browser serve\`; the tab is shared as soon as it connects (click to stop)`,
  });
}

// ---- Chrome -> relay ---------------------------------------------------------

chrome.debugger.onEvent.addListener((source, method, params) => {
  const payload = JSON.stringify(params ?? {});
  const event = { source, method, params, payload };
  if (!startupEvents.hold(event, payload.length)) forwardEvent(event);
});

function forwardEvent({ source, method, params, payload }: DebuggerEvent): void {
  if (source.tabId === undefined || !shared.get(source.tabId)) return;
  const sessionId = (source as { sessionId?: string }).sessionId;
  // The tab's own page moved somewhere it must not be shared (history, a
  // page's own navigation): stop before this event or any command gets there.
  const landed = sessionId ? undefined : landedOn(method, params as Parameters<typeof landedOn>[1]);
  if (landed !== undefined) {
    // Where its page went decides (clawd's own pages too); a context's origin may be a frame's, held to the floor only.
    const problem = method === 'Page.frameNavigated' ? tabUrlProblem(landed) : shareableUrlProblem(landed);
    if (problem) return shared.suspend(source.tabId, problem);
  }
  link.send(encodeExtensionFrame({ type: 'event', tabId: source.tabId, sessionId, method }, payload));
}

chrome.debugger.onDetach.addListener((source, reason) => {
  const tabId = source.tabId;
  if (tabId === undefined || !shared.get(tabId)) return;
  void (async () => {
    if (reason === 'canceled_by_user') return shared.unshare(tabId, 'the user cancelled debugging in Chrome', { detach: false });
    const stillOpen = await chrome.tabs.get(tabId).then(
      () => true,
      () => false,
    );
    if (stillOpen) return shared.reattach(tabId);
    return shared.unshare(tabId, 'the tab was closed', { detach: false });
  })();
});

chrome.tabs.onRemoved.addListener((tabId) => {
  shared.forgetClosed(tabId);
  if (shared.get(tabId)) void shared.unshare(tabId, 'the tab was closed', { detach: false });
});

// Tabs a shared tab opens (window.open, target=_blank) are shared too, once
// their first page is there (popup-first-page.ts). Only a navigation the
// shared page itself started counts: chrome.tabs' openerTabId is also set on
// tabs the browser opens beside the active tab, and those the user never shared.
const popupFirstPages = watchPopupFirstPages();
chrome.webNavigation.onCreatedNavigationTarget.addListener(({ sourceTabId, tabId, url }) => {
  if (!shared.get(sourceTabId)) return;
  const firstPage = popupFirstPages.settled(tabId, url);
  void (async () => {
    await firstPage;
    if (!shared.get(sourceTabId)) return;
    const popup = await shared.share(tabId, sourceTabId);
    // In group mode, or when its opener is a named client group's, it joins its opener's group:
    // what is shared stays what the group holds.
    if (groups.mode === 'group' || popup.group !== undefined) await groups.adopt(tabId, (await chrome.tabs.get(sourceTabId)).groupId);
  })().catch((error: Error) => showBadge(tabId, { kind: 'error', why: error.message }));
});

watchGroupConsent(groups, shared, ready);

chrome.tabs.onUpdated.addListener((tabId, change) => {
  if (shared.isSuspended(tabId) && change.url !== undefined) return void shared.resume(tabId);
  const problem = change.url !== undefined && shared.get(tabId) ? tabUrlProblem(change.url) : undefined;
  if (problem) return shared.suspend(tabId, problem);
  if ((change.url !== undefined || change.title !== undefined) && shared.get(tabId)) void shared.updateInfo(tabId, { url: change.url, title: change.title });
  if (change.url !== undefined || change.status !== undefined) void shared.refreshBadge(tabId, change.url);
});

const handoffs = new HandoffNotices((tabId) => shared.refreshBadge(tabId));

// ---- teaching: demonstrations and notes on a shared tab (teaching.ts, the Teach page) -------

const teaching = new Teaching(
  (frame) => link.send(frame),
  () => link.state === 'open',
  (tabId, what) => shared.setTeaching(tabId, what),
);
const TEACH_MENU = 'clawd-teach';
chrome.runtime.onInstalled.addListener(() => {
  chrome.contextMenus.create({ id: TEACH_MENU, title: 'Teach your agent in this tab…', contexts: ['action'] }, () => void chrome.runtime.lastError);
});
chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === TEACH_MENU && tab?.id !== undefined) void openTeachPage(tab.id);
});

function openTeachPage(tabId: number): Promise<chrome.tabs.Tab> {
  return chrome.tabs.create({ url: `${chrome.runtime.getURL('teach.html')}?tab=${tabId}`, active: true });
}

watchDownloads(shared, (tabId, download) => link.send(encodeExtensionFrame({ type: 'download', tabId, download })));

// ---- relay -> Chrome ---------------------------------------------------------

async function handleRelayMessage(message: RelayMessage): Promise<void> {
  if (message.type === 'pong' || message.type === 'auth') return;
  if (message.type === 'protocolError') return console.warn(`clawd-browser relay: ${message.message}`);
  if (message.type === 'consentRequest') return vaultConsent.ask(message);
  if (message.type === 'handoff') return handoffs.show(message);
  if (message.type === 'handoffEnded') return handoffs.end(message);
  if (message.type === 'taught') return teaching.answered(message);
  if (typeof (message as { id?: unknown }).id !== 'number') return console.warn(`clawd-browser relay: command without an id (${String(message.type)})`);
  commandsInFlight++;
  let frame: string | undefined;
  try {
    const result = await runCommand(message);
    frame = encodeExtensionFrame({ type: 'result', id: message.id }, JSON.stringify(result ?? {}));
  } catch (error) {
    // Chrome is stopping this worker: no answer. The link goes with the worker, and the relay
    // takes the command as lost in flight (it sends a repeatable one again to the next worker).
    if (!workerStopping(error)) frame = encodeExtensionFrame({ type: 'error', id: message.id }, JSON.stringify(cdpError(error)));
  }
  commandsInFlight--;
  if (frame) link.send(frame);
}

/** Runs what the relay asks, once ownership.ts has checked it: the relay is trusted only so far. */
async function runCommand(command: RelayCommand): Promise<object | undefined> {
  const problem = commandProblem(command, (tabId) => shared.get(tabId));
  if (problem) throw new Error(problem);
  switch (command.type) {
    case 'cdp': {
      // A blank page the extension navigates to would be the extension's own (blank-navigation.ts).
      if (isBlankNavigation(command.method, command.params, command.sessionId)) return navigateToBlank(command.tabId, (command.params as { url: string }).url);
      const target = { tabId: command.tabId, sessionId: command.sessionId } as chrome.debugger.Debuggee;
      return (await chrome.debugger.sendCommand(target, command.method, command.params)) as object | undefined;
    }
    case 'createTab': {
      const tab = await chrome.tabs.create({ url: command.url, active: command.active === true });
      // A grouped client's tab: into its "clawd:<name>" group first, so that it is shared as that group's.
      if (command.group)
        await groups.adoptNamed(tab.id!, command.group).catch(async (error: Error) => {
          // Not in its group, it would be every client's: it is not left open.
          await chrome.tabs.remove(tab.id!).catch(() => {});
          throw new Error(`could not put the new tab in its clawd:${command.group} group: ${error.message}`);
        });
      const sharedTab = await shared.share(tab.id!);
      return { tabId: sharedTab.tabId, targetId: sharedTab.targetId };
    }
    case 'closeTab':
      await chrome.tabs.remove(command.tabId);
      return {};
    case 'activateTab': {
      const tab = await chrome.tabs.update(command.tabId, { active: true });
      if (tab?.windowId !== undefined) await chrome.windows.update(tab.windowId, { focused: true }).catch(() => {});
      return {};
    }
  }
}

// ---- consent: which cookies may go to the vault (the person decides, here) ----------

const vaultConsent = new VaultConsent((id, allowed, domains) => link.send(encodeExtensionFrame({ type: 'consentAnswer', id, allowed, domains })));

// ---- the options page ----------------------------------------------------------

chrome.runtime.onMessage.addListener(
  (
    request: OptionsRequest,
    _sender,
    reply: (status: ExtensionStatus | ConsentRequest | TeachAnswer | { tab: SharedTab } | { error: string } | { ok: true }) => void,
  ) => {
    void (async () => {
      await ready;
      if (request.type === 'consent') return reply((await vaultConsent.request(request.id)) ?? { error: 'This request was answered already, or has expired.' });
      if (request.type === 'teach')
        return reply(await teaching.ask(request.tabId, request.op, { name: request.name, description: request.description, text: request.text }));
      if (request.type === 'teachTab') {
        const tab = shared.get(request.tabId);
        return reply(tab ? { tab } : { error: 'This tab is not shared with clawd-browser: click the toolbar button on it first.' });
      }
      if (request.type === 'consentAnswer') {
        await vaultConsent.answered(request.id, request.allowed, request.domains);
        return reply({ ok: true });
      }
      if (request.type === 'pair') {
        try {
          await savePairing({ relayUrl: normaliseRelayUrl(request.relayUrl), key: normaliseExtensionKey(request.key), via: 'manual' });
        } catch (error) {
          return reply({ error: (error as Error).message });
        }
      }
      const pairing = await loadPairing();
      reply({
        link: link.state,
        lastError: link.lastError,
        relayUrl: pairing?.relayUrl,
        pairedVia: pairing?.via,
        nativeHost: finder.state,
        nativeHostError: finder.error,
        tabs: shared.list(),
      });
    })();
    return true; // reply asynchronously
  },
);
