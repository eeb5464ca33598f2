import { REPLAY_SECTION } from './console-replay.js';

/**
 * The operator's console, in the dashboard (spec §11's operator): task
 * sessions, grants, the vault, the refresh workflow and the audit log. It
 * calls the same JSON routes as any client, with the dashboard's cookie,
 * and changes when the server's state does (`GET /events`: each audit entry
 * as it is written) rather than polling. The script is `consoleMain`,
 * type-checked here and sent as its source; the live view is the
 * dashboard's own (asked for with a `clawd:live` event).
 */

export const CONSOLE_STYLES = `
  nav { display: flex; flex-wrap: wrap; gap: 4px 12px; margin: 4px 0 8px; }
  nav a { color: var(--accent); }
  form.inline { display: flex; flex-wrap: wrap; gap: 6px; align-items: end; margin: 6px 0; }
  form.inline label { display: flex; flex-direction: column; font-size: 12px; color: #6e6e73; }
  input, select, button { font: inherit; padding: 3px 6px; }
  .thumb { width: 120px; aspect-ratio: 16 / 10; object-fit: cover; object-position: top; background: #ddd; border: 1px solid #d2d2d7; border-radius: 4px; display: block; }
  /* No session has a tab to show: no column of empty cells. */
  #session-table.no-thumbs .now { display: none; }
  td.buttons { white-space: nowrap; }
  label.minutes { display: inline-flex; align-items: center; gap: 4px; margin: 0 6px 0 2px; font-size: 12px; color: #6e6e73; }
  .token { width: 100%; font-family: ui-monospace, monospace; font-size: 12px; }
  .message { min-height: 1.2em; font-size: 13px; }
  .scroll { overflow-x: auto; }
  .timeline { display: flex; gap: 8px; overflow-x: auto; padding: 4px 0 8px; }
  .timeline figure { margin: 0; font-size: 12px; color: #6e6e73; }
  .timeline img { width: 160px; display: block; border-radius: 4px; background: #ddd; }
  /* A narrow window keeps what an operator acts on: who, what, how long, and the buttons. */
  @media (max-width: 700px) { body { padding: 8px; } th, td { padding: 3px 4px; } .thumb { width: 72px; } .wide { display: none; } }
`;

/** What waits for a person (hand-offs, logins that expired): first on the page, and only when there is any. */
export const CONSOLE_ALERTS = `
<section id="handoffs" hidden><h2>Waiting for you</h2>
<p class="muted">An agent handed these tabs to a person: take one over, do what it asks, and answer there.</p>
<div class="scroll"><table><thead><tr><th>asks</th><th>profile</th><th class="wide">since</th><th>time left</th><th></th></tr></thead><tbody id="handoff-rows"></tbody></table></div>
<p class="message error" id="handoffs-message" role="alert"></p>
</section>
<section id="logins" hidden><h2>Logins to refresh</h2>
<p class="muted">Sessions lent these logins landed on a login form: the login expired or was signed out.</p>
<div class="scroll"><table><thead><tr><th>tenant</th><th>domain</th><th class="wide">seen</th><th class="wide">page</th><th></th></tr></thead><tbody id="login-rows"></tbody></table></div>
</section>
`;

/** The console's links, after the dashboard's own (dashboard-page.ts). */
export const CONSOLE_NAV =
  '<a href="#sessions">Sessions</a><a href="#grants">Grants</a><a href="#vault">Vault</a><a href="#refresh">Refresh</a><a href="#audit">Audit</a>';

/** The operator's sections, below the dashboard's overview of profiles, tabs and recent actions. */
export const CONSOLE_SECTIONS = `
<section id="sessions"><h2>Task sessions</h2>
<p class="muted" id="spares"></p>
<div class="scroll"><table id="session-table"><thead><tr><th class="now">now</th><th>id</th><th>tenant</th><th class="wide">mode</th><th>domains</th><th class="wide">created</th><th>time left</th><th class="wide">tabs</th><th class="wide">CDP</th><th class="wide">recording</th><th></th></tr></thead><tbody id="session-rows"></tbody></table></div>
<p class="message error" id="sessions-message" role="alert"></p>
</section>
<section id="grants"><h2>Grants</h2>
<form class="inline" id="grant-form">
  <label>tenant <input name="tenant" required></label>
  <label>domains (comma-separated) <input name="domains" required></label>
  <label>valid for (minutes) <input name="minutes" type="number" min="1" value="60" required></label>
  <button type="submit">Issue grant</button>
</form>
<div id="grant-issued" hidden><p class="muted">The token, shown once: give it to the agent's platform.</p><textarea class="token" id="grant-token" rows="3" readonly aria-label="grant token"></textarea><button type="button" id="grant-copy">Copy</button></div>
<p class="message error" id="grants-message" role="alert"></p>
<div class="scroll"><table><thead><tr><th>tenant</th><th>domains</th><th>expires</th><th>used by sessions</th><th class="wide">id</th><th></th></tr></thead><tbody id="grant-rows"></tbody></table></div>
</section>
<section id="vault"><h2>Vault</h2>
<p class="muted">What the vault holds, never a value.</p>
<div class="scroll"><table><thead><tr><th>tenant</th><th>domain</th><th>cookies</th><th>saved</th><th></th></tr></thead><tbody id="vault-rows"></tbody></table></div>
<p class="message error" id="vault-message" role="alert"></p>
</section>
<section id="refresh"><h2>Refresh a login</h2>
<p class="muted">A clean browser opens in the live view: log in there by clicking and typing, then save its cookies to the vault.</p>
<form class="inline" id="refresh-form">
  <label>tenant <input name="tenant" required></label>
  <label>domains (comma-separated) <input name="domains" required></label>
  <label>start page <input name="url" type="url" placeholder="https://…/login" required></label>
  <button type="submit">Open refresh session</button>
</form>
<form class="inline" id="extension-form">
  <label>tenant <input name="tenant" required></label>
  <label>domains (comma-separated) <input name="domains" required></label>
  <button type="submit">Save from my Chrome (asks in the extension)</button>
</form>
<p class="message" id="refresh-message" role="status"></p>
</section>
<section id="audit"><h2>Audit</h2>
<form class="inline" id="audit-form">
  <label>tenant <input name="tenant"></label>
  <label>session <input name="session"></label>
  <label>kind <select name="event"><option value="">any</option></select></label>
  <button type="submit">Filter</button>
</form>
${REPLAY_SECTION}
<div id="audit-timeline" class="timeline" hidden aria-label="the session's recorded screenshots"></div>
<div class="scroll"><table><thead><tr><th>time</th><th>kind</th><th>tenant</th><th>session</th><th class="wide">domains</th><th class="wide">grant</th><th>outcome</th><th class="wide">detail</th></tr></thead><tbody id="audit-rows"></tbody></table></div>
<button type="button" id="audit-older" hidden>Older</button>
<p class="message error" id="audit-message" role="alert"></p>
</section>
`;

/** Runs in the dashboard page. Self-contained: it is sent as source text; `kinds` are the audit's event kinds. */
export function consoleMain(kinds: readonly string[]): void {
  type Session = {
    id: string;
    profile: string;
    credential_mode: string;
    tenant?: string;
    domains: string[];
    record: string;
    createdAt: string;
    expiresAt: string;
    cdpClients: number;
  };
  type Grant = { id: string; tenant: string; domains: string[]; expiresAt: string; sessions: string[] };
  type Listing = { tenant: string; domain: string; cookies: number; savedAt: string };
  type Entry = { time: string; event: string; tenant?: string; session?: string; domains?: string[]; grantId?: string; outcome: string; detail?: string };
  type Tab = { targetId: string; title: string; url: string };

  const $ = (id: string) => document.getElementById(id)!;
  const cell = (value: string, className?: string) => {
    const td = document.createElement('td');
    td.textContent = value;
    if (className) td.className = className;
    return td;
  };
  const button = (label: string, run: () => Promise<unknown>, message: string) => {
    const element = document.createElement('button');
    element.type = 'button';
    element.textContent = label;
    element.addEventListener('click', () => void run().catch((error: Error) => ($(message).textContent = error.message)));
    return element;
  };
  /** A JSON route; a refusal throws the server's own message. */
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(path, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    if (!response.ok) throw new Error(answer.error?.message ?? `${method} ${path}: ${response.status}`);
    return answer as T;
  };
  const list = (value: string) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean);
  const time = (iso: string) => new Date(iso).toLocaleString();
  const left = (iso: string) => {
    const seconds = Math.max(0, Math.round((Date.parse(iso) - Date.now()) / 1000));
    return seconds >= 3600 ? `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  };
  const live = (detail: { profile: string; targetId: string; title: string; actions?: Array<{ label: string; run: () => Promise<unknown> }> }) =>
    document.dispatchEvent(new CustomEvent('clawd:live', { detail }));
  const firstTab = async (profile: string) => (await api<{ tabs: Tab[] }>('GET', `tabs?profile=${encodeURIComponent(profile)}`)).tabs[0];

  // ---- sessions ----
  /** Time left, counted down here (the ticker below): no request needed for it. */
  const countdown = (expiresAt: string) => {
    const td = cell(left(expiresAt), 'left');
    td.dataset.expiresAt = expiresAt;
    return td;
  };
  const loadSessions = async () => {
    const { sessions, spares } = await api<{ sessions: Session[]; spares: { ready: number; starting: number; wanted: number } }>('GET', 'sessions');
    $('spares').textContent = `${sessions.length} open · spares ${spares.ready} ready, ${spares.starting} starting (sessionSpares ${spares.wanted})`;
    const rows = await Promise.all(
      sessions.map(async (session) => {
        const tabs = await api<{ tabs: Tab[] }>('GET', `tabs?profile=${encodeURIComponent(session.profile)}`).then(
          (answer) => answer.tabs,
          () => [] as Tab[],
        );
        const row = document.createElement('tr');
        row.dataset.session = session.id;
        const now = cell(tabs[0] ? '' : 'no tab', 'now muted');
        if (tabs[0]) {
          const image = document.createElement('img');
          image.className = 'thumb';
          image.alt = `${session.id}: ${tabs[0].title || tabs[0].url}`;
          image.src = `screencast/frame?profile=${encodeURIComponent(session.profile)}&targetId=${encodeURIComponent(tabs[0].targetId)}&at=${Date.now()}`;
          now.append(image);
        }
        const minutes = document.createElement('input');
        minutes.type = 'number';
        minutes.min = '1';
        minutes.value = '15';
        minutes.style.width = '4em';
        minutes.setAttribute('aria-label', `minutes for session ${session.id}`);
        // The box says what it holds: the minutes "Set time left" gives the session from now.
        const labelled = document.createElement('label');
        labelled.className = 'minutes';
        labelled.append(minutes, 'min');
        const actions = cell('', 'buttons');
        actions.append(
          button(
            'Watch',
            async () => {
              const tab = tabs[0] ?? (await firstTab(session.profile));
              if (!tab) throw new Error(`Session ${session.id} has no tab open`);
              live({ profile: session.profile, targetId: tab.targetId, title: `${session.id} · ${tab.title || tab.url}` });
            },
            'sessions-message',
          ),
          labelled,
          button(
            'Set time left',
            () => api('POST', `sessions/${session.id}/extend`, { ttl: Number(minutes.value) * 60 }).then(loadSessions),
            'sessions-message',
          ),
          button('End', () => api('DELETE', `sessions/${session.id}`), 'sessions-message'),
        );
        row.append(
          now,
          cell(session.id),
          cell(session.tenant ?? ''),
          cell(session.credential_mode, 'wide'),
          cell(session.domains.join(', ')),
          cell(time(session.createdAt), 'wide'),
          countdown(session.expiresAt),
          cell(String(tabs.length), 'wide'),
          cell(String(session.cdpClients), 'wide'),
          cell(session.record, 'wide'),
          actions,
        );
        return { row, thumbnail: tabs.length > 0 };
      }),
    );
    $('session-rows').replaceChildren(...rows.map(({ row }) => row));
    $('session-table').classList.toggle('no-thumbs', !rows.some(({ thumbnail }) => thumbnail));
  };

  // ---- grants ----
  const loadGrants = async () => {
    const { grants } = await api<{ grants: Grant[] }>('GET', 'grants');
    $('grant-rows').replaceChildren(
      ...grants.map((grant) => {
        const row = document.createElement('tr');
        row.dataset.grant = grant.id;
        const actions = cell('');
        actions.append(button('Revoke', () => api('DELETE', `grants/${grant.id}`), 'grants-message'));
        row.append(
          cell(grant.tenant),
          cell(grant.domains.join(', ')),
          cell(time(grant.expiresAt)),
          cell(grant.sessions.join(', ') || '—'),
          cell(grant.id, 'muted wide'),
          actions,
        );
        return row;
      }),
    );
  };
  $('grant-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    $('grants-message').textContent = '';
    void api<{ token: string }>('POST', 'grants', {
      tenant: String(form.get('tenant')).trim(),
      domains: list(String(form.get('domains'))),
      ttl: Number(form.get('minutes')) * 60,
    })
      .then(({ token }) => {
        ($('grant-token') as HTMLTextAreaElement).value = token;
        $('grant-issued').hidden = false;
      })
      .catch((error: Error) => ($('grants-message').textContent = error.message));
  });
  $('grant-copy').addEventListener('click', () => void navigator.clipboard?.writeText(($('grant-token') as HTMLTextAreaElement).value));

  // ---- vault ----
  const loadVault = async () => {
    const { entries } = await api<{ entries: Listing[] }>('GET', 'vault');
    $('vault-rows').replaceChildren(
      ...entries.map((entry) => {
        const row = document.createElement('tr');
        row.dataset.vault = `${entry.tenant}/${entry.domain}`;
        const actions = cell('');
        actions.append(
          button(
            'Forget',
            async () => {
              if (!confirm(`Forget the cookies of ${entry.domain} for ${entry.tenant}? Sessions can no longer be logged in there until someone logs in again.`))
                return;
              await api('DELETE', `vault?tenant=${encodeURIComponent(entry.tenant)}&domain=${encodeURIComponent(entry.domain)}`);
            },
            'vault-message',
          ),
        );
        row.append(cell(entry.tenant), cell(entry.domain), cell(String(entry.cookies)), cell(time(entry.savedAt)), actions);
        return row;
      }),
    );
  };

  // ---- refresh ----
  $('refresh-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    const say = (text: string) => ($('refresh-message').textContent = text);
    void (async () => {
      const session = await api<{ id: string; profile: string }>('POST', 'vault/refresh', {
        tenant: String(form.get('tenant')).trim(),
        domains: list(String(form.get('domains'))),
      });
      try {
        const tab = await api<Tab>('POST', `tabs/open?profile=${encodeURIComponent(session.profile)}`, { url: String(form.get('url')) });
        say(`Refresh session ${session.id} is open: log in in the live view, then save.`);
        live({
          profile: session.profile,
          targetId: tab.targetId,
          title: `log in (refresh session ${session.id})`,
          actions: [
            {
              label: 'Save cookies',
              run: async () => {
                const { saved } = await api<{ saved: Array<{ domain: string; cookies: number }> }>('POST', `vault/refresh/${session.id}/done`, {});
                say(`Saved: ${saved.map((s) => `${s.domain} (${s.cookies} cookies)`).join(', ') || 'nothing'}; the session has ended.`);
              },
            },
            {
              label: 'Cancel',
              run: async () => {
                await api('DELETE', `sessions/${session.id}`);
                say('Cancelled: nothing saved; the session has ended.');
              },
            },
          ],
        });
      } catch (error) {
        await api('DELETE', `sessions/${session.id}`).catch(() => {});
        throw error;
      }
    })().catch((error: Error) => say(error.message));
  });
  $('extension-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    $('refresh-message').textContent = 'Waiting for the person to answer in the clawd-browser extension…';
    void api<{ saved: Array<{ domain: string; cookies: number }>; refused: string[] }>('POST', 'vault/from-extension', {
      tenant: String(form.get('tenant')).trim(),
      domains: list(String(form.get('domains'))),
    })
      .then(
        ({ saved, refused }) =>
          ($('refresh-message').textContent =
            `Saved from your Chrome: ${saved.map((s) => `${s.domain} (${s.cookies})`).join(', ') || 'nothing'}${refused.length ? `; refused: ${refused.join(', ')}` : ''}`),
      )
      .catch((error: Error) => ($('refresh-message').textContent = error.message));
  });

  // ---- audit ----
  const select = document.querySelector('#audit-form select')!;
  for (const kind of kinds) select.append(new Option(kind, kind));
  let filters: Record<string, string> = {};
  let next: number | undefined;
  const auditRow = (entry: Entry) => {
    const row = document.createElement('tr');
    row.dataset.event = entry.event;
    // Where the session's film is at this entry (console-replay.ts seeks there on a click).
    row.dataset.time = entry.time;
    row.append(
      cell(time(entry.time)),
      cell(entry.event),
      cell(entry.tenant ?? ''),
      cell(entry.session ?? ''),
      cell((entry.domains ?? []).join(', '), 'wide'),
      cell(entry.grantId ?? '', 'muted wide'),
      cell(entry.outcome, entry.outcome === 'ok' ? '' : 'error'),
      cell(entry.detail ?? '', 'wide'),
    );
    return row;
  };
  /** A session's recorded screenshots (record: audit), one per action, beside its entries. */
  const loadTimeline = async () => {
    const timeline = $('audit-timeline');
    const session = filters.session;
    const shots = session
      ? (await api<{ shots: Array<{ file: string; action: string; time: string }> }>('GET', `audit/recording?session=${encodeURIComponent(session)}`)).shots
      : [];
    timeline.hidden = shots.length === 0;
    timeline.replaceChildren(
      ...shots.map((shot) => {
        const figure = document.createElement('figure');
        figure.dataset.time = shot.time;
        const image = document.createElement('img');
        image.src = `audit/recording?session=${encodeURIComponent(session!)}&file=${encodeURIComponent(shot.file)}`;
        image.alt = `after ${shot.action}`;
        const caption = document.createElement('figcaption');
        caption.textContent = `${new Date(shot.time).toLocaleTimeString()} · ${shot.action}`;
        figure.append(image, caption);
        return figure;
      }),
    );
  };
  const loadAudit = async (older = false) => {
    const query = new URLSearchParams({ ...filters, limit: '25', ...(older && next !== undefined ? { before: String(next) } : {}) });
    const page = await api<{ entries: Entry[]; next?: number }>('GET', `audit?${query}`);
    next = page.next;
    const rows = page.entries.map(auditRow);
    if (older) $('audit-rows').append(...rows);
    else $('audit-rows').replaceChildren(...rows);
    $('audit-older').hidden = next === undefined;
  };
  $('audit-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    filters = Object.fromEntries([...form.entries()].map(([key, value]) => [key, String(value).trim()]).filter(([, value]) => value));
    $('audit-message').textContent = '';
    void Promise.all([loadAudit(), loadTimeline()]).catch((error: Error) => ($('audit-message').textContent = error.message));
  });
  $('audit-older').addEventListener('click', () => void loadAudit(true).catch((error: Error) => ($('audit-message').textContent = error.message)));

  // ---- hand-offs: first, since a person is waited for ----
  type Handoff = { id: string; profile: string; reason: string; createdAt: string; expiresAt: string };
  const loadHandoffs = async () => {
    const { handoffs } = await api<{ handoffs: Handoff[] }>('GET', 'handoffs');
    $('handoffs').hidden = handoffs.length === 0;
    $('handoff-rows').replaceChildren(
      ...handoffs.map((handoff) => {
        const row = document.createElement('tr');
        const open = document.createElement('a');
        open.href = `handoff/${handoff.id}/page`;
        open.textContent = 'Take over';
        const action = document.createElement('td');
        action.append(open);
        row.append(cell(handoff.reason), cell(handoff.profile), cell(time(handoff.createdAt), 'wide'), countdown(handoff.expiresAt), action);
        return row;
      }),
    );
  };

  // ---- lent logins that did not hold: newest first, until a save for that tenant and domain ----
  const loadLogins = async () => {
    const [seen, saved] = await Promise.all(
      ['login-page', 'refresh-saved'].map(async (event) => (await api<{ entries: Entry[] }>('GET', `audit?event=${event}&limit=100`)).entries),
    );
    const savedAt = (tenant: string, domain: string) =>
      saved
        .filter((entry) => entry.tenant === tenant && entry.domains?.includes(domain))
        .map((entry) => entry.time)
        .sort()
        .pop() ?? '';
    const shown = new Map<string, Entry>();
    for (const entry of seen) {
      const domain = entry.domains?.[0];
      const key = `${entry.tenant} ${domain}`;
      if (!entry.tenant || !domain || shown.has(key) || savedAt(entry.tenant, domain) > entry.time) continue;
      shown.set(key, entry);
    }
    $('logins').hidden = shown.size === 0;
    $('login-rows').replaceChildren(
      ...[...shown.values()].map((entry) => {
        const row = document.createElement('tr');
        const action = document.createElement('td');
        action.append(
          button(
            'Refresh login',
            async () => {
              const form = $('refresh-form') as HTMLFormElement;
              (form.elements.namedItem('tenant') as HTMLInputElement).value = entry.tenant!;
              (form.elements.namedItem('domains') as HTMLInputElement).value = entry.domains![0];
              (form.elements.namedItem('url') as HTMLInputElement).value = entry.detail ?? '';
              form.requestSubmit();
            },
            'refresh-message',
          ),
        );
        row.append(cell(entry.tenant!), cell(entry.domains![0]), cell(time(entry.time), 'wide'), cell(entry.detail ?? '', 'wide'), action);
        return row;
      }),
    );
  };

  // ---- what changes, when it changes ----
  const reload = (what: () => Promise<void>, message: string) => void what().catch((error: Error) => ($(message).textContent = error.message));
  const matches = (entry: Entry) => Object.entries(filters).every(([key, value]) => (entry as Record<string, unknown>)[key] === value);
  const events = new EventSource('events');
  events.addEventListener('audit', (message) => {
    const entry = JSON.parse((message as MessageEvent<string>).data) as Entry;
    if (/^handoff/.test(entry.event)) reload(loadHandoffs, 'handoffs-message');
    if (/^(login-page|refresh-saved)/.test(entry.event)) reload(loadLogins, 'refresh-message');
    if (/^(session|refresh|inject|cdp)/.test(entry.event)) reload(loadSessions, 'sessions-message');
    if (/^(grant|inject)/.test(entry.event)) reload(loadGrants, 'grants-message');
    if (/saved|forget/.test(entry.event)) reload(loadVault, 'vault-message');
    if (matches(entry)) $('audit-rows').prepend(auditRow(entry));
  });
  reload(loadHandoffs, 'handoffs-message');
  reload(loadLogins, 'refresh-message');
  reload(loadSessions, 'sessions-message');
  reload(loadGrants, 'grants-message');
  reload(loadVault, 'vault-message');
  reload(() => loadAudit(), 'audit-message');
  // Time left counts down here, and thumbnails (single frames) follow the sessions' pages.
  setInterval(() => {
    for (const td of document.querySelectorAll<HTMLElement>('#session-rows td.left, #handoff-rows td.left')) td.textContent = left(td.dataset.expiresAt!);
  }, 1000);
  setInterval(() => {
    for (const image of document.querySelectorAll<HTMLImageElement>('#session-rows img.thumb')) image.src = image.src.replace(/at=\d+/, `at=${Date.now()}`);
  }, 5000);
}
