import { EXTENSION_ID } from '../protocol/constants.js';
import { extensionServiceWorkerTarget, type LaunchedChromium } from '../tests/harness/chromium.js';

/** chrome.debugger.sendCommand alone, timed inside the extension's worker (ms, ops/s). */
export interface Floor {
  p50: number;
  p99: number;
  throughput: number;
  screenshot: number;
}

/**
 * Evaluates an async expression in the extension's worker and returns its
 * JSON answer. The worker's own timers are coarsened to 0.1 ms.
 */
export async function runInWorker<T>(cdp: LaunchedChromium['cdp'], source: string): Promise<T> {
  const worker = await extensionServiceWorkerTarget(cdp, EXTENSION_ID, 10_000);
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: worker.targetId, flatten: true });
  try {
    const contextId = await new Promise<number>((resolve) => {
      cdp.on('Runtime.executionContextCreated', (params: { context: { id: number } }, from?: string) => {
        if (from === sessionId) resolve(params.context.id);
      });
      void cdp.send('Runtime.enable', {}, sessionId);
    });
    const answer = await cdp.send('Runtime.evaluate', { expression: source, awaitPromise: true, returnByValue: true, contextId }, sessionId);
    if (answer.exceptionDetails) throw new Error(answer.exceptionDetails.exception?.description ?? 'evaluation failed');
    return JSON.parse(answer.result.value) as T;
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId });
  }
}

/**
 * The floor for any extension relay: the same commands as the relay bench,
 * sent with chrome.debugger.sendCommand from inside the worker, no relay.
 */
export function measureChromeDebugger(
  cdp: LaunchedChromium['cdp'],
  pageTargetId: string,
  clip: object,
  bigUrl: string,
  counts: { sequential: number; pipelined: number; inFlight: number; screenshots: number },
): Promise<Floor> {
  return runInWorker<Floor>(
    cdp,
    `(async () => {
    const targets = await chrome.debugger.getTargets();
    const target = { tabId: targets.find((t) => t.id === ${JSON.stringify(pageTargetId)}).tabId };
    const evaluate = () => chrome.debugger.sendCommand(target, 'Runtime.evaluate', { expression: '1+1', returnByValue: true });
    for (let i = 0; i < 300; i++) await evaluate();
    const samples = [];
    for (let i = 0; i < ${counts.sequential}; i++) { const start = performance.now(); await evaluate(); samples.push(performance.now() - start); }
    samples.sort((a, b) => a - b);
    const rates = [];
    for (let round = 0; round < 3; round++) {
      let sent = 0;
      const start = performance.now();
      await Promise.all(Array.from({ length: ${counts.inFlight} }, async () => { while (sent < ${counts.pipelined}) { sent++; await evaluate(); } }));
      rates.push(${counts.pipelined} / ((performance.now() - start) / 1000));
    }
    rates.sort((a, b) => a - b);
    await chrome.debugger.sendCommand(target, 'Page.navigate', { url: ${JSON.stringify(bigUrl)} });
    for (let i = 0; i < 100; i++) {
      const { result } = await chrome.debugger.sendCommand(target, 'Runtime.evaluate', { expression: 'document.body && document.body.dataset.ready', returnByValue: true });
      if (result.value === '1') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const shots = [];
    for (let i = 0; i < ${counts.screenshots}; i++) {
      const start = performance.now();
      await chrome.debugger.sendCommand(target, 'Page.captureScreenshot', { format: 'png', clip: ${JSON.stringify(clip)}, captureBeyondViewport: true });
      shots.push(performance.now() - start);
    }
    shots.sort((a, b) => a - b);
    const at = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))];
    return JSON.stringify({ p50: at(samples, 50), p99: at(samples, 99), throughput: rates[1], screenshot: at(shots, 50) });
  })()`,
  );
}
