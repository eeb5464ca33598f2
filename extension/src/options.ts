import type { ConsentRequest, ExtensionStatus, OptionsRequest } from './status';
import { SHARE_MODE_KEY, shareModeOf } from './tab-groups';

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

/** Opened as options.html#consent=<id>: the person decides which sites' cookies may be saved. */
async function showConsent(id: number): Promise<void> {
  const asked = (await chrome.runtime.sendMessage({ type: 'consent', id } satisfies OptionsRequest)) as ConsentRequest | { error: string };
  const section = $('consent');
  section.hidden = false;
  if ('error' in asked) {
    $('consent-error').textContent = asked.error;
    return;
  }
  $('consent-tenant').textContent = asked.tenant;
  $('consent-domains').replaceChildren(
    ...asked.domains.map((domain) => {
      const item = document.createElement('li');
      const label = document.createElement('label');
      const box = Object.assign(document.createElement('input'), { type: 'checkbox', checked: true, value: domain });
      box.style.width = 'auto';
      label.append(box, ` ${domain}`);
      item.append(label);
      return item;
    }),
  );
  const answer = (allowed: boolean) => {
    const domains = [...document.querySelectorAll<HTMLInputElement>('#consent-domains input:checked')].map((box) => box.value);
    void chrome.runtime.sendMessage({ type: 'consentAnswer', id, allowed, domains } satisfies OptionsRequest);
  };
  $('consent-allow').addEventListener('click', () => answer(true));
  $('consent-deny').addEventListener('click', () => answer(false));
}

const consentId = /^#consent=(\d+)$/.exec(location.hash)?.[1];
if (consentId) void showConsent(Number(consentId));

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
      ? status.tabs.map((tab) => {
          const item = Object.assign(document.createElement('li'), { textContent: `${tab.title || '(untitled)'} — ${tab.url} ` });
          // Its Teach page: a demonstration, or a note to the agent, in this tab.
          item.append(
            Object.assign(document.createElement('a'), { href: `teach.html?tab=${tab.tabId}`, target: '_blank', textContent: 'Teach…', className: 'teach' }),
          );
          return item;
        })
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

// What a click shares (tab-groups.ts): stored where the worker reads it, and applied at once.
void (async () => {
  const mode = shareModeOf((await chrome.storage.local.get(SHARE_MODE_KEY))[SHARE_MODE_KEY]);
  for (const radio of document.querySelectorAll<HTMLInputElement>('#share-mode input[name=mode]')) {
    radio.checked = radio.value === mode;
    radio.addEventListener('change', () => void chrome.storage.local.set({ [SHARE_MODE_KEY]: radio.value }));
  }
})();
