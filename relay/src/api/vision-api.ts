import type { ActOptions } from './act-options.js';
import type { RequestOf } from './schemas.js';
import type { ComputerResult, LabelledScreenshot } from './vision-responses.js';

/**
 * For agents that look, on one profile (spec §16): `BrowserApi.vision`. The
 * typed client implements it over HTTP, the control service in process; the
 * MCP tools of the vision group call it.
 */
export interface VisionApi {
  labelledScreenshot(request?: RequestOf<'labelledScreenshot'>): Promise<LabelledScreenshot>;
  /**
   * A batch of OpenAI's computer-use actions (`computer_call.action`s), in the screenshot's pixels. A press
   * a confirm rule names stops it and waits for a person's yes (where one is reachable, `person` saying one
   * is at hand), then the rest of the batch runs; with nobody to ask it is a 409 naming the rule.
   */
  computerOpenai(request: RequestOf<'computerOpenai'>, options?: Omit<ActOptions, 'diffMaxChars'>): Promise<ComputerResult>;
  /** A batch of Anthropic's computer tool inputs (`tool_use.input`s), in the screenshot's pixels; a press a rule names as for computerOpenai. */
  computerAnthropic(request: RequestOf<'computerAnthropic'>, options?: Omit<ActOptions, 'diffMaxChars'>): Promise<ComputerResult>;
}
