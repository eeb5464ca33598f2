import type { ComputerResult, LabelledScreenshot } from '../../api/vision-responses.js';
import type { ComputerDialect, ComputerRequest, visionSchemas } from '../../api/vision-schemas.js';
import type { z } from 'zod';
import { type AnthropicAction, type OpenAiAction } from '../../api/vision-schemas.js';
import { anthropicSteps, openAiSteps, pointsOf } from '../../vision/computer-steps.js';
import { imageSize } from '../../vision/labelled-image.js';
import { checkOnScreen } from '../../vision/screen-scale.js';
import { withAftermath } from '../acts/aftermath.js';
import { AskFirst, cursorOnScreen, runComputerSteps, type StepPlace } from './computer-use.js';
import type { Point } from '../../vision/computer-steps.js';
import type { DriverTab } from '../driver-tab.js';
import type { TabHost } from '../tab-host.js';
import { labelledScreenshot } from './labelled-screenshot.js';
import { captureScreen, measureScreen } from './screen-capture.js';

/**
 * For agents that look, on one profile (spec §16): labelled screenshots, and
 * computer-use batches in either vendor's shape. The driver hands over how
 * it finds a tab, holds the URL policy and marks a tab used; the rest is
 * here and in vision/.
 */

export class ProfileVision {
  constructor(private readonly deps: TabHost) {}

  async labelledScreenshot(request: z.output<typeof visionSchemas.labelledScreenshot>): Promise<LabelledScreenshot> {
    const tab = await this.deps.tab(request.targetId);
    const picture = await labelledScreenshot(tab, request);
    const { targetId, url, title } = await this.deps.use(tab);
    // Names come from the page: a secret typed into it is never repeated.
    return { targetId, url, title, ...tab.secrets.redactDeep(picture) };
  }

  /**
   * One batch: translated and checked whole first (an unknown action or key,
   * a point off the screen: a 400, nothing done), then run in order, then
   * the screen as it is now.
   */
  async computer(
    dialect: ComputerDialect,
    request: ComputerRequest,
    signal?: AbortSignal,
    beforePress?: (tab: DriverTab, at: Point | 'focused' | 'focused-space') => Promise<void>,
    from?: StepPlace,
  ): Promise<ComputerResult & { paused?: AskFirst }> {
    const steps = dialect === 'openai' ? openAiSteps(request.actions as OpenAiAction[]) : anthropicSteps(request.actions as AnthropicAction[]);
    const tab = await this.deps.tab(request.targetId);
    await this.deps.guard(tab);
    const screen = await measureScreen(tab, request.display);
    checkOnScreen(screen, pointsOf(steps));
    const targetId = await tab.targetId();
    const urlBefore = tab.page.url();
    const gate = beforePress && ((at: Point | 'focused' | 'focused-space') => beforePress(tab, at));
    // A press that waits for a person's yes pauses the batch: what ran is answered, with where it goes on.
    let paused: AskFirst | undefined;
    const running = async () => {
      try {
        return await runComputerSteps(tab, steps, screen, signal, gate, from);
      } catch (error) {
        if (!(error instanceof AskFirst)) throw error;
        paused = error;
        return { performed: error.at.step };
      }
    };
    const { result: run, events: opened } = await withAftermath(tab, running, (popup) => this.deps.describePopup(popup), signal);
    const events = tab.secrets.redactDeep([...tab.takeEvents(), ...opened]);
    const display = request.display ?? { width: screen.width, height: screen.height };
    const changes = (url: string | undefined) =>
      request.changes ? { changes: { navigated: url !== urlBefore, ...(url !== urlBefore ? { from: urlBefore } : {}), events } } : {};
    const cursor = cursorOnScreen(tab, screen);
    if (paused) {
      // No picture: the screen is as it was before the press, and the rest of the batch runs on the person's yes.
      const { url, title } = await this.deps.use(tab);
      return { targetId, url, title, performed: run.performed, display, scale: screen.scale, cursor, ...changes(url), paused };
    }
    if (tab.page.isClosed()) return { targetId, performed: run.performed, display, scale: screen.scale, cursor, ...changes(undefined) };
    const { url, title } = await this.deps.use(tab);
    let screenshot: ComputerResult['screenshot'];
    if (request.screenshot) {
      // The screen now (a scroll or a navigation moved it), at the same scale the model saw.
      const now = await measureScreen(tab, request.display);
      const image = { type: request.type, quality: request.quality };
      const zoom = run.zoom;
      const data = zoom
        ? await captureScreen(tab, now, image, {
            x: zoom[0],
            y: zoom[1],
            width: zoom[2] - zoom[0],
            height: zoom[3] - zoom[1],
            zoom: Math.min(now.width / (zoom[2] - zoom[0]), now.height / (zoom[3] - zoom[1])),
          })
        : await captureScreen(tab, now, image);
      const size = imageSize(data) ?? { width: now.width, height: now.height };
      screenshot = { type: request.type, mimeType: `image/${request.type}`, data: data.toString('base64'), ...size, ...(zoom ? { zoomed: zoom } : {}) };
    }
    return { targetId, url, title, performed: run.performed, display, scale: screen.scale, cursor, ...(screenshot ? { screenshot } : {}), ...changes(url) };
  }
}
