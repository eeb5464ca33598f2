/**
 * The dashboard (`GET /` from a browser): profiles and their state, each
 * tab with a live thumbnail that opens the live view (where a person can
 * click, scroll and type: takeover), the extension's connection, and recent
 * actions. Plain HTML and CSS; the script is `dashboardMain`, type-checked
 * here and sent as its source. It calls the same JSON routes as any client,
 * relative to the login's own console path (`/console/<path>/`, the only
 * place its cookie is sent: dashboard-auth.ts).
 */

import { AUDIT_EVENT_KINDS } from '../api/session-responses.js';
import { CONSOLE_ALERTS, CONSOLE_NAV, CONSOLE_SECTIONS, CONSOLE_STYLES, consoleMain } from './operator-console.js';
import { bindLiveViewInput } from './live-view-input.js';
import { REPLAY_STYLES, replayMain } from './console-replay.js';
import { LIVE_TEACH_PANEL, LIVE_TEACH_STYLES, liveTeachingMain } from './live-view-teaching.js';

export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>clawd-browser</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  :root { --accent: #ff4500; font-family: system-ui, sans-serif; color: #1d1d1f; background: #f5f5f7; }
  /* What is hidden stays hidden, whatever display a section's own style gives it (the film player, the timeline). */
  [hidden] { display: none !important; }
  body { margin: 0 auto; max-width: 1200px; padding: 16px 24px; }
  header { display: flex; align-items: baseline; gap: 16px; }
  h1 { color: var(--accent); margin: 0 0 8px; }
  h2 { font-size: 16px; margin: 20px 0 8px; }
  .muted { color: #6e6e73; font-size: 13px; }
  .profiles { display: flex; flex-wrap: wrap; gap: 8px; }
  .profile { background: #fff; border-radius: 8px; padding: 8px 12px; border-left: 6px solid var(--color, #999); }
  /* At first sight: the tabs beside the profiles and the recent actions, all above the fold. */
  #overview { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0 24px; }
  @media (max-width: 900px) { #overview { grid-template-columns: 1fr; } }
  .recent { max-height: 220px; overflow-y: auto; border-radius: 8px; }
  .recent td { white-space: nowrap; }
  .recent td.url { max-width: 160px; overflow: hidden; text-overflow: ellipsis; }
  .tabs { display: grid; grid-template-columns: repeat(auto-fill, minmax(200px, 1fr)); gap: 12px; }
  .tab { background: #fff; border-radius: 8px; padding: 8px; cursor: pointer; }
  .tab img { width: 100%; aspect-ratio: 16 / 10; object-fit: cover; object-position: top; background: #ddd; border-radius: 4px; display: block; }
  .tab .title { font-weight: 600; margin-top: 6px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
  .tab .url { overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
  table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 8px; font-size: 13px; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; }
  .error { color: #c00; }
  dialog { width: min(1100px, 95vw); border: none; border-radius: 10px; padding: 12px; }
  dialog img { width: 100%; display: block; cursor: crosshair; background: #ddd; }
  dialog .bar { display: flex; justify-content: space-between; gap: 8px; margin-bottom: 8px; }
${CONSOLE_STYLES}
${REPLAY_STYLES}
${LIVE_TEACH_STYLES}
</style>
</head>
<body>
<header><h1>clawd-browser</h1><span class="muted" id="updated"></span></header>
${CONSOLE_ALERTS}
<nav aria-label="sections"><a href="#tabs-section">Tabs</a><a href="#profiles-section">Profiles</a><a href="#actions-section">Recent actions</a>${CONSOLE_NAV}</nav>
<div id="overview">
<section id="tabs-section"><h2>Tabs</h2><div class="tabs" id="tabs"></div><p class="muted" id="no-tabs" hidden>No tab is open. Open one with <code>clawd-browser open example.com</code>, or an agent's <code>browser_tabs</code>.</p></section>
<div>
<section id="profiles-section"><h2>Profiles</h2><div class="profiles" id="profiles"></div>
<p class="muted">Your Chrome (extension): <span id="extension"></span></p>
<p class="muted">Your Chrome (remote debugging): <span id="chrome"></span> <button id="chrome-pick">Lend tabs…</button></p></section>
<section id="actions-section"><h2>Recent actions</h2>
<div class="recent"><table><thead><tr><th>time</th><th>profile</th><th>action</th><th>url</th><th>outcome</th></tr></thead><tbody id="actions"></tbody></table></div>
<p class="muted" id="no-actions" hidden>No action yet.</p>
</section>
</div>
</div>
${CONSOLE_SECTIONS}
<dialog id="live">
  <div class="bar"><strong id="live-title"></strong><span class="muted">Click, scroll and type here to take over.</span><span id="live-actions"></span><button id="live-close">Close</button></div>
  <img id="live-view" alt="live view">
${LIVE_TEACH_PANEL}
</dialog>
<script>
// Transpilers may wrap functions in __name(...) (esbuild keepNames): give it a meaning here.
const __name = (fn) => fn;
(${dashboardMain.toString()})(${bindLiveViewInput.toString()});
(${consoleMain.toString()})(${JSON.stringify(AUDIT_EVENT_KINDS)});
(${replayMain.toString()})();
(${liveTeachingMain.toString()})();
</script>
</body>
</html>`;
}

/** Runs in the dashboard page. Self-contained: it is sent as source text, and given the live view's input binding (live-view-input.ts). */
function dashboardMain(bindInput: typeof bindLiveViewInput): void {
  type Profile = { name: string; driver: string; color: string; running?: boolean };
  type Tab = { targetId: string; title: string; url: string };
  type Action = { time: string; profile: string; actor: string; kind: string; ref?: string; url?: string; durationMs: number; outcome: string; error?: string };

  const $ = (id: string) => document.getElementById(id)!;
  const json = async <T>(path: string): Promise<T> => {
    const response = await fetch(path, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return (await response.json()) as T;
  };
  const text = (tag: string, value: string, className?: string) => {
    const element = document.createElement(tag);
    element.textContent = value;
    if (className) element.className = className;
    return element;
  };
  const query = (profile: string, targetId: string) => `profile=${encodeURIComponent(profile)}&targetId=${encodeURIComponent(targetId)}`;
  // The live view streams; thumbnails are single frames reloaded each refresh (a browser holds
  // only six connections per host, and each stream keeps one).
  const streamUrl = (profile: string, targetId: string) => `screencast?${query(profile, targetId)}`;
  const frameUrl = (profile: string, targetId: string) => `screencast/frame?${query(profile, targetId)}&at=${Date.now()}`;
  // One card per tab, kept across refreshes.
  const cards = new Map<string, HTMLElement>();
  let live: { profile: string; targetId: string } | undefined;

  // One input at a time, in the order given: keys typed fast must reach the tab in that order.
  let sending: Promise<unknown> = Promise.resolve();
  const input = (body: Record<string, unknown>) => {
    if (!live) return;
    const { profile, targetId } = live;
    sending = sending.then(() =>
      fetch(`screencast/input?profile=${encodeURIComponent(profile)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ targetId, ...body }),
      }).catch(() => {}),
    );
  };
  const view = $('live-view') as HTMLImageElement;
  // Keys typed into the console's own fields (a routine's name, a note) are not the tab's.
  bindInput(view, input, (event) => live !== undefined && !(event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement));
  const dialog = $('live') as HTMLDialogElement;
  const close = () => {
    live = undefined;
    view.src = '';
    dialog.close();
    document.dispatchEvent(new CustomEvent('clawd:live-closed'));
  };
  $('live-close').addEventListener('click', close);
  dialog.addEventListener('cancel', close);
  type LiveAction = { label: string; run: () => Promise<unknown> };
  const openLive = (profile: string, tab: Tab, title = `${tab.title || tab.url} (${profile})`, actions: LiveAction[] = []) => {
    live = { profile, targetId: tab.targetId };
    $('live-title').textContent = title;
    // Buttons the opener adds (the refresh workflow's Save and Cancel): each closes the view when done.
    $('live-actions').replaceChildren(
      ...actions.map((action) => {
        const element = text('button', action.label);
        element.addEventListener('click', () => void action.run().then(close, (error: Error) => ($('live-title').textContent = error.message)));
        return element;
      }),
    );
    view.src = streamUrl(profile, tab.targetId);
    dialog.showModal();
    document.dispatchEvent(new CustomEvent('clawd:live-opened', { detail: { profile, targetId: tab.targetId } }));
  };
  // The operator's console (operator-console.ts) opens sessions here.
  document.addEventListener('clawd:live', (event) => {
    const { profile, targetId, title, actions } = (event as CustomEvent<{ profile: string; targetId: string; title: string; actions?: LiveAction[] }>).detail;
    openLive(profile, { targetId, title, url: '' }, title, actions);
  });

  // The tab picker opens in the person's Chrome (attaching first: Chrome asks them), never here.
  $('chrome-pick').addEventListener('click', () => {
    $('chrome').textContent = 'attaching to your Chrome: answer its "Allow remote debugging?" if it asks…';
    const post = (path: string, body = {}) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    void post('chrome/attach', { waitSeconds: 120 })
      .then(() => post('chrome/picker/open'))
      .then(async (answer) => {
        $('chrome').textContent = answer.ok
          ? 'the tab picker is open in your Chrome: lend tabs there'
          : ((await answer.json()) as { error: { message: string } }).error.message;
      });
  });

  const refresh = async () => {
    const { profiles } = await json<{ profiles: Profile[] }>('profiles');
    const list = $('profiles');
    list.replaceChildren(
      ...profiles.map((profile) => {
        const item = text('div', '', 'profile');
        item.style.setProperty('--color', profile.color);
        item.append(text('strong', profile.name), text('div', `${profile.driver} · ${profile.running ? 'running' : 'stopped'}`, 'muted'));
        item.dataset.profile = profile.name;
        return item;
      }),
    );
    const extension = await json<{ extension?: string; attachedTabs?: number }>('./?profile=extension').catch(() => undefined);
    $('extension').textContent = extension ? `${extension.extension ?? 'absent'} · ${extension.attachedTabs ?? 0} shared tab(s)` : 'no extension profile';
    // The person's Chrome attached through its consent: its state; the tabs are lent in the picker, in that Chrome.
    const chrome = await json<{ state: string; lentTabs: number; problem?: { message: string } }>('chrome').catch(() => undefined);
    if (chrome) $('chrome').textContent = chrome.problem ? `${chrome.state}: ${chrome.problem.message}` : `${chrome.state} · ${chrome.lentTabs} lent tab(s)`;

    const seen = new Set<string>();
    const tabs = $('tabs');
    for (const profile of profiles.filter(
      (p) => p.running || (p.driver === 'extension' && (extension?.attachedTabs ?? 0) > 0) || (p.driver === 'chrome' && (chrome?.lentTabs ?? 0) > 0),
    )) {
      const open = await json<{ tabs: Tab[] }>(`tabs?profile=${encodeURIComponent(profile.name)}`).catch(() => ({ tabs: [] as Tab[] }));
      for (const tab of open.tabs) {
        const key = `${profile.name}/${tab.targetId}`;
        seen.add(key);
        let card = cards.get(key);
        if (!card) {
          card = text('div', '', 'tab');
          card.dataset.targetId = tab.targetId;
          const image = document.createElement('img');
          image.alt = `live thumbnail of ${tab.title || tab.url}`;
          card.append(image, text('div', '', 'title'), text('div', '', 'url muted'), text('div', profile.name, 'muted'));
          card.addEventListener('click', () => openLive(profile.name, tab));
          cards.set(key, card);
          tabs.append(card);
        }
        card.dataset.frame = frameUrl(profile.name, tab.targetId);
        card.querySelector('.title')!.textContent = tab.title || '(untitled)';
        card.querySelector('.url')!.textContent = tab.url;
      }
    }
    for (const [key, card] of cards) {
      if (seen.has(key)) continue;
      card.remove();
      cards.delete(key);
    }
    $('no-tabs').hidden = cards.size > 0;

    const { actions } = await json<{ actions: Action[] }>('actions?limit=15');
    $('actions').replaceChildren(
      ...actions.reverse().map((action) => {
        const row = document.createElement('tr');
        // Narrow beside the tabs: who and how long go in the row's tooltip; a person's acts say so.
        row.title = `${action.actor} · ${action.durationMs} ms`;
        row.append(
          text('td', new Date(action.time).toLocaleTimeString([], { hourCycle: 'h23' })),
          text('td', action.profile),
          text('td', [action.kind, action.ref, action.actor === 'agent' ? '' : `(${action.actor})`].filter(Boolean).join(' ')),
          text('td', action.url ?? '', 'url'),
          text('td', action.error ? `${action.outcome}: ${action.error}` : action.outcome, action.outcome === 'ok' ? '' : 'error'),
        );
        return row;
      }),
    );
    $('no-actions').hidden = actions.length > 0;
    $('updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
  };
  // Thumbnails load one at a time, apart from the JSON calls, so a tab slow to paint delays nothing else.
  const thumbnails = async () => {
    for (const card of [...cards.values()]) {
      const thumbnail = card.querySelector('img') as HTMLImageElement;
      const next = new Image();
      await new Promise<void>((resolve) => {
        next.onload = () => {
          thumbnail.src = next.src; // only once loaded, so a thumbnail never blanks
          resolve();
        };
        next.onerror = () => resolve();
        next.src = card.dataset.frame!.replace(/at=\d+/, `at=${Date.now()}`);
      });
    }
    setTimeout(() => void thumbnails(), 2000);
  };
  setTimeout(() => void thumbnails(), 500);
  const loop = () => {
    refresh()
      .catch((error: unknown) => ($('updated').textContent = String(error)))
      .finally(() => setTimeout(loop, 2000));
  };
  loop();
}
