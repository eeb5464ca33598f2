import { apiKeyOf, type ProviderConfig } from '../../config/browse-config.js';
import { anthropicConversation } from './anthropic-messages.js';
import { chatConversation } from './openai-chat.js';
import { responsesConversation } from './openai-responses.js';
import type { ModelProvider } from './provider.js';

/**
 * A configured provider, made for one run: its key read now
 * (config/browse-config.ts) and held only by its vendor's SDK client; one
 * retry on what the SDK deems worth retrying, the step's deadline bounding
 * it all. The SDKs are loaded on first use: a server that never browses
 * does not hold them (about 18 MiB).
 */
export async function providerFor(name: string, config: ProviderConfig, env: NodeJS.ProcessEnv = process.env): Promise<ModelProvider> {
  const apiKey = apiKeyOf(name, config, env);
  const base = { name, api: config.api, model: config.model };
  switch (config.api) {
    case 'openai-chat': {
      const { default: OpenAI } = await import('openai');
      const client = new OpenAI({ apiKey, baseURL: config.baseUrl, maxRetries: 1 });
      return { ...base, hasComputerTool: false, conversation: (setup) => chatConversation(client, config, setup) };
    }
    case 'anthropic': {
      const { default: Anthropic } = await import('@anthropic-ai/sdk');
      const client = new Anthropic({ apiKey, baseURL: config.baseUrl, maxRetries: 1 });
      return { ...base, hasComputerTool: true, conversation: (setup) => anthropicConversation(client, config, setup) };
    }
    case 'openai-responses': {
      const { default: OpenAI } = await import('openai');
      const client = new OpenAI({ apiKey, baseURL: config.baseUrl, maxRetries: 1 });
      return { ...base, hasComputerTool: true, conversation: (setup) => responsesConversation(client, config, setup) };
    }
  }
}
