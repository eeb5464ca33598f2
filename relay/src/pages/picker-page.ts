import { randomBytes } from 'node:crypto';
import type { ChromeStatus, PersonTab } from '../api/chrome-schemas.js';

/**
 * The tab picker: the page clawd-browser opens in the person's own Chrome,
 * where they lend tabs to agents and take them back. It lists the browser's
 * tabs with their icons and titles, each with a switch; pages that are never
 * lent (clawd-browser's own, this one among them, the browser's, local
 * files) show why instead. Plain HTML and one small script, sent as its
 * source; titles and addresses are pages' words, so they only ever become
 * text, never markup.
 */

export interface PickerPage {
  html: string;
  /** Its Content-Security-Policy: this page's script only, icons from the sites, requests to this server. */
  csp: string;
}

export function pickerPage(): PickerPage {
  const nonce = randomBytes(16).toString('base64');
  const csp = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src http: https: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>clawd-browser: lend tabs</title>
<style>
  body { font: 15px system-ui, sans-serif; margin: 0 auto; padding: 16px; max-width: 52em; color: #1d1d1f; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .muted { color: #6e6e73; font-size: 13px; }
  #state { margin: 8px 0 12px; padding: 8px 10px; border-radius: 6px; background: #f2f2f7; }
  #state.problem { background: #fff4d6; }
  ul { list-style: none; padding: 0; margin: 0; }
  li { display: flex; align-items: center; gap: 10px; padding: 8px 6px; border-bottom: 1px solid #e5e5ea; }
  li.lent { background: #fff1ea; }
  li.never { opacity: 0.6; }
  li img { width: 16px; height: 16px; flex: none; }
  li .icon { width: 16px; height: 16px; flex: none; border-radius: 3px; background: #d2d2d7; }
  li .text { flex: 1; min-width: 0; }
  li .title { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  li .url, li .why { font-size: 12px; color: #6e6e73; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  li .why { color: #a04900; white-space: normal; }
  label.switch { display: flex; align-items: center; gap: 6px; font-size: 13px; flex: none; }
</style>
</head>
<body>
<h1>Lend tabs to your agents</h1>
<p class="muted">An agent holding clawd-browser's token reaches the tabs you lend here and nothing else of this browser:
it can read and act in them, and take them to other sites (your logins there come along).
Tabs you open are not lent unless you lend them; a page a lent tab opens is lent with it. Untick a tab to take it back at once.</p>
<div id="state" role="status">Loading…</div>
<ul id="tabs"></ul>
<script nonce="${nonce}">
const __name = (fn) => fn;
(${pickerMain.toString()})();
</script>
</body>
</html>`;
  return { html, csp };
}

interface PickerAnswer {
  tabs: PersonTab[];
  chrome: ChromeStatus;
}

/** Runs in the person's page. Self-contained: it is sent as source text. */
function pickerMain(): void {
  const list = document.getElementById('tabs')!;
  const state = document.getElementById('state')!;
  const busy = new Set<string>();

  const element = (tag: string, className: string, text?: string) => {
    const node = document.createElement(tag);
    node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  const show = (answer: PickerAnswer) => {
    const { chrome } = answer;
    const lent = answer.tabs.filter((tab) => tab.lent).length;
    state.className = chrome.problem ? 'problem' : '';
    state.textContent = chrome.problem
      ? `${chrome.problem.message}. ${chrome.problem.fix}.`
      : `Attached to ${chrome.browser?.product ?? chrome.browser?.title ?? 'your browser'}: ${lent} tab${lent === 1 ? '' : 's'} lent.`;
    list.replaceChildren(
      ...answer.tabs.map((tab) => {
        const item = element('li', tab.lent ? 'lent' : tab.notLendable ? 'never' : '');
        item.dataset.targetId = tab.targetId;
        if (tab.favicon) {
          const icon = document.createElement('img');
          icon.alt = '';
          icon.referrerPolicy = 'no-referrer';
          icon.src = tab.favicon;
          icon.addEventListener('error', () => icon.replaceWith(element('span', 'icon')));
          item.append(icon);
        } else item.append(element('span', 'icon'));
        const text = element('div', 'text');
        text.append(element('div', 'title', tab.title || tab.url || 'New tab'), element('div', 'url', tab.url));
        const notes = [
          tab.notLendable,
          tab.suspended && `Taken back for now: ${tab.suspended}`,
          tab.byAgent && 'Opened by an agent',
          tab.otherDebugger && 'Another debugging tool is attached to this tab',
        ];
        for (const note of notes) if (note) text.append(element('div', 'why', note));
        const toggle = document.createElement('input');
        toggle.type = 'checkbox';
        toggle.checked = tab.lent;
        toggle.disabled = tab.notLendable !== undefined || busy.has(tab.targetId);
        toggle.addEventListener('change', () => void lend(tab.targetId, toggle.checked));
        const label = element('label', 'switch');
        label.append(toggle, document.createTextNode(tab.lent ? 'Lent' : 'Lend'));
        item.append(text, label);
        return item;
      }),
    );
  };

  const lend = async (targetId: string, lent: boolean) => {
    busy.add(targetId);
    try {
      const answer = await fetch('lend', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ targetId, lent }) });
      const body = await answer.json();
      if (!answer.ok) state.textContent = body.error?.message ?? `HTTP ${answer.status}`;
      else show(body);
    } finally {
      busy.delete(targetId);
      void refresh();
    }
  };

  const refresh = async () => {
    try {
      const answer = await fetch('tabs');
      const body = await answer.json();
      if (answer.ok) show(body);
      else {
        state.className = 'problem';
        state.textContent = body.error?.message ?? `HTTP ${answer.status}`;
      }
    } catch {
      state.className = 'problem';
      state.textContent = 'clawd-browser does not answer: is it still running?';
    }
  };

  void refresh();
  setInterval(() => void refresh(), 2_000);
}
