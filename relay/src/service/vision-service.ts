import type { z } from 'zod';
import { schemas } from '../api/schemas.js';
import type { VisionApi } from '../api/vision-api.js';
import type { ComputerDialect, ComputerRequest } from '../api/vision-schemas.js';
import { type ControlService, validated } from './control-service.js';
import { withFence } from '../api/page-content.js';

/**
 * Labelled screenshots and computer use (spec §16) for HTTP and MCP alike.
 * Both go through the control service's operation() (cancelled with their
 * caller, bounded, logged); a computer-use batch is an action, so a
 * recorded task session keeps a screenshot of it, and the URL policy holds
 * wherever its clicks lead.
 */
export class VisionService {
  constructor(private readonly control: ControlService) {}

  labelledScreenshot(profile: string | undefined, request: z.output<typeof schemas.labelledScreenshot>, signal?: AbortSignal) {
    // Labels' names, the title and the URL are the page's words (api/page-content.ts).
    return this.control.operation(profile, { kind: 'labelled-screenshot', targetId: request.targetId }, signal, async (driver) => {
      const { data, ...words } = await driver.vision.labelledScreenshot(request);
      return { data, ...withFence(words) };
    });
  }

  computer(profile: string | undefined, dialect: ComputerDialect, request: ComputerRequest, signal?: AbortSignal) {
    return this.control.operation(profile, { kind: 'computer', targetId: request.targetId }, signal, async (driver, bounded) => {
      // A press on what a confirm rule names stops the batch, unless pre-approved (confirm-service.ts).
      const { screenshot, ...words } = await driver.vision.computer(dialect, request, bounded, this.control.confirmations.pressGate(driver.profile.name));
      return { ...withFence(words), ...(screenshot ? { screenshot } : {}) };
    });
  }

  /** Vision as an agent's tools see it, in process: arguments checked as the HTTP routes check them. */
  api(profile: string | undefined, signal?: AbortSignal): VisionApi {
    return {
      labelledScreenshot: (request = {}) => this.labelledScreenshot(profile, validated(schemas.labelledScreenshot, request, 'arguments'), signal),
      computerOpenai: (request) => this.computer(profile, 'openai', validated(schemas.computerOpenai, request, 'arguments'), signal),
      computerAnthropic: (request) => this.computer(profile, 'anthropic', validated(schemas.computerAnthropic, request, 'arguments'), signal),
    };
  }
}
