import type { Frame, Page } from 'playwright-core';
import { type FrameMarked, type PageScriptArgs, type PageScriptResult, snapshotFrameDom } from './page-script.js';
import { nextGeneration, recordSnapshot } from './refs.js';

/**
 * The `ai` snapshot: a compact outline of a tab (roles, names, values,
 * states, and a ref on everything an agent can act on), its frames included.
 * Each frame is walked by one evaluate of page-script.ts; here the frames'
 * outlines are stitched under their iframe lines, in document order.
 */

export { ariaSnapshot, type AriaNode, type AriaSnapshot } from './aria-tree.js';
export { RefNotFoundError, resolveRef } from './refs.js';

export interface AiSnapshotOptions {
  /** Most lines in the outline; no limit when omitted. */
  limit?: number;
}

export interface AiSnapshot {
  text: string;
  refCount: number;
  truncated: boolean;
  /** Frames whose content is in the outline, the main frame included. */
  frames: number;
}

const INDENT = '  ';

// The page function travels as source text. Wrapping it gives transpiler
// helpers their own definition in the page: esbuild with keepNames (what tsx
// runs) inserts __name(...) calls into function bodies, which would otherwise
// throw ReferenceError there.
let pageScriptSource: string | undefined;
function pageScriptCall(args: PageScriptArgs): string {
  pageScriptSource ??= `(() => { const __name = (fn) => fn; return (${snapshotFrameDom.toString()}); })()`;
  return `${pageScriptSource}(${JSON.stringify(args)})`;
}

export async function takeAiSnapshot(page: Page, options: AiSnapshotOptions = {}): Promise<AiSnapshot> {
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
  const generation = nextGeneration();
  const frames = new Map<string, Frame>();
  const refCounts = new Map<string, number>();
  let nextFrame = 1;
  let elementsLeft = 0;
  let truncated = false;
  const out: string[] = [];

  // Depth-first in document order, so frame numbers and refs come out the same for an unchanged page.
  const snapshotFrame = async (frame: Frame, prefix: string, depth: number): Promise<void> => {
    const budget = limit - out.length;
    if (budget <= 0) {
      truncated = true;
      return;
    }
    const result = (await frame.evaluate(pageScriptCall({ prefix, firstFrame: nextFrame, limit: budget, generation }))) as PageScriptResult;
    nextFrame += result.frames.length;
    frames.set(prefix, frame);
    refCounts.set(prefix, result.refCount);
    truncated ||= result.truncated;
    elementsLeft += result.elementsLeft;

    const children = result.frames.length ? await childFramesByPrefix(frame, generation) : new Map<string, Frame>();
    const lines = result.text ? result.text.split('\n') : [];
    const pad = INDENT.repeat(depth);
    let slot = 0;
    for (let i = 0; i < lines.length; i++) {
      const slotHere = result.frames[slot]?.line === i ? result.frames[slot++] : undefined;
      const child = slotHere && children.get(slotHere.prefix);
      if (!child) {
        out.push(pad + lines[i]);
        continue;
      }
      const at = out.push(pad + lines[i]) - 1;
      const before = out.length;
      try {
        await snapshotFrame(child, slotHere.prefix, depth + slotHere.depth + 1);
      } catch {
        // The frame went away or navigated mid-snapshot: its line stays, without content.
      }
      if (out.length > before) out[at] += ':';
    }
  };

  await snapshotFrame(page.mainFrame(), '', 0);

  if (out.length > limit) {
    elementsLeft += out.length - limit;
    out.length = limit;
    truncated = true;
  }
  if (truncated) out.push(`[truncated at limit=${limit} lines; about ${elementsLeft} more elements not shown]`);
  recordSnapshot(page, generation, frames, refCounts);
  let refCount = 0;
  for (const count of refCounts.values()) refCount += count;
  return { text: out.join('\n'), refCount, truncated, frames: frames.size };
}

/** The parent's page script marked each iframe element it listed; read the marks back per child Frame. */
async function childFramesByPrefix(parent: Frame, generation: number): Promise<Map<string, Frame>> {
  const byPrefix = new Map<string, Frame>();
  await Promise.all(
    parent.childFrames().map(async (child) => {
      try {
        const element = await child.frameElement();
        const mark = await element.evaluate((el) => (el as FrameMarked).__clawdFrame);
        await element.dispose();
        const [markGeneration, prefix] = (mark ?? '').split(':');
        if (Number(markGeneration) === generation && prefix) byPrefix.set(prefix, child);
      } catch {
        // Detached while we looked: nothing to stitch in.
      }
    }),
  );
  return byPrefix;
}
