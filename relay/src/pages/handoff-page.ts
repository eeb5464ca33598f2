import type { HandoffAnswer } from '../api/session-responses.js';
import { bindLiveViewInput } from './live-view-input.js';

/**
 * The page a person opens from a hand-off's link: what the agent asks, the
 * tab's live view (click, scroll and type into it to take over), and the
 * two answers, **Done — continue** and **Can't do it** (with a note). A
 * confirmation (an act a confirm rule names) shows the act and its target
 * outlined on the live view, and asks **Yes, do it** or **No**. Plain HTML
 * and one small script, sent as its source; the person needs nothing but a
 * browser. Its calls are relative to where it is served: the hand-off's own
 * path (`/handoff/<id>/`, where its cookie is sent), or under the operator's
 * console (`/console/<path>/handoff/<id>/`).
 */

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function handoffPage(handoff: HandoffAnswer): string {
  const confirm = handoff.confirm;
  const percent = (fraction: number) => `${(Math.max(0, Math.min(1, fraction)) * 100).toFixed(2)}%`;
  const outline = confirm?.box
    ? `<div id="target" title="what the agent would act on" style="left:${percent(confirm.box.x)};top:${percent(confirm.box.y)};width:${percent(confirm.box.width)};height:${percent(confirm.box.height)}"></div>`
    : '';
  const [yes, no] = confirm ? ['Yes, do it', 'No'] : ['Done — continue', "Can't do it"];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>clawd-browser: a hand-off</title>
<style>
  body { font: 15px system-ui, sans-serif; margin: 0; padding: 12px; color: #1d1d1f; }
  h1 { font-size: 18px; margin: 0 0 6px; }
  .reason { font-size: 17px; margin: 0 0 8px; padding: 8px 10px; background: #fff4d6; border-radius: 6px; }
  .muted { color: #6e6e73; font-size: 13px; }
  img { display: block; max-width: 100%; border: 1px solid #d2d2d7; border-radius: 6px; cursor: crosshair; }
  .view { position: relative; display: inline-block; max-width: 100%; margin: 8px 0; }
  #target { position: absolute; outline: 3px solid #d70015; outline-offset: 2px; border-radius: 4px; pointer-events: none; box-shadow: 0 0 0 9999px rgba(0,0,0,.25); }
  form { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
  button { font: inherit; padding: 6px 12px; }
  textarea { font: inherit; width: min(100%, 40em); }
  #outcome { font-weight: 600; min-height: 1.2em; }
</style>
</head>
<body>
<h1>${confirm ? 'The agent asks for your yes' : 'The agent asks for your help'}</h1>
<p class="reason" id="reason">${escape(handoff.reason)}</p>
${confirm ? `<p id="act">The agent would <strong>${escape(confirm.act)}</strong>${confirm.box ? ' (outlined below)' : ''}. Nothing is done unless you say yes. <span class="muted">Rule: ${escape(confirm.rule)}.</span></p>` : ''}
<p class="muted">Tab ${escape(handoff.targetId)} of ${escape(handoff.profile)}. ${confirm ? 'The picture shows the page, live' : 'Click, scroll and type in the picture to use the page'}; the agent waits until ${escape(new Date(handoff.expiresAt).toUTCString())}.</p>
<div class="view"><img id="view" alt="the tab, live" src="screencast">${outline}</div>
<form id="answer">
  <button type="submit" name="verdict" value="done" id="done">${yes}</button>
  <label>Note <textarea id="note" rows="2" placeholder="why not, or anything the agent should know"></textarea></label>
  <button type="submit" name="verdict" value="refused" id="refuse">${no}</button>
</form>
<p id="outcome" role="status"></p>
<script>
// Transpilers may wrap functions in __name(...) (esbuild keepNames): give it a meaning here.
const __name = (fn) => fn;
(${handoffMain.toString()})(${JSON.stringify({ id: handoff.id, confirm: !!confirm })}, ${bindLiveViewInput.toString()});
</script>
</body>
</html>`;
}

/** Runs in the person's page. Self-contained: it is sent as source text, and given the live view's input binding (live-view-input.ts). */
function handoffMain(handoff: { id: string; confirm: boolean }, bindInput: typeof bindLiveViewInput): void {
  const view = document.getElementById('view') as HTMLImageElement;
  const outcome = document.getElementById('outcome')!;
  let open = true;
  // One input at a time, in the order given: keys typed fast must reach the tab in that order.
  let sending: Promise<unknown> = Promise.resolve();
  const input = (body: Record<string, unknown>) => {
    if (!open) return;
    // Everything the page calls is under the hand-off's own path: the only one its cookie is sent to.
    sending = sending.then(() =>
      fetch('input', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch(() => {}),
    );
  };
  // Keys go to the tab while the pointer is over the picture, and never while the note is being written.
  let over = false;
  view.addEventListener('mouseenter', () => (over = true));
  view.addEventListener('mouseleave', () => (over = false));
  // A confirmation is answered with its buttons: the act runs on the yes, so the view only shows the page.
  if (!handoff.confirm) bindInput(view, input, () => over && document.activeElement?.id !== 'note');
  document.getElementById('answer')!.addEventListener('submit', (event) => {
    event.preventDefault();
    const verdict = ((event as SubmitEvent).submitter as HTMLButtonElement).value;
    const note = (document.getElementById('note') as HTMLTextAreaElement).value.trim();
    void fetch('answer', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ verdict, ...(note ? { note } : {}) }),
    }).then(async (response) => {
      const body = (await response.json()) as { state?: string; error?: { message: string } };
      if (!response.ok) {
        outcome.textContent = body.error?.message ?? `HTTP ${response.status}`;
        return;
      }
      open = false;
      view.removeAttribute('src');
      for (const button of document.querySelectorAll('button')) button.disabled = true;
      if (handoff.confirm)
        outcome.textContent = verdict === 'done' ? 'Thank you: it is being done now.' : 'Thank you: it is not done, and the agent is told so.';
      else outcome.textContent = verdict === 'done' ? 'Thank you: the agent goes on from here.' : 'Thank you: the agent is told you could not.';
    });
  });
}
