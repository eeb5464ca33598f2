import { type Frame, type Locator, selectors } from 'playwright-core';
import { type PageScriptArgs, type PageScriptResult, snapshotFrameDom } from './page-script.js';

/**
 * Where the snapshot runs: a Playwright selector engine registered as a
 * content script, so Playwright evaluates it in its isolated (utility)
 * world of each frame, on every profile (managed, remote, and the relay's
 * shared tabs alike). A page that replaces `document.querySelectorAll` or
 * wraps `Element.prototype.getAttribute` changes its own world only: the walk
 * sees the browser's DOM methods, and the ref → element map lives where page
 * scripts cannot read or rewrite it.
 *
 * The engine is the only code that runs in that world, so every operation is
 * a "selector": `op:<argument>` (the argument URI-encoded JSON). Results that
 * are not elements come back as the text of a detached element that only the
 * isolated world ever holds.
 */

const ENGINE = 'clawd-snapshot';

/** What `check` says of a ref. */
export type RefCheck = 'ok' | 'navigated' | 'absent' | 'removed';

let registered: Promise<void> | undefined;

/** Registers the engine once per process; it must precede the browser contexts it is used in. */
export function registerSnapshotEngine(): Promise<void> {
  registered ??= selectors.register(ENGINE, { content: engineSource() }, { contentScript: true }).catch((error: unknown) => {
    // Registered already by another copy of this module (tests import both source and build).
    if (/already registered/.test((error as Error).message)) return;
    registered = undefined;
    throw error;
  });
  return registered;
}

// Registered when this module loads, so that it precedes every browser context
// of the process: a context's injected scripts only know engines registered
// before they were created.
void registerSnapshotEngine();

function locate(frame: Frame, op: string, argument: unknown): Locator {
  return frame.locator(`${ENGINE}=${op}:${encodeURIComponent(JSON.stringify(argument))}`);
}

async function read<T>(frame: Frame, op: string, argument: unknown): Promise<T> {
  await registerSnapshotEngine();
  const text = await locate(frame, op, argument).textContent({ timeout: 30_000 });
  return JSON.parse(text ?? 'null') as T;
}

/** Walks one frame; its refs and iframe elements stay in the frame's isolated world. */
export function walkFrame(frame: Frame, args: PageScriptArgs): Promise<PageScriptResult & { error?: string }> {
  return read(frame, 'walk', args);
}

/** The element showing child frame `prefix` in the latest walk of `frame`, as a Frame. */
export async function childFrame(frame: Frame, prefix: string): Promise<Frame | null> {
  await registerSnapshotEngine();
  const handle = await locate(frame, 'frame', prefix).elementHandle({ timeout: 1_000 }).catch(() => null);
  if (!handle) return null;
  try {
    return await handle.contentFrame();
  } finally {
    await handle.dispose();
  }
}

export function checkRef(frame: Frame, ref: string, generation: number): Promise<RefCheck> {
  return read(frame, 'check', { ref, generation });
}

/** A locator for a ref that `checkRef` found 'ok'; it resolves in the isolated world too. */
export function refLocator(frame: Frame, ref: string): Locator {
  return locate(frame, 'ref', ref);
}

/** The engine's source: the page script and a small dispatcher, evaluated once per isolated world. */
function engineSource(): string {
  // esbuild with keepNames (what tsx runs) inserts __name(...) calls into function bodies.
  return `(() => {
  const __name = (fn) => fn;
  const walk = (${snapshotFrameDom.toString()});
  let state;
  let generation = 0;
  let cached;
  const output = (value) => {
    const element = document.createElement('clawd-output');
    element.textContent = JSON.stringify(value);
    return [element];
  };
  const run = (body) => {
    const colon = body.indexOf(':');
    const op = body.slice(0, colon);
    const argument = JSON.parse(decodeURIComponent(body.slice(colon + 1)));
    switch (op) {
      case 'walk': {
        // Playwright may query a selector more than once: one walk per generation.
        if (cached && cached.generation === argument.generation) return output(cached.result);
        let result;
        try {
          const walked = walk(argument, state);
          state = walked.state;
          generation = argument.generation;
          result = walked.result;
        } catch (error) {
          result = { error: String(error && error.message || error) };
        }
        cached = { generation: argument.generation, result };
        return output(result);
      }
      case 'frame': {
        const element = state && state.frameElements.get(argument);
        return element && element.isConnected ? [element] : [];
      }
      case 'check': {
        if (!state || generation !== argument.generation) return output('navigated');
        const element = state.refs.get(argument.ref);
        if (!element) return output('absent');
        return output(element.isConnected ? 'ok' : 'removed');
      }
      case 'ref': {
        const element = state && state.refs.get(argument);
        return element && element.isConnected ? [element] : [];
      }
      default:
        return [];
    }
  };
  return {
    queryAll(root, body) { return run(body); },
    query(root, body) { return run(body)[0] || null; },
  };
})()`;
}
