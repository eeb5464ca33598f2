import type OpenAI from 'openai';
import type { Response, ResponseCreateParamsNonStreaming, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
import type { ProviderConfig } from '../../config/browse-config.js';
import { type Ask, type AskResult, type Conversation, type ConversationSetup, parseInput, type Picture, type Turn } from './provider.js';

/**
 * The OpenAI Responses API, through the `openai` SDK: its computer-use tool
 * (`computer_use_preview` with the display it is told of, or the batched
 * `computer`), and function tools beside it. Each turn goes on from the
 * previous response (`previous_response_id`), as OpenAI's computer-use loop
 * is documented: the server keeps the transcript, and only the new items
 * (call outputs, a user's message) are sent. A screenshot answers a
 * `computer_call` as a `computer_call_output`; the usage is the response's.
 */

const DEFAULT_COMPUTER_TOOL = 'computer_use_preview';

export function responsesConversation(client: OpenAI, config: ProviderConfig, setup: ConversationSetup): Conversation {
  const tools: Tool[] = setup.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
  if (setup.computer) {
    const type = config.computerTool ?? DEFAULT_COMPUTER_TOOL;
    const { width, height } = setup.computer.display;
    tools.unshift((type === 'computer_use_preview' ? { type, display_width: width, display_height: height, environment: 'browser' } : { type }) as Tool);
  }
  let previous: string | undefined;
  let pending: ResponseInputItem[] = [];
  const dataUrl = (picture: Picture) => `data:${picture.mimeType};base64,${picture.data}`;
  const userPicture = (text: string, picture: Picture): ResponseInputItem => ({
    role: 'user',
    content: [
      { type: 'input_text', text },
      { type: 'input_image', image_url: dataUrl(picture), detail: 'auto' },
    ],
  });
  return {
    say(text, picture) {
      pending.push(picture ? userPicture(text, picture) : { role: 'user', content: text });
    },
    async next(signal): Promise<Turn> {
      const body: Omit<ResponseCreateParamsNonStreaming, 'stream'> = {
        model: config.model,
        instructions: setup.system,
        input: pending,
        max_output_tokens: config.maxTokens,
        ...(previous ? { previous_response_id: previous } : {}),
        ...(tools.length ? { tools } : {}),
        ...(setup.computer ? { truncation: 'auto' as const } : {}),
      };
      const response: Response = config.stream
        ? await client.responses.stream(body, { signal }).finalResponse()
        : await client.responses.create(body, { signal });
      previous = response.id;
      pending = [];
      const asks: Ask[] = [];
      const words: string[] = [];
      for (const item of response.output) {
        if (item.type === 'message') for (const part of item.content) if (part.type === 'output_text') words.push(part.text);
        if (item.type === 'function_call') asks.push({ kind: 'function', id: item.call_id, name: item.name, input: parseInput(item.arguments) });
        if (item.type === 'computer_call') {
          const actions = item.actions ?? (item.action ? [item.action] : []);
          asks.push({
            kind: 'computer',
            id: item.call_id,
            dialect: 'openai',
            actions,
            safetyChecks: item.pending_safety_checks?.length ? item.pending_safety_checks : undefined,
          });
        }
      }
      return { text: words.join('\n'), asks, usage: { inputTokens: response.usage?.input_tokens ?? 0, outputTokens: response.usage?.output_tokens ?? 0 } };
    },
    answer(results: AskResult[]) {
      const pictures: AskResult[] = [];
      for (const result of results) {
        // A computer call is answered with the screen; one that failed before any picture, with the error as text.
        if (result.computer) continue;
        pending.push({ type: 'function_call_output', call_id: result.id, output: result.picture ? `${result.text}\n(the picture follows)` : result.text });
        if (result.picture) pictures.push(result);
      }
      for (const result of results) {
        if (!result.computer) continue;
        if (result.picture)
          pending.push({ type: 'computer_call_output', call_id: result.id, output: { type: 'computer_screenshot', image_url: dataUrl(result.picture) } });
        if (result.failed || !result.picture) pending.push({ role: 'user', content: `The computer action failed: ${result.text}` });
      }
      for (const result of pictures) pending.push(userPicture('The picture the tool answered with:', result.picture!));
    },
  };
}
