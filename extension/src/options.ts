import type { ExtensionStatus, OptionsRequest } from './status';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const STATE_TEXT: Record<ExtensionStatus['link'], string> = {
  open: 'connected',
  connecting: 'connecting…',
  authenticating: 'checking the relay…',
  waiting: 'not connected (retrying)',
  unpaired: 'not paired',
};

async function ask(request: OptionsRequest): Promise<ExtensionStatus | { error: string }> {
  return chrome.runtime.sendMessage(request);
}

function render(status: ExtensionStatus): void {
  const state = $('state');
  state.textContent = STATE_TEXT[status.link];
  state.className = `state-${status.link}`;
  $('relay').textContent = status.relayUrl ?? '—';
  $('paired').textContent = status.pairedVia === 'native-host' ? 'by the native host' : status.pairedVia ? 'by hand' : 'no';
  $('error').textContent = status.lastError ?? '—';
  $('native-host').textContent = {
    available: 'installed',
    missing: 'not installed: run `clawd-browser install-native-host` (or pair by hand below)',
    failing: `installed, but failing: ${status.nativeHostError ?? 'unknown error'}`,
    unknown: 'not asked yet',
  }[status.nativeHost];
  const list = $('tabs');
  list.replaceChildren(
    ...(status.tabs.length
      ? status.tabs.map((tab) => Object.assign(document.createElement('li'), { textContent: `${tab.title || '(untitled)'} — ${tab.url}` }))
      : [Object.assign(document.createElement('li'), { textContent: 'none: click the toolbar button on a tab to share it' })]),
  );
  const relayInput = $<HTMLInputElement>('relayUrl');
  if (!relayInput.value && status.relayUrl) relayInput.value = status.relayUrl;
}

async function refresh(): Promise<void> {
  const status = await ask({ type: 'status' });
  if ('error' in status) return;
  render(status);
}

$<HTMLFormElement>('pair').addEventListener('submit', (event) => {
  event.preventDefault();
  void (async () => {
    const answer = await ask({ type: 'pair', relayUrl: $<HTMLInputElement>('relayUrl').value, key: $<HTMLInputElement>('key').value });
    $('saved').textContent = 'error' in answer ? `Not saved: ${answer.error}` : 'Saved.';
    if (!('error' in answer)) render(answer);
  })();
});

void refresh();
setInterval(() => void refresh(), 1000);
