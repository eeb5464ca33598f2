/**
 * Teaching in the console's live view (spec §23), for any tab of any profile
 * or task session: the person starts a demonstration, does the task on the
 * live picture (their clicks and keys are the tab's input, heard as theirs),
 * and saves it as a routine; or marks elements with clicks on the picture and
 * writes a note for the agent. A panel under the live view; it calls the API
 * relative to where the console is served (its login cookie goes only there).
 */

export const LIVE_TEACH_STYLES = `
  #teach { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-start; margin-top: 8px; font-size: 13px; }
  #teach section { flex: 1 1 320px; }
  #teach ol, #teach ul { margin: 4px 0; padding-left: 20px; max-height: 120px; overflow-y: auto; }
  #teach input, #teach textarea { width: 100%; box-sizing: border-box; font: inherit; }
  #teach pre { max-height: 160px; overflow: auto; background: #f5f5f7; font-size: 11px; }`;

export const LIVE_TEACH_PANEL = `
<div id="teach">
  <section aria-label="demonstration">
    <button id="demo-start" type="button">Demonstrate</button>
    <span class="muted">Do a task here once: it becomes a routine agents run, and a Playwright test. Passwords are never recorded.</span>
    <div id="demo-running" hidden>
      <strong>Recording</strong><ol id="demo-steps"></ol>
      <label>Routine name <input id="demo-name" autocomplete="off" placeholder="sign-up"></label>
      <label>What it does <input id="demo-description" autocomplete="off"></label>
      <button id="demo-stop" type="button">Stop and save</button> <button id="demo-discard" type="button">Discard</button>
    </div>
    <p id="demo-result" class="muted"></p><pre id="demo-script" hidden></pre>
  </section>
  <section aria-label="note">
    <button id="note-start" type="button">Mark for a note</button>
    <span class="muted">Your clicks on the picture mark elements (and do nothing else); then write the note the agent reads.</span>
    <div id="note-writing" hidden>
      <strong>Marked</strong><ul id="note-marks"></ul>
      <label>Note <textarea id="note-text" rows="3"></textarea></label>
      <button id="note-send" type="button">Send note</button> <button id="note-cancel" type="button">Cancel</button>
    </div>
    <p id="note-result" class="muted"></p>
  </section>
</div>`;

/** Runs in the console page. Self-contained: sent as source text; follows the live view through its clawd:live-opened and clawd:live-closed events. */
export function liveTeachingMain(): void {
  const $ = (id: string) => document.getElementById(id)!;
  let live: { profile: string; targetId: string } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = async <T>(method: string, path: string, body?: object): Promise<T> => {
    const response = await fetch(`${path}${path.includes('?') ? '&' : '?'}profile=${encodeURIComponent(live!.profile)}`, {
      method,
      headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer?.error?.message ?? `${path}: ${response.status}`);
    return answer as T;
  };
  const items = (list: string[]) => list.map((line) => Object.assign(document.createElement('li'), { textContent: line }));
  const say = (id: string, what: string) => ($(id).textContent = what);
  const refresh = async () => {
    if (!live) return;
    const targetId = encodeURIComponent(live.targetId);
    const [{ demonstrations }, notes] = await Promise.all([
      call<{ demonstrations: Array<{ steps: string[] }> }>('GET', `demonstrations?targetId=${targetId}`),
      call<{ marking?: string[] }>('GET', `notes?targetId=${targetId}`),
    ]);
    const demonstration = demonstrations[0];
    $('demo-start').hidden = !!demonstration || !!notes.marking;
    $('demo-running').hidden = !demonstration;
    if (demonstration) $('demo-steps').replaceChildren(...items(demonstration.steps));
    $('note-start').hidden = !!notes.marking || !!demonstration;
    $('note-writing').hidden = !notes.marking;
    if (notes.marking) $('note-marks').replaceChildren(...items(notes.marking.length ? notes.marking : ['nothing yet: click an element on the picture']));
  };
  const poll = () => {
    clearTimeout(timer);
    if (!live) return;
    void refresh()
      .catch(() => {})
      .finally(() => (timer = setTimeout(poll, 1000)));
  };
  const act = (id: string, run: () => Promise<unknown>, result: string) =>
    $(id).addEventListener(
      'click',
      () =>
        void run().then(
          () => poll(),
          (error: Error) => say(result, error.message),
        ),
    );

  act('demo-start', () => call('POST', 'demonstrations/start', { targetId: live!.targetId }), 'demo-result');
  act('demo-discard', () => call('POST', 'demonstrations/stop', { targetId: live!.targetId, discard: true }), 'demo-result');
  act(
    'demo-stop',
    async () => {
      const name = ($('demo-name') as HTMLInputElement).value.trim();
      const description = ($('demo-description') as HTMLInputElement).value.trim();
      const made = await call<{ routine?: { name: string; steps: unknown[]; parameters: Array<{ name: string }> }; script?: string }>(
        'POST',
        'demonstrations/stop',
        {
          targetId: live!.targetId,
          ...(name ? { name } : {}),
          ...(description ? { description } : {}),
        },
      );
      say(
        'demo-result',
        name
          ? `Saved as routine ${made.routine!.name}: ${made.routine!.steps.length} steps; parameters ${made.routine!.parameters.map((p) => p.name).join(', ') || 'none'}.`
          : 'Not saved (no name): its test is below.',
      );
      $('demo-script').textContent = made.script ?? '';
      $('demo-script').hidden = !made.script;
    },
    'demo-result',
  );
  act('note-start', () => call('POST', 'notes/start', { targetId: live!.targetId }), 'note-result');
  act('note-cancel', () => call('POST', 'notes/cancel', { targetId: live!.targetId }), 'note-result');
  act(
    'note-send',
    async () => {
      const note = await call<{ id: string; marks: unknown[] }>('POST', 'notes', {
        targetId: live!.targetId,
        text: ($('note-text') as HTMLTextAreaElement).value,
      });
      ($('note-text') as HTMLTextAreaElement).value = '';
      say('note-result', `Note ${note.id} sent, on ${note.marks.length} element(s): the agent reads it with its next snapshot of the tab.`);
    },
    'note-result',
  );

  document.addEventListener('clawd:live-opened', (event) => {
    live = (event as CustomEvent<{ profile: string; targetId: string }>).detail;
    for (const id of ['demo-result', 'note-result']) say(id, '');
    $('demo-script').hidden = true;
    poll();
  });
  document.addEventListener('clawd:live-closed', () => {
    live = undefined;
    clearTimeout(timer);
  });
}
