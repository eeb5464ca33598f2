import { z } from 'zod';
import type { HandoffAnswer } from '../api/session-responses.js';
import { fenced } from '../api/page-content.js';
import { defineTool, Profile, TargetId, text, withProfile } from './tools.js';

/** The hand-off's MCP App (handoff-app.ts): a `ui://` resource the tool points at. */
export const HANDOFF_APP_URI = 'ui://clawd-browser/handoff.html';

/**
 * `browser_handoff` (the `handoff` group): the agent hands a tab to a person
 * and waits for their answer. While it waits it sends MCP progress
 * notifications (the person's link first, then how long is left); cancelling
 * the call cancels the hand-off.
 */

/** How often a waiting call says it still waits. */
const PROGRESS_EVERY_MS = 15_000;

export function describeHandoff(handoff: HandoffAnswer): string {
  const how = {
    waiting: 'still waits for a person',
    done: 'done by the person',
    refused: 'the person could not do it',
    timeout: 'nobody answered in time',
    cancelled: 'cancelled',
  }[handoff.state];
  const lines = [`Hand-off ${handoff.id}: ${how}${handoff.note ? `: ${JSON.stringify(handoff.note)}` : ''}.`];
  if (handoff.now) lines.push(`The tab is at:\n${fenced(handoff.fence, [`${handoff.now.url} ${JSON.stringify(handoff.now.title)}`])}`);
  if (handoff.changed) {
    const { navigated, titleChanged, personActions } = handoff.changed;
    lines.push(
      `${navigated ? 'It navigated' : 'Same page'}${titleChanged ? ', title changed' : ''}; the person acted ${personActions} times. Take a snapshot before going on.`,
    );
  }
  return lines.join('\n');
}

export const HANDOFF_TOOL = defineTool({
  name: 'browser_handoff',
  description: 'Hand the tab to a person (login, 2FA, CAPTCHA, a confirmation) and wait for their answer. Say what they should do in reason.',
  group: 'handoff',
  input: z.object({ profile: Profile, targetId: TargetId, reason: z.string(), timeoutSec: z.number().int().optional().describe('default 600') }),
  readOnly: false,
  // A client that renders MCP Apps shows the hand-off's own view in the conversation (handoff-app.ts).
  meta: { ui: { resourceUri: HANDOFF_APP_URI }, 'ui/resourceUri': HANDOFF_APP_URI },
  run: async (api, { profile, targetId, reason, timeoutSec }, session, call) => {
    let deadline = 0;
    const ticker = setInterval(() => {
      void call.progress(`Still waiting for a person (${Math.max(0, Math.round((deadline - Date.now()) / 1000))} s left).`);
    }, PROGRESS_EVERY_MS);
    try {
      const handoff = await withProfile(api, { profile }).handoff(
        { targetId, reason, timeoutSec },
        {
          signal: call.signal,
          onWaiting: (opened) => {
            deadline = Date.parse(opened.expiresAt);
            session.handoffs.set(opened.id, { profile, announced: !opened.link });
            // With a webhook, the link went to the person's channel only: the agent is never given one.
            void call.progress(
              opened.link
                ? `Waiting for a person: ${opened.link} (also in the operator's console).`
                : "Waiting for a person: the hand-off was sent to the person's channel (and is in the operator's console).",
            );
          },
        },
      );
      return text(describeHandoff(handoff));
    } finally {
      clearInterval(ticker);
    }
  },
});
