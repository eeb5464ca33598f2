import type { ComputerResult } from '../api/vision-responses.js';
import { callTool, remedy } from '../mcp/mcp-server.js';
import { batchOutcome } from '../mcp/vision-tools.js';
import type { Ask, ComputerTool, FunctionTool, Picture } from './providers/provider.js';
import { type ApiForSignal, shownUrl, type Toolset, type ToolOutcome } from './toolset.js';

/**
 * The `computer` runtime's toolset: the model's own computer tool, told of
 * the provider's display; each batch it asks for runs through clawd's
 * computer-use executor (POST /computer/openai or /anthropic's, in the
 * screenshot's pixels), which answers with the fresh screen, scaled to the
 * display. A model that can only click cannot type an address, so a
 * `navigate` function stands beside the computer tool.
 */

const NAVIGATE: FunctionTool = {
  name: 'navigate',
  description: 'Load a URL in the tab (the computer tool cannot type an address). Answers with the new screen.',
  parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
};

/** The screen as the model gets it: PNG, scaled to its display. */
const SCREEN = { type: 'png', screenshot: true, changes: true } as const;

function picture(result: ComputerResult): Picture | undefined {
  return result.screenshot ? { mimeType: result.screenshot.mimeType, data: result.screenshot.data } : undefined;
}

/** A batch's actions, named for the log: `left_click, type`; never their text. */
function actionNames(actions: unknown[]): string {
  return actions.map((action) => String((action as { action?: unknown; type?: unknown }).action ?? (action as { type?: unknown }).type ?? '?')).join(', ');
}

export class ComputerToolset implements Toolset {
  readonly functions = [NAVIGATE];
  readonly computer: ComputerTool;

  constructor(
    private readonly apiFor: ApiForSignal,
    display: { width: number; height: number },
  ) {
    this.computer = { display };
  }

  async firstLook(signal: AbortSignal): Promise<Picture | undefined> {
    const api = this.apiFor(signal);
    return picture(await api.vision.computerAnthropic({ actions: [{ action: 'screenshot' }], display: this.computer.display, ...SCREEN }));
  }

  async run(ask: Ask, signal: AbortSignal): Promise<ToolOutcome> {
    const api = this.apiFor(signal);
    if (ask.kind === 'function') {
      const summary = `${ask.name} ${shownUrl((ask.input as { url?: unknown })?.url)}`.trim();
      if (ask.name !== NAVIGATE.name)
        return {
          id: ask.id,
          computer: false,
          tool: ask.name,
          summary,
          text: `No tool is named ${ask.name}: use the computer tool, or navigate.`,
          failed: true,
          screenshots: 0,
        };
      const navigated = await callTool(
        'browser_navigate',
        ask.input,
        api,
        { lastUrl: new Map(), exportDir: '', handoffs: new Map() },
        { signal, progress: async () => {} },
      );
      signal.throwIfAborted();
      const text = navigated.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
      if (navigated.isError) return { id: ask.id, computer: false, tool: ask.name, summary, text, failed: true, screenshots: 0 };
      const screen = picture(await api.vision.computerAnthropic({ actions: [{ action: 'screenshot' }], display: this.computer.display, ...SCREEN }));
      return {
        id: ask.id,
        computer: false,
        tool: ask.name,
        summary,
        text: text.replace(/\s*Take a snapshot to see the page\.$/, ''),
        picture: screen,
        failed: false,
        screenshots: screen ? 1 : 0,
      };
    }
    const summary = `computer ${actionNames(ask.actions)}`;
    try {
      const request = { actions: ask.actions as never[], display: this.computer.display, ...SCREEN };
      const result = ask.dialect === 'openai' ? await api.vision.computerOpenai(request) : await api.vision.computerAnthropic(request);
      const screen = picture(result);
      return {
        id: ask.id,
        computer: true,
        tool: 'computer',
        summary,
        text: batchOutcome(result).join('\n'),
        picture: screen,
        failed: false,
        screenshots: screen ? 1 : 0,
      };
    } catch (error) {
      signal.throwIfAborted();
      // The model still needs the screen as it is now, to try again.
      const screen = await api.vision
        .computerAnthropic({ actions: [{ action: 'screenshot' }], display: this.computer.display, ...SCREEN })
        .then(picture, () => undefined);
      return {
        id: ask.id,
        computer: true,
        tool: 'computer',
        summary,
        text: `Error: ${remedy(error)}`,
        picture: screen,
        failed: true,
        screenshots: screen ? 1 : 0,
      };
    }
  }
}
