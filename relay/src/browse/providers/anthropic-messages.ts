import type Anthropic from '@anthropic-ai/sdk';
import type {
  BetaContentBlockParam,
  BetaImageBlockParam,
  BetaMessage,
  BetaMessageParam,
  BetaToolResultBlockParam,
  BetaToolUnion,
} from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { ProviderConfig } from '../../config/browse-config.js';
import type { Ask, AskResult, Conversation, ConversationSetup, Picture, Turn } from './provider.js';

/**
 * The Anthropic Messages API, through `@anthropic-ai/sdk`: function tools
 * (`tools` with an `input_schema`), and its computer tool (a `tool_use`
 * named `computer` whose input is one action), which takes the beta header
 * of its version. Streams through the SDK's message stream; the usage is the
 * message's own (`message_start`'s input tokens, cache reads and writes
 * included, and `message_delta`'s output tokens).
 */

/** The computer tool version asked for when config names none. */
const DEFAULT_COMPUTER_TOOL = 'computer_20250124';

/** `computer_20250124` → the beta it needs, `computer-use-2025-01-24`. */
export function computerBeta(tool: string): string {
  const date = /^computer_(\d{4})(\d{2})(\d{2})$/.exec(tool);
  return date ? `computer-use-${date[1]}-${date[2]}-${date[3]}` : 'computer-use-2025-01-24';
}

export function anthropicConversation(client: Anthropic, config: ProviderConfig, setup: ConversationSetup): Conversation {
  const messages: BetaMessageParam[] = [];
  const computerTool = config.computerTool ?? DEFAULT_COMPUTER_TOOL;
  const tools: BetaToolUnion[] = setup.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }));
  if (setup.computer) {
    tools.unshift({
      type: computerTool,
      name: 'computer',
      display_width_px: setup.computer.display.width,
      display_height_px: setup.computer.display.height,
    } as BetaToolUnion);
  }
  const betas = setup.computer ? [computerBeta(computerTool)] : undefined;
  const image = (picture: Picture): BetaImageBlockParam => ({
    type: 'image',
    source: { type: 'base64', media_type: picture.mimeType as 'image/png', data: picture.data },
  });
  return {
    say(text, picture) {
      messages.push({ role: 'user', content: picture ? [{ type: 'text', text }, image(picture)] : text });
    },
    async next(signal): Promise<Turn> {
      const body = {
        model: config.model,
        max_tokens: config.maxTokens,
        system: setup.system,
        messages,
        ...(tools.length ? { tools } : {}),
        ...(betas ? { betas } : {}),
      };
      const message: BetaMessage = config.stream
        ? await client.beta.messages.stream(body, { signal }).finalMessage()
        : await client.beta.messages.create({ ...body, stream: false }, { signal });
      messages.push({ role: 'assistant', content: message.content as BetaContentBlockParam[] });
      const asks: Ask[] = [];
      const words: string[] = [];
      for (const block of message.content) {
        if (block.type === 'text') words.push(block.text);
        if (block.type !== 'tool_use') continue;
        if (setup.computer && block.name === 'computer') asks.push({ kind: 'computer', id: block.id, dialect: 'anthropic', actions: [block.input] });
        else asks.push({ kind: 'function', id: block.id, name: block.name, input: block.input });
      }
      const usage = message.usage;
      return {
        text: words.join('\n'),
        asks,
        usage: {
          inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
          outputTokens: usage.output_tokens,
        },
      };
    },
    answer(results: AskResult[]) {
      const blocks: BetaToolResultBlockParam[] = results.map((result) => ({
        type: 'tool_result',
        tool_use_id: result.id,
        content: [{ type: 'text', text: result.text || (result.failed ? 'failed' : 'done') }, ...(result.picture ? [image(result.picture)] : [])],
        ...(result.failed ? { is_error: true } : {}),
      }));
      messages.push({ role: 'user', content: blocks });
    },
  };
}
