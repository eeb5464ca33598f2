/**
 * The console's player (spec §17): when the audit is filtered by a session
 * that has films, the film plays beside the session's audit entries and
 * actions on one timeline. Each action (the film's chapters) and each audit
 * entry is a mark on the film's bar and a line in the list; clicking either,
 * or a row of the audit table, or a recorded screenshot, seeks the film to
 * that moment. Kept films of sessions that ended play the same way. The
 * script is `replayMain`, sent as its source like the console's own.
 */

export const REPLAY_STYLES = `
  #replay { display: grid; grid-template-columns: minmax(0, 2fr) minmax(220px, 1fr); gap: 12px; margin: 8px 0; }
  #replay video { width: 100%; background: #000; border-radius: 4px; }
  #replay-bar { position: relative; height: 26px; background: #e8e8ed; border-radius: 4px; margin-top: 4px; }
  #replay-bar button { position: absolute; top: 3px; width: 8px; height: 20px; padding: 0; border: 0; border-radius: 2px; transform: translateX(-4px); cursor: pointer; }
  #replay-bar button.action { background: var(--accent); }
  #replay-bar button.audit { background: #b26a00; top: 13px; height: 10px; }
  #replay-bar button.error { background: #c62828; }
  #replay-playhead { position: absolute; top: 0; bottom: 0; width: 2px; background: #000; pointer-events: none; }
  #replay-list { list-style: none; margin: 0; padding: 0; max-height: 360px; overflow-y: auto; font-size: 13px; }
  #replay-list button { all: unset; cursor: pointer; display: block; width: 100%; padding: 2px 4px; border-radius: 3px; }
  #replay-list button[aria-current="true"] { background: #dfe8ff; }
  #replay-list .audit { color: #b26a00; }
  @media (max-width: 700px) { #replay { grid-template-columns: 1fr; } }
`;

export const REPLAY_SECTION = `
<div id="replay" hidden>
  <div><video id="replay-video" controls preload="metadata" aria-label="the session's film"></video>
  <div id="replay-bar" aria-label="the film's timeline: actions above, audit entries below"><div id="replay-playhead"></div></div>
  <label class="muted">film <select id="replay-films"></select></label></div>
  <ol id="replay-list" aria-label="actions and audit entries, in the film's time"></ol>
</div>
`;

/** Runs in the dashboard page. Self-contained: it is sent as source text. */
export function replayMain(): void {
  type Chapter = { at: number; end: number; title: string; kind: string; outcome: string };
  type Film = { name: string; startedAt: string; durationMs: number; chapters: Chapter[]; kept: boolean };
  type Entry = { time: string; event: string; outcome: string; detail?: string };
  type Moment = { at: number; label: string; kind: 'action' | 'audit'; failed: boolean };

  const $ = (id: string) => document.getElementById(id)!;
  const video = $('replay-video') as HTMLVideoElement;
  const choice = $('replay-films') as HTMLSelectElement;
  let profile = '';
  let films: Film[] = [];
  let film: Film | undefined;
  let moments: Moment[] = [];

  const clock = (ms: number) => `${Math.floor(ms / 60_000)}:${((ms % 60_000) / 1000).toFixed(1).padStart(4, '0')}`;
  /** Seeks to a moment of the film (ms from its start) and shows that frame. */
  const seek = (ms: number) => {
    if (!film) return;
    video.pause();
    video.currentTime = Math.min(Math.max(0, ms), film.durationMs) / 1000;
  };
  /** A wall-clock time (an audit row's, a screenshot's) as a moment of the film. */
  const seekToTime = (iso: string | undefined) => {
    if (film && iso) seek(Date.parse(iso) - Date.parse(film.startedAt));
  };

  const show = async (which: Film) => {
    film = which;
    video.src = `videos/file?profile=${encodeURIComponent(profile)}&name=${encodeURIComponent(which.name)}`;
    const session = profile.replace(/^session-/, '');
    const audit = await fetch(`audit?session=${encodeURIComponent(session)}&limit=200`, { headers: { accept: 'application/json' } })
      .then((response) => (response.ok ? (response.json() as Promise<{ entries: Entry[] }>) : { entries: [] }))
      .catch(() => ({ entries: [] as Entry[] }));
    const start = Date.parse(which.startedAt);
    moments = [
      ...which.chapters.map((chapter): Moment => ({ at: chapter.at, label: chapter.title, kind: 'action', failed: chapter.outcome !== 'ok' })),
      ...audit.entries
        .map((entry): Moment => ({
          at: Date.parse(entry.time) - start,
          label: `${entry.event} · ${entry.outcome}${entry.detail ? ` · ${entry.detail}` : ''}`,
          kind: 'audit',
          failed: entry.outcome !== 'ok',
        }))
        .filter((moment) => moment.at >= 0 && moment.at <= which.durationMs + 2000),
    ].sort((a, b) => a.at - b.at);
    const bar = $('replay-bar');
    bar.replaceChildren($('replay-playhead'));
    const list = $('replay-list');
    list.replaceChildren();
    for (const moment of moments) {
      const mark = document.createElement('button');
      mark.type = 'button';
      mark.className = `${moment.kind}${moment.failed ? ' error' : ''}`;
      mark.style.left = `${(Math.min(moment.at, which.durationMs) / Math.max(1, which.durationMs)) * 100}%`;
      mark.title = `${clock(moment.at)} ${moment.label}`;
      mark.setAttribute('aria-label', mark.title);
      mark.addEventListener('click', () => seek(moment.at));
      bar.append(mark);
      const item = document.createElement('li');
      const line = document.createElement('button');
      line.type = 'button';
      line.className = moment.kind;
      line.dataset.at = String(moment.at);
      line.textContent = `${clock(moment.at)}  ${moment.label}`;
      line.addEventListener('click', () => seek(moment.at));
      item.append(line);
      list.append(item);
    }
    $('replay').hidden = false;
  };

  /** The session's films, when the audit is filtered by one; the newest is shown. */
  const load = async (session: string) => {
    film = undefined;
    $('replay').hidden = true;
    if (!/^[0-9a-f]{12}$/.test(session)) return;
    profile = `session-${session}`;
    const response = await fetch(`videos?profile=${encodeURIComponent(profile)}`, { headers: { accept: 'application/json' } });
    films = response.ok ? ((await response.json()) as { films: Film[] }).films : [];
    choice.replaceChildren(
      ...films.map(
        (each, index) => new Option(`${new Date(each.startedAt).toLocaleString()} · ${clock(each.durationMs)}${each.kept ? ' · kept' : ''}`, String(index)),
      ),
    );
    if (films.length) await show(films[films.length - 1]);
    choice.value = String(films.length - 1);
  };

  choice.addEventListener('change', () => void show(films[Number(choice.value)]));
  document.getElementById('audit-form')!.addEventListener('submit', (event) => {
    const session = String(new FormData(event.target as HTMLFormElement).get('session') ?? '').trim();
    void load(session).catch(() => ($('replay').hidden = true));
  });
  // A row of the audit table, or a recorded screenshot: the film at that moment.
  for (const id of ['audit-rows', 'audit-timeline'])
    $(id).addEventListener('click', (event) => seekToTime((event.target as HTMLElement).closest<HTMLElement>('[data-time]')?.dataset.time));
  // The playhead and the action being played follow the film.
  video.addEventListener('timeupdate', () => {
    if (!film) return;
    const now = video.currentTime * 1000;
    $('replay-playhead').style.left = `${(now / Math.max(1, film.durationMs)) * 100}%`;
    let current: Element | undefined;
    for (const line of document.querySelectorAll<HTMLElement>('#replay-list button.action')) {
      line.setAttribute('aria-current', 'false');
      if (Number(line.dataset.at) <= now + 50) current = line;
    }
    current?.setAttribute('aria-current', 'true');
  });
}
