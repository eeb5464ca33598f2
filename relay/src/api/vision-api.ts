import type { RequestOf } from './schemas.js';
import type { ComputerResult, LabelledScreenshot } from './vision-responses.js';

/**
 * For agents that look, on one profile (spec §16): `BrowserApi.vision`. The
 * typed client implements it over HTTP, the control service in process; the
 * MCP tools of the vision group call it.
 */
export interface VisionApi {
  labelledScreenshot(request?: RequestOf<'labelledScreenshot'>): Promise<LabelledScreenshot>;
  /** A batch of OpenAI's computer-use actions (`computer_call.action`s), in the screenshot's pixels. */
  computerOpenai(request: RequestOf<'computerOpenai'>): Promise<ComputerResult>;
  /** A batch of Anthropic's computer tool inputs (`tool_use.input`s), in the screenshot's pixels. */
  computerAnthropic(request: RequestOf<'computerAnthropic'>): Promise<ComputerResult>;
}
