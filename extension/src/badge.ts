import { ACCENT_COLOR } from '../../protocol/constants';

/**
 * Per-tab toolbar badge (spec §7): ON / … / ! (tooltip says why) / YOU (an agent handed you the tab) /
 * REC (what you do is recorded as a demonstration) / NOTE (your clicks mark elements for a note) / empty.
 */
export type BadgeState =
  | { kind: 'off' }
  | { kind: 'on' }
  | { kind: 'connecting'; why: string }
  | { kind: 'error'; why: string }
  | { kind: 'handoff'; why: string }
  | { kind: 'recording' }
  | { kind: 'marking' };

const DEFAULT_TITLE = 'clawd-browser: click to share this tab';

interface BadgeLook {
  text: string;
  color: string;
  title: string;
}

function lookOf(state: BadgeState): BadgeLook {
  const text = { off: '', on: 'ON', connecting: '…', error: '!', handoff: 'YOU', recording: 'REC', marking: 'NOTE' }[state.kind];
  const color =
    state.kind === 'error' || state.kind === 'recording'
      ? '#B00020'
      : state.kind === 'connecting'
        ? '#777777'
        : state.kind === 'handoff' || state.kind === 'marking'
          ? '#E8710A'
          : ACCENT_COLOR;
  const title =
    state.kind === 'on'
      ? 'clawd-browser: this tab is shared with your agent (click to stop)'
      : state.kind === 'off'
        ? DEFAULT_TITLE
        : state.kind === 'recording'
          ? 'clawd-browser: recording what you do in this tab, to teach your agent (stop it on the Teach page: right-click this button)'
          : state.kind === 'marking'
            ? 'clawd-browser: your clicks in this tab mark elements for a note to your agent (write it on the Teach page)'
            : `clawd-browser: ${state.why}`;
  return { text, color, title };
}

// One badge write per tab at a time, in the order they were asked for: two
// writes interleaved would leave one's text beside the other's tooltip.
const writes = new Map<number, Promise<void>>();

export function showBadge(tabId: number, state: BadgeState): Promise<void> {
  const look = lookOf(state);
  const previous = writes.get(tabId) ?? Promise.resolve();
  const write = previous.then(() => apply(tabId, look));
  writes.set(tabId, write);
  void write.then(() => {
    if (writes.get(tabId) === write) writes.delete(tabId);
  });
  return write;
}

/**
 * Chrome clears a tab's badge and tooltip when the tab commits a navigation.
 * A clear that lands between our calls leaves half a badge (the error's "!"
 * beside the default tooltip), so what was written is read back and written
 * again when it did not hold.
 */
async function apply(tabId: number, look: BadgeLook): Promise<void> {
  // The tab may close between the decision and the call; nothing to show then.
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      // The tooltip first: whoever sees the new badge (a person, a test) then finds the why beside it.
      await chrome.action.setTitle({ tabId, title: look.title });
      await Promise.all([chrome.action.setBadgeText({ tabId, text: look.text }), chrome.action.setBadgeBackgroundColor({ tabId, color: look.color })]);
      const [title, text] = await Promise.all([chrome.action.getTitle({ tabId }), chrome.action.getBadgeText({ tabId })]);
      if (title === look.title && text === look.text) return;
    }
  } catch {
    // tab gone
  }
}
