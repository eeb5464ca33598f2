import { ACCENT_COLOR } from '../../protocol/constants';

/** Per-tab toolbar badge (spec §7): ON / … / ! (tooltip says why) / YOU (an agent handed you the tab) / empty. */
export type BadgeState = { kind: 'off' } | { kind: 'on' } | { kind: 'connecting'; why: string } | { kind: 'error'; why: string } | { kind: 'handoff'; why: string };

const DEFAULT_TITLE = 'clawd-browser: click to share this tab';

export async function showBadge(tabId: number, state: BadgeState): Promise<void> {
  const text = { off: '', on: 'ON', connecting: '…', error: '!', handoff: 'YOU' }[state.kind];
  const color = state.kind === 'error' ? '#B00020' : state.kind === 'connecting' ? '#777777' : state.kind === 'handoff' ? '#E8710A' : ACCENT_COLOR;
  const title =
    state.kind === 'on'
      ? 'clawd-browser: this tab is shared with your agent (click to stop)'
      : state.kind === 'off'
        ? DEFAULT_TITLE
        : `clawd-browser: ${state.why}`;
  // The tooltip first: whoever sees the new badge (a person, a test) then finds the why beside it.
  // The tab may close between the decision and the call; nothing to show then.
  try {
    await chrome.action.setTitle({ tabId, title });
    await Promise.all([chrome.action.setBadgeText({ tabId, text }), chrome.action.setBadgeBackgroundColor({ tabId, color })]);
  } catch {
    // tab gone
  }
}
