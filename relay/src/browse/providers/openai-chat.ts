import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ProviderConfig } from '../../config/browse-config.js';
import { type AskResult, type Conversation, type ConversationSetup, parseInput, type Picture, type Turn } from './provider.js';

/**
 * Any OpenAI-compatible Chat Completions endpoint with tool calling (OpenAI,
 * vLLM, Ollama, llama.cpp's server, LM Studio, gateways), through the
 * `openai` SDK. Streams with `stream_options.include_usage`, so the usage
 * is the server's own last chunk. Chat Completions has no computer tool.
 *
 * A tool message holds text only, so a picture a tool answered with (a
 * screenshot) follows as a user message with an image part, the way
 * vision models on this API read them.
 */
export function chatConversation(client: OpenAI, config: ProviderConfig, setup: ConversationSetup): Conversation {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: setup.system }];
  const tools: ChatCompletionTool[] = setup.tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  const picture = (image: Picture) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mimeType};base64,${image.data}` } });
  return {
    say(text, image) {
      messages.push({ role: 'user', content: image ? [{ type: 'text', text }, picture(image)] : text });
    },
    async next(signal): Promise<Turn> {
      const body = { model: config.model, messages, max_tokens: config.maxTokens, ...(tools.length ? { tools } : {}) };
      let completion: ChatCompletion;
      if (config.stream) {
        const stream = client.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } }, { signal });
        completion = await stream.finalChatCompletion();
      } else {
        completion = await client.chat.completions.create(body, { signal });
      }
      const message = completion.choices[0]?.message;
      const calls = (message?.tool_calls ?? []).filter((call) => call.type === 'function');
      messages.push({ role: 'assistant', content: message?.content ?? '', ...(calls.length ? { tool_calls: calls } : {}) });
      return {
        text: message?.content ?? '',
        asks: calls.map((call) => ({ kind: 'function', id: call.id, name: call.function.name, input: parseInput(call.function.arguments) })),
        usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
      };
    },
    answer(results: AskResult[]) {
      for (const result of results)
        messages.push({ role: 'tool', tool_call_id: result.id, content: result.picture ? `${result.text}\n(the picture follows)` : result.text });
      const pictures = results.filter((result) => result.picture);
      if (pictures.length)
        messages.push({
          role: 'user',
          content: [{ type: 'text', text: 'The picture the tool answered with:' }, ...pictures.map((result) => picture(result.picture!))],
        });
    },
  };
}
