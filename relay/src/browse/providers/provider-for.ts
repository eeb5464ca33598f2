import { apiKeyOf, type ProviderConfig } from '../../config/browse-config.js';
import { AnthropicProvider } from './anthropic-messages.js';
import { OpenAiChatProvider } from './openai-chat.js';
import { OpenAiResponsesProvider } from './openai-responses.js';
import type { ModelProvider } from './provider.js';

/** A configured provider, made for one run: its key read now (config/browse-config.ts), held only by its SDK client. */
export function providerFor(name: string, config: ProviderConfig, env: NodeJS.ProcessEnv = process.env): ModelProvider {
  const key = apiKeyOf(name, config, env);
  switch (config.api) {
    case 'openai-chat':
      return new OpenAiChatProvider(name, config, key);
    case 'anthropic':
      return new AnthropicProvider(name, config, key);
    case 'openai-responses':
      return new OpenAiResponsesProvider(name, config, key);
  }
}
