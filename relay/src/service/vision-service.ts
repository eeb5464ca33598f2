import type { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { VisionApi } from '../api/vision-api.js';
import type { ComputerDialect, ComputerRequest } from '../api/vision-schemas.js';
import { validated } from '../validation.js';
import type { Operations } from './operation-runner.js';
import { withFence } from '../api/page-content.js';
import type { ActOptions } from '../api/browser-api.js';
import type { ComputerResult } from '../api/vision-responses.js';
import type { StepPlace } from '../driver/screen/computer-use.js';
import type { BatchPause, ConfirmService } from './confirm-service.js';

/**
 * Labelled screenshots and computer use (spec §16) for HTTP and MCP alike.
 * Both go through an operation (operation-runner.ts: cancelled with their
 * caller, bounded, logged); a computer-use batch is an action, so a
 * recorded task session keeps a screenshot of it, the URL policy holds
 * wherever its clicks lead, and a press a confirm rule names waits for a
 * person's yes as an act does.
 */
export class VisionService {
  constructor(
    private readonly operations: Operations,
    private readonly confirmations: Pick<ConfirmService, 'batch' | 'batchGate'>,
  ) {}

  labelledScreenshot(profile: string | undefined, request: z.output<typeof schemas.labelledScreenshot>, signal?: AbortSignal) {
    // Labels' names, the title and the URL are the page's words (api/page-content.ts).
    return this.operations.operation(profile, { kind: 'labelled-screenshot', targetId: request.targetId }, signal, async (driver) => {
      const { data, ...words } = await driver.vision.labelledScreenshot(request);
      return { data, ...withFence(words) };
    });
  }

  /**
   * A batch. A press on what a confirm rule names pauses it, unless pre-approved (confirm-service.ts's
   * batchGate): the person is asked as for an act, and the rest of the batch, that press first, runs on
   * their yes (`from`, `yesGiven`: the batch going on). The caller waits for it (`options.wait`), or is
   * answered at once with what ran and the hand-off's handle; with nobody to ask the press is a 409.
   */
  async computer(
    profile: string | undefined,
    dialect: ComputerDialect,
    request: ComputerRequest,
    signal?: AbortSignal,
    options: ActOptions & { wait?: boolean } = {},
    from?: StepPlace,
    yesGiven = false,
  ): Promise<ComputerResult> {
    const answer = await this.operations.operation(profile, { kind: 'computer', targetId: request.targetId }, signal, async (driver, bounded) => {
      const gate = this.confirmations.batchGate(driver.profile.name, options.person === true, yesGiven);
      const { screenshot, paused, ...words } = await driver.vision.computer(dialect, request, bounded, gate, from);
      return { ...withFence(words), ...(screenshot ? { screenshot } : {}), ...(paused ? { paused } : {}) };
    });
    if (!answer.paused) return answer;
    // Waiting for the person is outside the batch's action timeout: the rest runs as a batch of its own.
    const { paused, ...ran } = answer;
    return this.confirmations.batch(
      profile,
      ran.targetId,
      paused.reason as BatchPause,
      (bounded) => this.computer(profile, dialect, request, bounded, options, paused.at, true),
      signal,
      options,
      (confirmation) => ({ ...ran, confirmation }),
    );
  }

  /** Vision as an agent's tools see it, in process: arguments checked as the HTTP routes check them; a press a rule names waits for the person. */
  api(profile: string | undefined, signal?: AbortSignal): VisionApi {
    return {
      labelledScreenshot: (request = {}) => this.labelledScreenshot(profile, validated(schemas.labelledScreenshot, request, 'arguments'), signal),
      computerOpenai: (request, options) =>
        this.computer(profile, 'openai', validated(schemas.computerOpenai, request, 'arguments'), signal, { ...options, wait: true }),
      computerAnthropic: (request, options) =>
        this.computer(profile, 'anthropic', validated(schemas.computerAnthropic, request, 'arguments'), signal, { ...options, wait: true }),
    };
  }
}
