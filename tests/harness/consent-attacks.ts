import type { Protocol } from 'devtools-protocol';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * The consent boundary's attacks (spec §9), as a hostile client holding the
 * token tries them on a person's browser, whichever way it came in: the
 * extension's shared tabs (consent-boundary.test.ts) or the tabs a person
 * lent from their Chrome attached through its remote-debugging consent
 * (chrome-consent.test.ts). One tab is lent, on the shop site (127.0.0.1);
 * another, the bank (localhost), holds an HttpOnly session cookie and is
 * not. Each attack is made and shown refused; what the person's browser
 * holds is read outside the relay, through the test's own connection.
 */

export interface BoundaryScene {
  /** A client of the lent tabs, connected through the relay. */
  browser: Browser;
  /** The lent tab, as that client sees it. */
  lentPage: Page;
  /** The client's browser-level session, and one on the lent tab. */
  browserSession: CDPSession;
  pageSession: CDPSession;
  /** The unlent bank page, with its HttpOnly cookie. */
  bankUrl: string;
  bankSecret: string;
  /** The lent tab's origin. */
  lentOrigin: string;
  /** Every cookie of the person's browser, read outside the relay. */
  personCookies(): Promise<Array<{ name: string; value: string; domain: string }>>;
  /** Every page target of the person's browser, read outside the relay. */
  personPages(): Promise<Protocol.Target.TargetInfo[]>;
  /** `PUT /json/new?<url>` on the relay, as this way in's client would send it: its status. */
  jsonNew(url: string): Promise<number>;
}

const OUTSIDE = /outside the shared tabs' sites/;

/** Local files are never opened or navigated to. */
export async function refusesLocalFiles(scene: BoundaryScene): Promise<void> {
  await expect(scene.browserSession.send('Target.createTarget', { url: 'file:///etc/passwd' })).rejects.toThrow(/Navigation refused: file: URLs are refused/);
  await expect(scene.pageSession.send('Page.navigate', { url: 'file:///etc/hostname' })).rejects.toThrow(/Navigation refused: file: URLs are refused/);
  expect((await scene.personPages()).filter((target) => target.url.startsWith('file:'))).toEqual([]);
}

/** An extension's pages (or the browser's own) are never opened or navigated to. */
export async function refusesExtensionPages(scene: BoundaryScene, extensionPage: string): Promise<void> {
  await expect(scene.browserSession.send('Target.createTarget', { url: extensionPage })).rejects.toThrow(
    /Navigation refused: chrome-extension: URLs are refused/,
  );
  await expect(scene.pageSession.send('Page.navigate', { url: extensionPage })).rejects.toThrow(/Navigation refused/);
  await expect(scene.lentPage.goto(extensionPage)).rejects.toThrow(/Navigation refused/);
  expect(await scene.jsonNew(extensionPage)).toBe(400);
  expect((await scene.personPages()).filter((target) => target.url.startsWith('chrome-extension://'))).toEqual([]);
}

/** Cookie reads see the lent site only; naming the bank (read, write, delete, clear) is refused; its cookie stays. */
export async function scopesCookies(scene: BoundaryScene): Promise<void> {
  const { browserSession, pageSession, bankUrl } = scene;
  for (const answer of [
    await browserSession.send('Storage.getCookies'),
    await pageSession.send('Network.getAllCookies'),
    await pageSession.send('Network.getCookies'),
  ]) {
    const names = (answer as { cookies: Array<{ name: string }> }).cookies.map((cookie) => cookie.name);
    expect(names).toContain('shop');
    expect(names).not.toContain('bank-session');
  }
  expect(JSON.stringify(await browserSession.send('Storage.getCookies'))).not.toContain(scene.bankSecret);
  await expect(pageSession.send('Network.getCookies', { urls: [bankUrl] })).rejects.toThrow(OUTSIDE);
  await expect(pageSession.send('Network.setCookie', { name: 'planted', value: 'x', domain: 'localhost', path: '/' })).rejects.toThrow(OUTSIDE);
  await expect(pageSession.send('Network.deleteCookies', { name: 'bank-session', domain: 'localhost' })).rejects.toThrow(OUTSIDE);
  await expect(pageSession.send('Storage.clearDataForOrigin', { origin: new URL(bankUrl).origin, storageTypes: 'all' })).rejects.toThrow(OUTSIDE);
  await expect(browserSession.send('Storage.setCookies', { cookies: [{ name: 'planted', value: 'x', domain: 'localhost', path: '/' }] })).rejects.toThrow(
    OUTSIDE,
  );
  const cookies = await scene.personCookies();
  expect(cookies.find((cookie) => cookie.name === 'bank-session')?.value).toBe(scene.bankSecret);
  expect(cookies.some((cookie) => cookie.name === 'planted')).toBe(false);
}

/** Playwright's context.cookies(), addCookies() and clearCookies() work for the lent site, and only there. */
export async function scopesPlaywrightCookies(scene: BoundaryScene): Promise<void> {
  const context = scene.browser.contexts()[0];
  expect((await context.cookies()).map((cookie) => cookie.name)).toEqual(['shop']);
  await context.addCookies([{ name: 'added', value: 'by-playwright', url: scene.lentOrigin }]);
  expect(await scene.lentPage.evaluate(() => document.cookie)).toContain('added=by-playwright');
  await expect(context.addCookies([{ name: 'planted', value: 'x', url: new URL(scene.bankUrl).origin }])).rejects.toThrow(/outside/);
  await context.clearCookies();
  expect(await context.cookies()).toEqual([]);
  // What is left is the bank's, and clawd-browser's own logins (out of every client's reach).
  const left = (await scene.personCookies()).map((cookie) => cookie.name);
  expect(left.filter((name) => !name.startsWith('clawd_'))).toEqual(['bank-session']);
}

/**
 * clawd-browser's own logins: a person logged into its console (or its picker)
 * in the same browser has `clawd_*` cookies of 127.0.0.1, the lent site's
 * host. They never reach a client, and clawd's pages are never opened for one.
 */
export async function keepsClawdLoginsOut(scene: BoundaryScene, controlPort: number): Promise<void> {
  const { browserSession, pageSession } = scene;
  const consoleOrigin = `http://127.0.0.1:${controlPort}`;
  expect((await scene.personCookies()).some((cookie) => cookie.name.startsWith('clawd_'))).toBe(true);
  for (const [session, method] of [
    [browserSession, 'Storage.getCookies'],
    [pageSession, 'Network.getAllCookies'],
    [pageSession, 'Network.getCookies'],
  ] as const) {
    const { cookies } = (await session.send(method as 'Network.getAllCookies')) as { cookies: Array<{ name: string }> };
    expect(
      cookies.filter((cookie) => cookie.name.startsWith('clawd_')),
      method,
    ).toEqual([]);
  }
  expect(await scene.browser.contexts()[0].cookies()).not.toContainEqual(expect.objectContaining({ name: expect.stringMatching(/^clawd_/) }));
  await expect(pageSession.send('Network.setCookie', { name: 'clawd_dashboard', value: 'planted', domain: '127.0.0.1', path: '/' })).rejects.toThrow(
    /clawd-browser's own login cookies/,
  );
  await expect(pageSession.send('Network.deleteCookies', { name: 'clawd_dashboard', domain: '127.0.0.1' })).rejects.toThrow(
    /clawd-browser's own login cookies/,
  );
  await expect(browserSession.send('Target.createTarget', { url: `${consoleOrigin}/` })).rejects.toThrow(/Navigation refused: clawd-browser's own pages/);
  await expect(pageSession.send('Page.navigate', { url: `http://localhost:${controlPort}/sessions` })).rejects.toThrow(
    /Navigation refused: clawd-browser's own pages/,
  );
  expect(await scene.jsonNew(`${consoleOrigin}/`)).toBe(403);
}

/** Tabs that are not lent do not exist for the client, by any Target or Browser method it could try. */
export async function hidesUnlentTabs(scene: BoundaryScene, unlent: string[]): Promise<void> {
  const { browserSession } = scene;
  const { targetInfos } = (await browserSession.send('Target.getTargets')) as Protocol.Target.GetTargetsResponse;
  for (const targetId of unlent) {
    expect(targetInfos.map((target) => target.targetId)).not.toContain(targetId);
    for (const method of ['Target.attachToTarget', 'Target.getTargetInfo', 'Target.activateTarget', 'Target.closeTarget'] as const)
      await expect(browserSession.send(method, { targetId, flatten: true } as never), method).rejects.toThrow(/No target with given id found/);
  }
  // Discovery of every kind of target announces the lent tabs only.
  const announced: string[] = [];
  const onCreated = (event: Protocol.Target.TargetCreatedEvent) => announced.push(event.targetInfo.targetId);
  browserSession.on('Target.targetCreated', onCreated);
  const answers: string[] = [];
  for (const [method, params] of [
    ['Target.setDiscoverTargets', { discover: true, filter: [{}] }],
    ['Browser.getWindowForTarget', {}],
    ['SystemInfo.getProcessInfo', {}],
    ['Target.exposeDevToolsProtocol', { targetId: unlent[0] }],
  ] as const) {
    const answer = await browserSession.send(method as never, params as never).then(
      (result) => ({ method, result }),
      (error: Error) => ({ method, error: error.message }),
    );
    answers.push(JSON.stringify(answer));
  }
  await browserSession.send('Target.setDiscoverTargets', { discover: false });
  browserSession.off('Target.targetCreated', onCreated);
  // Refused, or answered by the relay's own emulation, which knows only the lent tabs.
  for (const targetId of unlent) {
    expect(answers.join('\n')).not.toContain(targetId);
    expect(announced).not.toContain(targetId);
  }
  expect(announced.length).toBeGreaterThan(0);
}

/**
 * clawd-browser's own origins are out of a lent tab's reach, whatever makes
 * the request: a script's fetch and image with the person's cookies, a URL
 * rewritten in `Fetch.continueRequest`, the deprecated interception, and
 * the browser's own navigation through a redirect, with the client
 * intercepting responses to read the answer's body. `target` is one of
 * clawd's pages the person's browser holds the cookie of (the picker's tab
 * list, the console's sessions), `secrets` what its answer would show;
 * `redirector` answers `?to=<url>` with a 302 there, and any other request
 * with a page. The navigations are made in a tab the client opens, which
 * ends at clawd's origin (an error page) and is taken back: `closeInPerson`
 * closes it in the person's browser.
 */
export async function reachesNoOwnOrigin(
  scene: BoundaryScene,
  options: { target: string; redirector: string; secrets: string[]; closeInPerson(targetId: string): Promise<void> },
): Promise<void> {
  const { target, redirector, secrets } = options;
  const ownOrigin = new URL(target).origin;
  const probe = await scene.browser.contexts()[0].newPage();
  await probe.goto(`${redirector}?start=1`);
  const session = await scene.browser.contexts()[0].newCDPSession(probe);
  const targetId = ((await session.send('Target.getTargetInfo')) as Protocol.Target.GetTargetInfoResponse).targetInfo.targetId;
  const heard: string[] = [];
  const bodies: string[] = [];
  let rewrite: Promise<string> | undefined;
  session.on('Fetch.requestPaused', (event: Protocol.Fetch.RequestPausedEvent) => {
    heard.push(event.request.url);
    void (async () => {
      if (event.request.url.includes('rewrite=1')) {
        // The client's own rewrite of a request onto clawd's origin.
        rewrite = session.send('Fetch.continueRequest', { requestId: event.requestId, url: target }).then(
          () => 'continued',
          (error: Error) => error.message,
        );
        await rewrite;
        return void (await session.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => {}));
      }
      if (event.request.url.startsWith(ownOrigin) && event.responseStatusCode !== undefined) {
        const body = (await session.send('Fetch.getResponseBody', { requestId: event.requestId }).catch(() => undefined)) as
          { body: string; base64Encoded: boolean } | undefined;
        if (body) bodies.push(body.base64Encoded ? Buffer.from(body.body, 'base64').toString() : body.body);
      }
      await session
        .send(event.responseStatusCode !== undefined ? 'Fetch.continueResponse' : 'Fetch.continueRequest', { requestId: event.requestId })
        .catch(() => {});
    })();
  });
  const fromScript = () =>
    probe.evaluate(async (url) => {
      const fetched = await fetch(url, { credentials: 'include' }).then(
        async (answer) => `${answer.status} ${await answer.text()}`,
        () => 'failed',
      );
      const image = await new Promise<string>((resolve) => {
        const img = new Image();
        img.onload = () => resolve('loaded');
        img.onerror = () => resolve('error');
        img.src = url;
      });
      return { fetched, image };
    }, target);
  await session.send('Fetch.enable', {
    patterns: [
      { urlPattern: '*rewrite=1*', requestStage: 'Request' },
      { urlPattern: '*', requestStage: 'Response' },
    ],
  });
  // The script's ways: fetch with the person's cookies, an image. None reaches the server.
  expect(await fromScript()).toEqual({ fetched: 'failed', image: 'error' });
  await probe.goto(`${redirector}?rewrite=1`);
  expect(await rewrite).toMatch(/Fetch\.continueRequest refused: clawd-browser's own pages/);
  await expect(session.send('Network.setRequestInterception' as 'Network.enable', { patterns: [{ urlPattern: '*' }] } as never)).rejects.toThrow(
    /not forwarded/,
  );
  // With the client's interception off, the ports stay offline.
  await session.send('Fetch.disable');
  expect(await fromScript()).toEqual({ fetched: 'failed', image: 'error' });
  // The browser's own navigation, through a redirect onto clawd's page, the client reading every response: blocked at the hop.
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Response' }] });
  await navigatesNowhere(probe, session, `${redirector}?to=${encodeURIComponent(target)}`);
  // And in a tab where nothing of the client's intercepts: the browser's own network stack has clawd's ports offline.
  const plain = await scene.browser.contexts()[0].newPage();
  await plain.goto(`${redirector}?start=2`);
  const plainSession = await scene.browser.contexts()[0].newCDPSession(plain);
  const plainId = ((await plainSession.send('Target.getTargetInfo')) as Protocol.Target.GetTargetInfoResponse).targetInfo.targetId;
  // The client's own network conditions, older and newer, go after the relay's: they put nothing back online.
  await plainSession.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  expect(
    await plainSession.send('Network.emulateNetworkConditionsByRule', {
      matchedNetworkConditions: [{ urlPattern: '', offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }],
    }),
  ).toEqual({ ruleIds: [expect.any(String)] });
  await navigatesNowhere(plain, plainSession, `${redirector}?to=${encodeURIComponent(target)}`);
  await options.closeInPerson(plainId);
  expect(heard.filter((url) => url.startsWith(ownOrigin))).toEqual([]);
  expect(bodies).toEqual([]);
  for (const secret of secrets) expect(JSON.stringify([heard, bodies]), secret).not.toContain(secret);
  await options.closeInPerson(targetId);
}

/** A navigation onto clawd's origin fails in the browser (blocked, or offline there), and the tab, standing there now, is taken back. */
async function navigatesNowhere(page: Page, session: CDPSession, url: string): Promise<void> {
  const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
  const navigated = (await session.send('Page.navigate', { url })) as Protocol.Page.NavigateResponse;
  expect(navigated.errorText).toMatch(/^net::ERR_(BLOCKED_BY_CLIENT|INTERNET_DISCONNECTED)$/);
  await closed;
}
