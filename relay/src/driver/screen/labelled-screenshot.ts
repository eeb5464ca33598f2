import type { Frame } from 'playwright-core';
import type { LabelledScreenshot, ScreenLabel } from '../../api/vision-responses.js';
import type { z } from 'zod';
import type { visionSchemas } from '../../api/vision-schemas.js';
import { BadRequestError } from '../../errors.js';
import { snapshotWithRefs } from '../../snapshot/ai-snapshot.js';
import { frameOfRef } from '../../snapshot/refs.js';
import { refBoxes } from '../../snapshot/snapshot-engine.js';
import { drawLabels, imageSize, type LabelBox } from '../../vision/labelled-image.js';
import { type ScreenScale, toScreen } from '../../vision/screen-scale.js';
import type { DriverTab } from '../driver-tab.js';
import { captureScreen, measureScreen } from './screen-capture.js';

/**
 * `POST /screenshot/labelled` (set-of-marks): a fresh snapshot of the tab,
 * then where each of its refs is, then the picture, with each ref drawn as a
 * numbered box (the number is the ref: 12 is e12; a frame's ref is written
 * whole, f1e3). The snapshot becomes the tab's latest, so every label is a
 * ref `POST /act` takes, and the list says each one's role and name. Refs
 * off the picture (scrolled away, hidden, no box) are counted, not drawn.
 */

type Request = z.output<typeof visionSchemas.labelledScreenshot>;

export async function labelledScreenshot(tab: DriverTab, request: Request): Promise<Omit<LabelledScreenshot, 'targetId' | 'url' | 'title'>> {
  if (request.fullPage && request.display)
    throw new BadRequestError('Invalid display: it sizes the screen a model sees, not a full page (give one or the other)');
  const { snapshot, shown: listed } = await snapshotWithRefs(tab.snapshots, { interactive: request.interactive });
  const boxes = await boxesOf(
    tab,
    listed.map(({ ref }) => ref),
  );

  let screen: ScreenScale | undefined;
  let picture: Buffer;
  let place: (box: [number, number, number, number]) => [number, number, number, number];
  if (request.fullPage) {
    // The whole document at one picture pixel per CSS pixel: boxes move by the scroll.
    const scroll = await tab.page.evaluate(() => [scrollX, scrollY]);
    picture = await tab.page.screenshot({ type: 'png', fullPage: true, scale: 'css' });
    place = ([x, y, width, height]) => [x + scroll[0], y + scroll[1], width, height];
  } else {
    screen = await measureScreen(tab, request.display);
    picture = await captureScreen(tab, screen, { type: 'png' });
    const at = screen;
    place = ([x, y, width, height]) => {
      const corner = toScreen(at, { x, y });
      return [corner.x, corner.y, width * at.scale, height * at.scale];
    };
  }

  const labels: ScreenLabel[] = [];
  const drawn: LabelBox[] = [];
  const { width, height } = imageSize(picture) ?? { width: 0, height: 0 };
  for (const { ref, role, name } of listed) {
    const box = boxes.get(ref);
    if (!box) continue;
    const [x, y, w, h] = place(box);
    // Clipped to the picture; a box wholly outside it is not on screen.
    const left = Math.max(0, x);
    const top = Math.max(0, y);
    const right = Math.min(width, x + w);
    const bottom = Math.min(height, y + h);
    if (right - left < 1 || bottom - top < 1) continue;
    const label = ref.replace(/^e/, '');
    const placed = { x: Math.round(left), y: Math.round(top), width: Math.round(right - left), height: Math.round(bottom - top) };
    labels.push({ label, ref, role, ...(name !== undefined ? { name } : {}), box: placed });
    drawn.push({ text: label, ...placed });
  }
  const image = drawLabels(picture, drawn, { type: request.type, quality: request.quality });
  return {
    type: request.type,
    mimeType: `image/${request.type}`,
    data: image.data.toString('base64'),
    width: image.width,
    height: image.height,
    scale: screen?.scale ?? 1,
    labels,
    notShown: listed.length - labels.length,
    ...(request.snapshot ? { snapshot: snapshot.text } : {}),
  };
}

/** Each ref's box in CSS pixels of the main frame's viewport: one call per frame, a child frame's boxes moved by where it sits. */
async function boxesOf(tab: DriverTab, refs: string[]): Promise<Map<string, [number, number, number, number]>> {
  const byFrame = new Map<Frame, string[]>();
  for (const ref of refs) {
    const frame = frameOfRef(tab.snapshots, ref);
    if (frame && !frame.isDetached()) byFrame.set(frame, [...(byFrame.get(frame) ?? []), ref]);
  }
  const boxes = new Map<string, [number, number, number, number]>();
  for (const [frame, inFrame] of byFrame) {
    const offset = await frameOffset(frame).catch(() => undefined);
    if (!offset) continue;
    const found = await refBoxes(frame, inFrame).catch(() => ({}) as Record<string, [number, number, number, number]>);
    for (const [ref, [x, y, width, height]] of Object.entries(found)) boxes.set(ref, [x + offset[0], y + offset[1], width, height]);
  }
  return boxes;
}

/** Where a frame's viewport starts in the main frame's: its iframe's content box, up the chain. */
async function frameOffset(frame: Frame): Promise<[number, number]> {
  const parent = frame.parentFrame();
  if (!parent) return [0, 0];
  const element = await frame.frameElement();
  try {
    const [x, y] = await element.evaluate((node) => {
      const iframe = node as HTMLIFrameElement;
      const rect = iframe.getBoundingClientRect();
      const style = getComputedStyle(iframe);
      return [rect.x + iframe.clientLeft + parseFloat(style.paddingLeft), rect.y + iframe.clientTop + parseFloat(style.paddingTop)];
    });
    const [px, py] = await frameOffset(parent);
    return [x + px, y + py];
  } finally {
    await element.dispose();
  }
}
