import type { SharedTab, TeachOp } from '../../protocol/wire';
import type { OptionsRequest } from './status';
import type { TeachAnswer } from './teaching';

/**
 * The Teach page (teach.html?tab=<id>): the person's own controls for a
 * demonstration and a note in one shared tab. It is the extension's page, so
 * no web page can press its buttons or read what is typed here. What the
 * server heard so far is shown as it comes (asked every 700 ms).
 */

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const tabId = Number(new URLSearchParams(location.search).get('tab'));

interface TeachState {
  demonstration: { steps: string[] } | null;
  marking: string[] | null;
}

async function teach(op: TeachOp, fields: { name?: string; description?: string; text?: string } = {}): Promise<TeachAnswer> {
  const answer = (await chrome.runtime.sendMessage({ type: 'teach', tabId, op, ...fields } satisfies OptionsRequest)) as TeachAnswer;
  $('error').textContent = answer.ok ? '' : (answer.error ?? 'clawd-browser did not answer');
  return answer;
}

const items = (list: string[]) => list.map((text) => Object.assign(document.createElement('li'), { textContent: text }));

function render(state: TeachState): void {
  const demonstrating = state.demonstration !== null;
  $('demo-start').hidden = demonstrating || state.marking !== null;
  $('demo-running').hidden = !demonstrating;
  if (demonstrating) $('demo-steps').replaceChildren(...items(state.demonstration!.steps));
  $('note-start').hidden = state.marking !== null || demonstrating;
  $('note-writing').hidden = state.marking === null;
  if (state.marking) $('note-marks').replaceChildren(...items(state.marking.length ? state.marking : ['nothing yet: click an element in the tab']));
}

async function refresh(): Promise<void> {
  const state = await teach('state');
  if (state.ok) render(state.answer as TeachState);
}

$('demo-start').addEventListener('click', () => void teach('demonstrate').then(refresh));
$('demo-discard').addEventListener('click', () => void teach('discard').then(refresh));
$('demo-stop').addEventListener('click', () => {
  void (async () => {
    const saved = await teach('stop', {
      name: $<HTMLInputElement>('routine-name').value.trim(),
      description: $<HTMLInputElement>('routine-description').value.trim() || undefined,
    });
    if (!saved.ok) return;
    const result = saved.answer as { name: string; steps: number; parameters: string[]; script?: string };
    $('demo-saved').hidden = false;
    $('demo-result').textContent = `Saved as routine ${result.name}: ${result.steps} steps; parameters ${result.parameters.join(', ') || 'none'}.`;
    $('demo-script').textContent = result.script ?? '';
    await refresh();
  })();
});
$('note-start').addEventListener('click', () => void teach('mark').then(refresh));
$('note-cancel').addEventListener('click', () => void teach('cancel').then(refresh));
$('note-send').addEventListener('click', () => {
  void (async () => {
    const sent = await teach('note', { text: $<HTMLTextAreaElement>('note-text').value });
    if (!sent.ok) return;
    const note = sent.answer as { id: string; marks: unknown[] };
    $('note-result').textContent = `Note ${note.id} sent, on ${note.marks.length} element(s): your agent reads it with its next look at the page.`;
    $<HTMLTextAreaElement>('note-text').value = '';
    await refresh();
  })();
});

void (async () => {
  const shown = (await chrome.runtime.sendMessage({ type: 'teachTab', tabId } satisfies OptionsRequest)) as { tab: SharedTab } | { error: string };
  if ('error' in shown) {
    $('error').textContent = shown.error;
    return;
  }
  $('tab-title').textContent = shown.tab.title || '(untitled)';
  $('tab-url').textContent = shown.tab.url;
  await refresh();
  setInterval(() => void refresh(), 700);
})();
