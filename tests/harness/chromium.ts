// Launches real Chromium for tests and offers a few CDP helpers on top of PipeCdp.
//
// We talk to the browser over --remote-debugging-pipe rather than a WebSocket
// because the Extensions.* domain (triggerAction, storage) is only exposed to
// pipe clients, and only with --enable-unsafe-extension-debugging.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Protocol } from 'devtools-protocol';
import { PipeCdp } from './pipe-cdp.js';

type TargetInfo = Protocol.Target.TargetInfo;

const STDERR_TAIL_LINES = 50;
const LAUNCH_TIMEOUT_MS = 30_000;
const CLOSE_GRACE_MS = 5_000;

export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(`Chromium not found at ${path}. Install it or set CHROMIUM_PATH to the browser executable.`);
  }
  return path;
}

export interface LaunchOptions {
  /** Profile directory; a temporary one (deleted on close) is used when omitted. */
  userDataDir?: string;
  /** Unpacked extension to load (and the only one allowed). */
  extensionDir?: string;
  /** Also expose a WebSocket/HTTP debugging port; 0 lets Chromium pick one. */
  remoteDebuggingPort?: number;
  extraArgs?: string[];
}

export interface LaunchedChromium {
  /** Browser-level CDP session over the pipe. */
  cdp: PipeCdp;
  process: ChildProcess;
  userDataDir: string;
  /** ws://127.0.0.1:PORT/devtools/browser/ID, when remoteDebuggingPort was given. */
  wsEndpoint?: string;
  /** http://127.0.0.1:PORT, when remoteDebuggingPort was given. */
  httpEndpoint?: string;
  /** Last lines Chromium wrote to stderr, for diagnosing failures. */
  stderrTail(): string;
  close(): Promise<void>;
}

/** How every test runs Chromium here: headless, as root, and quiet on a closed network. */
export const HEADLESS_TEST_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A test's downloads stay in its own profile, never in the machine's
 * ~/Downloads, where every run would leave its files and the next run's
 * names would be made unique against them. A profile that already has
 * preferences keeps them.
 */
async function keepDownloadsInProfile(userDataDir: string): Promise<void> {
  const preferences = join(userDataDir, 'Default', 'Preferences');
  if (existsSync(preferences)) return;
  await mkdir(join(userDataDir, 'Default'), { recursive: true });
  const download = { default_directory: join(userDataDir, 'Downloads'), prompt_for_download: false };
  await writeFile(preferences, JSON.stringify({ download, savefile: { default_directory: download.default_directory } }));
}

export async function launchChromium(opts: LaunchOptions = {}): Promise<LaunchedChromium> {
  const executable = chromiumPath();
  const ownsUserDataDir = !opts.userDataDir;
  const userDataDir = opts.userDataDir ?? (await mkdtemp(join(tmpdir(), 'harness-chromium-')));
  await keepDownloadsInProfile(userDataDir);

  const args = [
    ...HEADLESS_TEST_FLAGS,
    '--disable-default-apps',
    '--no-default-browser-check',
    '--remote-debugging-pipe',
    '--enable-unsafe-extension-debugging',
    `--user-data-dir=${userDataDir}`,
  ];
  if (opts.extensionDir) {
    args.push(`--disable-extensions-except=${opts.extensionDir}`, `--load-extension=${opts.extensionDir}`);
  }
  if (opts.remoteDebuggingPort !== undefined) {
    args.push(`--remote-debugging-port=${opts.remoteDebuggingPort}`);
  }
  args.push(...(opts.extraArgs ?? []), 'about:blank');

  // fd 3 is Chromium's input pipe, fd 4 its output pipe.
  const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  // A failed spawn emits 'error' and never 'exit'; either way there is no process left.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));

  const stderrLines: string[] = [];
  let partialLine = '';
  let onStderrLine: ((line: string) => void) | undefined;
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    const lines = (partialLine + chunk).split('\n');
    partialLine = lines.pop()!;
    for (const line of lines) {
      onStderrLine?.(line);
      // Without a system bus Chromium logs dozens of D-Bus errors; they would
      // push the lines that explain a failure out of the tail.
      if (line.includes(':ERROR:dbus/')) continue;
      stderrLines.push(line);
    }
    stderrLines.splice(0, Math.max(0, stderrLines.length - STDERR_TAIL_LINES));
  });
  const stderrTail = () => [...stderrLines, partialLine].filter(Boolean).join('\n');

  const cdp = new PipeCdp(child.stdio[3] as Writable, child.stdio[4] as Readable);

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
        // Browser.close may never answer if the browser is wedged; the kill timer covers that.
        cdp.send('Browser.close').catch(() => {});
        const killTimer = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
        await exited;
        clearTimeout(killTimer);
      }
      cdp.close();
      if (ownsUserDataDir) {
        // Chromium's helper processes can still be letting go of files for a moment.
        await rm(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      }
    })());

  const wsEndpoint =
    opts.remoteDebuggingPort === undefined
      ? undefined
      : new Promise<string>((resolve) => {
          // Set up before any stderr data can arrive (no await since spawn).
          onStderrLine = (line) => {
            const url = /DevTools listening on (ws:\/\/\S+)/.exec(line)?.[1];
            if (url) resolve(url);
          };
        });
  let launchTimer: NodeJS.Timeout | undefined;
  try {
    // Chromium answers on the pipe only once the browser is up, so a successful
    // round trip doubles as the readiness check.
    const ready = Promise.all([cdp.send('Browser.getVersion'), wsEndpoint]);
    const timeout = new Promise<never>((_, reject) => {
      launchTimer = setTimeout(() => reject(new Error(`timed out after ${LAUNCH_TIMEOUT_MS} ms`)), LAUNCH_TIMEOUT_MS);
    });
    const exitedEarly = exited.then(() => {
      throw new Error('Chromium exited during startup');
    });
    const [, ws] = await Promise.race([ready, timeout, spawnError, exitedEarly]);
    onStderrLine = undefined;
    return {
      cdp,
      process: child,
      userDataDir,
      wsEndpoint: ws,
      httpEndpoint: ws ? `http://${new URL(ws).host}` : undefined,
      stderrTail,
      close,
    };
  } catch (error) {
    await close();
    const reason = error instanceof Error ? error.message : String(error);
    // The pipe usually closes before 'exit' fires, so the exit status is only known after close().
    const status = child.exitCode !== null || child.signalCode !== null ? ` (process exited with code ${child.exitCode}, signal ${child.signalCode})` : '';
    throw new Error(`Failed to launch Chromium (${executable}): ${reason}${status}\n--- last stderr lines ---\n${stderrTail()}`, { cause: error });
  } finally {
    clearTimeout(launchTimer);
  }
}

export async function tabTargets(cdp: PipeCdp): Promise<TargetInfo[]> {
  const { targetInfos } = await cdp.send<Protocol.Target.GetTargetsResponse>('Target.getTargets', {
    filter: [{ type: 'tab' }],
  });
  return targetInfos;
}

export async function pageTargets(cdp: PipeCdp): Promise<TargetInfo[]> {
  const { targetInfos } = await cdp.send<Protocol.Target.GetTargetsResponse>('Target.getTargets', {
    filter: [{ type: 'page' }],
  });
  return targetInfos;
}

/**
 * Finds the tab target that hosts a page target.
 *
 * Tab and page targets have different IDs and TargetInfo carries no link
 * between them. Target.getTargets on a tab session is not scoped to that tab
 * (it lists every target), and matching by URL breaks when two tabs show the
 * same page. What does work in Chromium 156: attach to each tab (flatten) and
 * call Target.setAutoAttach on that session; Chromium then reports the tab's
 * page (its only direct child) via Target.attachedToTarget for that session,
 * before the setAutoAttach reply. We detach again so nothing stays attached.
 */
export async function tabTargetForPage(cdp: PipeCdp, pageTargetId: string): Promise<TargetInfo> {
  for (const tab of await tabTargets(cdp)) {
    if ((await pageOfTab(cdp, tab.targetId)) === pageTargetId) return tab;
  }
  throw new Error(`No tab target hosts page target ${pageTargetId}`);
}

async function pageOfTab(cdp: PipeCdp, tabTargetId: string): Promise<string | undefined> {
  let tabSession: string;
  try {
    ({ sessionId: tabSession } = await cdp.send<Protocol.Target.AttachToTargetResponse>('Target.attachToTarget', { targetId: tabTargetId, flatten: true }));
  } catch {
    return undefined; // The tab closed between listing and attaching.
  }
  const children: Protocol.Target.AttachedToTargetEvent[] = [];
  const onAttached = (event: Protocol.Target.AttachedToTargetEvent, parentSession?: string) => {
    if (parentSession === tabSession) children.push(event);
  };
  cdp.on('Target.attachedToTarget', onAttached);
  try {
    try {
      await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, tabSession);
    } catch {
      return undefined; // The tab closed after the attach (its session is gone): it hosts nothing.
    }
    return children.find((child) => child.targetInfo.type === 'page')?.targetInfo.targetId;
  } finally {
    cdp.off('Target.attachedToTarget', onAttached);
    for (const child of children) {
      await cdp.send('Target.detachFromTarget', { sessionId: child.sessionId }).catch(() => {});
    }
    await cdp.send('Target.detachFromTarget', { sessionId: tabSession }).catch(() => {});
  }
}

/** Opens a new tab at url; Target.createTarget returns the page target, so we look up its tab. */
export async function openTab(cdp: PipeCdp, url: string): Promise<{ pageTargetId: string; tabTargetId: string }> {
  const { targetId: pageTargetId } = await cdp.send<Protocol.Target.CreateTargetResponse>('Target.createTarget', { url });
  const tab = await tabTargetForPage(cdp, pageTargetId);
  return { pageTargetId, tabTargetId: tab.targetId };
}

/**
 * Simulates a click on the extension's toolbar button in the given tab (needs a tab target ID),
 * brought to the front first.
 *
 * Chromium 156 does not validate the extension ID here: an ID that is not
 * loaded crashes the whole browser (the pipe just closes). So check first.
 */
export async function triggerExtensionAction(cdp: PipeCdp, extensionId: string, tabTargetId: string): Promise<void> {
  const { extensions } = await cdp.send<Protocol.Extensions.GetExtensionsResponse>('Extensions.getExtensions');
  if (!extensions.some((e) => e.id === extensionId && e.enabled)) {
    const loaded = extensions.map((e) => `${e.id} (${e.name})`).join(', ') || 'none';
    throw new Error(`Extension ${extensionId} is not loaded and enabled; loaded unpacked extensions: ${loaded}`);
  }
  // Chromium acts on the active tab whatever targetId says; a person clicks in the tab in front.
  const page = await pageOfTab(cdp, tabTargetId);
  if (page) await cdp.send('Target.activateTarget', { targetId: page });
  await cdp.send('Extensions.triggerAction', { id: extensionId, targetId: tabTargetId });
}

export type ExtensionStorageArea = 'local' | 'session' | 'sync';

export async function setExtensionStorage(cdp: PipeCdp, extensionId: string, area: ExtensionStorageArea, values: Record<string, unknown>): Promise<void> {
  await withExtensionSession(cdp, extensionId, (sessionId) =>
    cdp.send('Extensions.setStorageItems', { id: extensionId, storageArea: area, values }, sessionId),
  );
}

export async function getExtensionStorage(cdp: PipeCdp, extensionId: string, area: ExtensionStorageArea, keys?: string[]): Promise<Record<string, any>> {
  const { data } = await withExtensionSession(cdp, extensionId, (sessionId) =>
    cdp.send<Protocol.Extensions.GetStorageItemsResponse>(
      'Extensions.getStorageItems',
      { id: extensionId, storageArea: area, ...(keys ? { keys } : {}) },
      sessionId,
    ),
  );
  return data;
}

/**
 * Runs fn with a CDP session attached to one of the extension's own contexts.
 *
 * Extensions.get/setStorageItems fail on the browser session ("No associated
 * browser context.") and on ordinary pages ("Extension not found."): Chromium
 * only serves them to a session whose target is the extension's service
 * worker or a page hosting an extension frame. We use the worker when it is
 * running. MV3 workers stop after ~30 s idle, so otherwise we open a throwaway
 * tab on the extension's manifest.json; note the extension can observe that
 * tab (chrome.tabs events) while it exists.
 */
async function withExtensionSession<T>(cdp: PipeCdp, extensionId: string, fn: (sessionId: string) => Promise<T>): Promise<T> {
  const { targetInfos } = await cdp.send<Protocol.Target.GetTargetsResponse>('Target.getTargets', {
    filter: [{ type: 'service_worker' }],
  });
  const worker = targetInfos.find((t) => t.url.startsWith(`chrome-extension://${extensionId}/`));
  if (worker) {
    const attached = await cdp
      .send<Protocol.Target.AttachToTargetResponse>('Target.attachToTarget', {
        targetId: worker.targetId,
        flatten: true,
      })
      .catch(() => undefined); // The worker stopped since we listed it: use a page instead.
    if (attached) {
      try {
        return await fn(attached.sessionId);
      } finally {
        await cdp.send('Target.detachFromTarget', { sessionId: attached.sessionId }).catch(() => {});
      }
    }
  }

  const { targetId } = await cdp.send<Protocol.Target.CreateTargetResponse>('Target.createTarget', {
    url: `chrome-extension://${extensionId}/manifest.json`,
    background: true,
  });
  try {
    const { sessionId } = await cdp.send<Protocol.Target.AttachToTargetResponse>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    return await fn(sessionId);
  } finally {
    // closeTarget answers before the target is gone; wait so callers that
    // list targets next don't see our throwaway tab.
    await cdp.send('Target.closeTarget', { targetId }).catch(() => {});
    await waitFor(async () => !(await pageTargets(cdp)).some((t) => t.targetId === targetId), {
      timeoutMs: 2_000,
      intervalMs: 20,
    }).catch(() => {});
  }
}

/**
 * Waits for the extension's background service worker target. Pass an empty
 * extensionId to accept any extension's worker (handy for discovering the ID
 * of an unpacked extension from the worker URL).
 */
export async function extensionServiceWorkerTarget(cdp: PipeCdp, extensionId: string, timeoutMs = 10_000): Promise<TargetInfo> {
  const prefix = `chrome-extension://${extensionId}`;
  let found: TargetInfo | undefined;
  // Polling getTargets (rather than listening for targetCreated) also finds a
  // worker that started before we were called.
  await waitFor(
    async () => {
      const { targetInfos } = await cdp.send<Protocol.Target.GetTargetsResponse>('Target.getTargets', {
        filter: [{ type: 'service_worker' }],
      });
      found = targetInfos.find((t) => t.url.startsWith(extensionId ? `${prefix}/` : prefix));
      return found !== undefined;
    },
    { timeoutMs, message: `service worker for extension ${extensionId || '(any)'} did not appear` },
  );
  return found!;
}

export async function waitFor(
  predicate: () => Promise<boolean> | boolean,
  {
    timeoutMs = 10_000,
    intervalMs = 100,
    message = 'condition',
  }: {
    timeoutMs?: number;
    intervalMs?: number;
    message?: string;
  } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeoutMs} ms: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Evaluates an expression in the extension's service worker (to read what
 * the user would see: badges, tooltips) and returns its JSON-able value.
 */
export async function evaluateInWorker<T = unknown>(cdp: PipeCdp, extensionId: string, expression: string): Promise<T> {
  // A worker that is just starting has a JS context before its extension
  // bindings: `chrome` is then undefined for a moment. Ask again.
  for (let attempt = 0; ; attempt++) {
    try {
      return await evaluateInWorkerOnce<T>(cdp, extensionId, expression);
    } catch (error) {
      if (attempt >= 10 || !/chrome is not defined/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function evaluateInWorkerOnce<T>(cdp: PipeCdp, extensionId: string, expression: string): Promise<T> {
  const worker = await extensionServiceWorkerTarget(cdp, extensionId, 15_000);
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  try {
    const contextId = await new Promise<number>((resolve) => {
      const listener = (params: { context: { id: number } }, from?: string) => {
        if (from !== sessionId) return;
        cdp.off('Runtime.executionContextCreated', listener);
        resolve(params.context.id);
      };
      cdp.on('Runtime.executionContextCreated', listener);
      void cdp.send('Runtime.enable', {}, sessionId);
    });
    const answer = await cdp.send('Runtime.evaluate', { expression, contextId, awaitPromise: true, returnByValue: true }, sessionId);
    if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text);
    return answer.result.value as T;
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

/**
 * Waits until the extension's worker has registered its toolbar listener.
 * Right after Chromium starts, the worker may still be starting, and a
 * click that arrives before the listener exists is dropped by Chrome.
 */
export async function extensionReady(cdp: PipeCdp, extensionId: string): Promise<void> {
  await waitFor(() => evaluateInWorker<boolean>(cdp, extensionId, 'chrome.action.onClicked.hasListeners()'), {
    timeoutMs: 15_000,
    message: 'the extension worker never registered its toolbar listener',
  });
}
