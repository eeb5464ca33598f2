import { GROUP_NAME, type RelayCommand, type SharedTab } from '../../../protocol/wire.js';
import { navigationProblem, tabUrlProblem } from '../../../protocol/url-gate.js';

/**
 * What the extension lets the relay do, decided without chrome.*: the relay
 * is trusted only so far. Known command kinds only, tabs the user shared
 * only, new tabs only at URLs the gate allows, never on a page that must
 * not be shared.
 */

/** Why `command` must not run (undefined: it may). `shared` finds a shared tab by id. */
export function commandProblem(command: unknown, shared: (tabId: number) => SharedTab | undefined): string | undefined {
  const c = command as Partial<RelayCommand> & { type?: unknown; id?: unknown };
  if (!c || typeof c !== 'object' || typeof c.id !== 'number') return 'a command needs a numeric id';
  const tab = typeof (c as { tabId?: unknown }).tabId === 'number' ? shared((c as { tabId: number }).tabId) : undefined;
  switch (c.type) {
    case 'cdp': {
      if (!tab) return `tab ${String((c as { tabId?: unknown }).tabId)} is not shared`;
      if (typeof c.method !== 'string') return 'cdp command without a method';
      if (c.sessionId !== undefined && typeof c.sessionId !== 'string') return 'cdp command with a bad sessionId';
      const problem = tabUrlProblem(tab.url);
      return problem ? `tab ${tab.tabId}: ${problem}` : undefined;
    }
    case 'createTab': {
      const group = (c as { group?: unknown }).group;
      if (group !== undefined && (typeof group !== 'string' || !GROUP_NAME.test(group))) return 'createTab with a bad group name';
      const url = typeof c.url === 'string' ? c.url : '';
      const problem = navigationProblem(url) ?? tabUrlProblem(url);
      return problem ? `the extension will not open ${JSON.stringify(url)}: ${problem}` : undefined;
    }
    case 'closeTab':
    case 'activateTab':
      return tab ? undefined : `tab ${String((c as { tabId?: unknown }).tabId)} is not shared`;
    default:
      return `unknown command type ${JSON.stringify(c.type)}`;
  }
}

/** The URL a shared tab's own page now shows, from its main-session events (navigations, new contexts). */
export function landedOn(
  method: string,
  params: { frame?: { parentId?: string; url?: string }; context?: { origin?: string } } | undefined,
): string | undefined {
  if (method === 'Page.frameNavigated' && !params?.frame?.parentId) return params?.frame?.url;
  if (method === 'Runtime.executionContextCreated') return params?.context?.origin || undefined;
  return undefined;
}

/** Which shared tab a download belongs to, by its referrer (often trimmed to the origin). */
export function downloadOwner(tabs: SharedTab[], referrer: string | undefined): number | undefined {
  if (!referrer) return undefined;
  const exact = tabs.find((tab) => tab.url === referrer);
  if (exact) return exact.tabId;
  const origin = URL.canParse(referrer) ? new URL(referrer).origin : undefined;
  return tabs.find((tab) => URL.canParse(tab.url) && new URL(tab.url).origin === origin)?.tabId;
}
