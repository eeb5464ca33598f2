import type { Protocol } from 'devtools-protocol';
import { imageSize } from '../../vision/labelled-image.js';
import { type ScreenScale, screenScale } from '../../vision/screen-scale.js';
import type { DriverTab } from '../driver-tab.js';

/**
 * What a looking agent sees of a tab: its visual viewport, scaled to the
 * display the model was told (vision/screen-scale.ts), captured on the tab's
 * own CDP session with a clip whose scale makes the picture exactly that
 * size. Chromium sizes a clipped capture in CSS pixels times the clip's
 * scale under emulated device metrics, and may apply the device's pixel
 * ratio on a real screen: the first capture of a tab is measured, and a
 * picture of the wrong size is taken again with the scale corrected (kept
 * for the tab's next captures).
 */

const corrections = new WeakMap<DriverTab, number>();

export async function measureScreen(tab: DriverTab, display?: { width: number; height: number }): Promise<ScreenScale> {
  const session = await tab.cdp();
  const metrics = (await session.send('Page.getLayoutMetrics')) as Protocol.Page.GetLayoutMetricsResponse;
  const { pageX, pageY, offsetX, offsetY, clientWidth, clientHeight } = metrics.cssVisualViewport;
  return screenScale({ pageX, pageY, offsetX, offsetY, clientWidth, clientHeight }, display);
}

/** The screen as the model sees it; `region` (picture pixels) for a part of it at `zoom` times the size. */
export async function captureScreen(
  tab: DriverTab,
  screen: ScreenScale,
  image: { type: 'png' | 'jpeg'; quality?: number },
  region?: { x: number; y: number; width: number; height: number; zoom: number },
): Promise<Buffer> {
  const session = await tab.cdp();
  const { viewport, scale } = screen;
  const area = region
    ? {
        x: viewport.pageX + region.x / scale,
        y: viewport.pageY + region.y / scale,
        width: region.width / scale,
        height: region.height / scale,
        scale: scale * region.zoom,
      }
    : { x: viewport.pageX, y: viewport.pageY, width: viewport.clientWidth, height: viewport.clientHeight, scale };
  const wanted = Math.round(area.width * area.scale);
  const take = async (correction: number) => {
    const shot = (await session.send('Page.captureScreenshot', {
      format: image.type,
      ...(image.type === 'jpeg' ? { quality: image.quality ?? 80 } : {}),
      clip: { ...area, scale: area.scale * correction },
    })) as Protocol.Page.CaptureScreenshotResponse;
    return Buffer.from(shot.data, 'base64');
  };
  const correction = corrections.get(tab) ?? 1;
  const picture = await take(correction);
  const got = imageSize(picture)?.width;
  if (!got || Math.abs(got - wanted) <= 1) return picture;
  const corrected = (correction * wanted) / got;
  corrections.set(tab, corrected);
  return take(corrected);
}
