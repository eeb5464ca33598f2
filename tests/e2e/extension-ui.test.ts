import { afterEach, describe, expect, it } from 'vitest';
import { EXTENSION_ID } from '../../protocol/constants.js';
import { openTab, tabTargetForPage, waitFor } from '../harness/chromium.js';
import { badgeOf, type RelayEnv, startRelayEnv } from '../harness/relay-env.js';

/** What the user sees: the per-tab badge and tooltip, and the options page. */

let env: RelayEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

async function navigate(cdp: RelayEnv['browser']['cdp'], pageTargetId: string, url: string): Promise<void> {
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: pageTargetId, flatten: true });
  await cdp.send('Page.navigate', { url }, sessionId);
  await cdp.send('Target.detachFromTarget', { sessionId });
}

async function badgeBecomes(env: RelayEnv, pageTargetId: string, text: string): Promise<{ text: string; title: string }> {
  let badge = { text: '?', title: '' };
  await waitFor(async () => (badge = await badgeOf(env.browser.cdp, pageTargetId)).text === text, {
    timeoutMs: 10_000,
    message: `badge never became ${JSON.stringify(text)}`,
  });
  return badge;
}

describe('the toolbar badge', () => {
  it('shows ON while shared (across navigations), … while the relay is away, nothing once un-shared', async () => {
    env = await startRelayEnv({ reconnectGraceMs: 60_000 });
    const { pageTargetId, tabTargetId } = await env.share(env.fixtures.url('index.html'));
    expect(await badgeBecomes(env, pageTargetId, 'ON')).toEqual({ text: 'ON', title: 'clawd-browser: this tab is shared with your agent (click to stop)' });

    // Chrome clears per-tab badges on navigation; the extension puts it back.
    await navigate(env.browser.cdp, pageTargetId, env.fixtures.url('frame-child.html'));
    await waitFor(() => env!.relay.bridge.sharedTabs()[0]?.title === 'Frame Child', { message: 'navigation not seen' });
    expect((await badgeBecomes(env, pageTargetId, 'ON')).text).toBe('ON');

    await env.relay.close();
    const connecting = await badgeBecomes(env, pageTargetId, '…');
    expect(connecting.title).toMatch(/connecting to the clawd-browser relay/);
    await env.restartRelay(0);
    await badgeBecomes(env, pageTargetId, 'ON');

    await env.click(tabTargetId);
    expect(await badgeBecomes(env, pageTargetId, '')).toEqual({ text: '', title: 'clawd-browser: click to share this tab' });
    await waitFor(() => !env!.isShared(pageTargetId), { message: 'still shared after the second click' });
  });

  it('suspends sharing on a page Chrome will not let it debug, and resumes when the tab leaves it', async () => {
    env = await startRelayEnv();
    const { pageTargetId } = await env.share(env.fixtures.url('index.html'));
    await navigate(env.browser.cdp, pageTargetId, 'chrome://version');
    await waitFor(() => env!.relay.bridge.sharedTabs().length === 0, { message: 'relay still lists the tab on chrome://version' });
    const suspended = await badgeBecomes(env, pageTargetId, '!');
    expect(suspended.title).toMatch(/sharing resumes when the tab leaves this page/);

    await navigate(env.browser.cdp, pageTargetId, env.fixtures.url('index.html?resumed=1'));
    await waitFor(() => env!.relay.bridge.sharedTabs().some((t) => t.url.endsWith('resumed=1')), { message: 'sharing did not resume' });
    expect((await badgeBecomes(env, pageTargetId, 'ON')).text).toBe('ON');
  });

  it('says so, and opens the options page, when clicked before pairing', async () => {
    env = await startRelayEnv({}, { pair: false });
    const { pageTargetId, tabTargetId } = await openTab(env.browser.cdp, env.fixtures.url('index.html'));
    // Let the page finish loading first: a committing navigation clears tab badges.
    await waitFor(async () => (await env!.browser.cdp.send('Target.getTargetInfo', { targetId: pageTargetId })).targetInfo.title === 'Fixture Home', {
      message: 'page did not load',
    });
    await env.click(tabTargetId);
    const badge = await badgeBecomes(env, pageTargetId, '!');
    expect(badge.title).toMatch(/not paired with the relay/);
    await waitFor(
      async () =>
        ((await env!.browser.cdp.send('Target.getTargets')).targetInfos as Array<{ url: string }>).some(
          (t) => t.url === `chrome-extension://${EXTENSION_ID}/options.html`,
        ),
      { message: 'options page did not open' },
    );
    expect(env.relay.bridge.sharedTabs()).toEqual([]);
  });
});

describe('the options page', () => {
  it('pairs by hand, then shows the connection and the shared tabs', async () => {
    env = await startRelayEnv({}, { pair: false });
    const cdp = env.browser.cdp;
    const { targetId } = await cdp.send('Target.createTarget', { url: `chrome-extension://${EXTENSION_ID}/options.html` });
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
    const evaluate = async (expression: string) =>
      (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, sessionId)).result.value;
    await waitFor(async () => (await evaluate(`document.getElementById('state')?.textContent`)) === 'not paired', { message: 'options page did not load' });

    // What a user types: the relay address in the form users see, and the extension key.
    await evaluate(`(() => {
      document.getElementById('relayUrl').value = 'http://127.0.0.1:${env.relay.port}/';
      document.getElementById('key').value = ${JSON.stringify(env.extensionKey)};
      document.getElementById('pair').requestSubmit();
    })()`);
    await waitFor(() => env!.relay.bridge.extensionState === 'connected', { timeoutMs: 15_000, message: 'extension did not connect after manual pairing' });
    await waitFor(async () => (await evaluate(`document.getElementById('state').textContent`)) === 'connected', {
      message: 'options page did not show connected',
    });
    expect(await evaluate(`document.getElementById('relay').textContent`)).toBe(`ws://127.0.0.1:${env.relay.port}`);
    expect(await evaluate(`document.getElementById('paired').textContent`)).toBe('by hand');

    const tab = await openTab(cdp, env.fixtures.url('index.html?listed=1'));
    await env.click((await tabTargetForPage(cdp, tab.pageTargetId)).targetId);
    await waitFor(async () => String(await evaluate(`document.getElementById('tabs').textContent`)).includes('listed=1'), {
      message: 'shared tab not listed on the options page',
    });

    // A bad address is refused with a reason, and the pairing is kept.
    await evaluate(`(() => { document.getElementById('relayUrl').value = 'ftp://nope'; document.getElementById('pair').requestSubmit(); })()`);
    await waitFor(async () => String(await evaluate(`document.getElementById('saved').textContent`)).startsWith('Not saved'), { message: 'bad URL accepted' });
    expect(env.relay.bridge.extensionState).toBe('connected');
  });
});
