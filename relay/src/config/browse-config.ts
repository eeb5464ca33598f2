import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { BadRequestError, UnavailableError } from '../errors.js';

/**
 * The browse runtime's part of config.json (spec §24): the model providers
 * by name, and the guardrails every run is held to. An API key is named,
 * never written here: an environment variable (`apiKeyEnv`) or a file
 * (`apiKeyFile`), read when a run starts, and never logged nor answered.
 */

/** Which API a provider speaks, each through its vendor's own SDK (browse/providers/). */
export const ProviderApi = z.enum(['openai-chat', 'anthropic', 'openai-responses']);
export type ProviderApi = z.infer<typeof ProviderApi>;

const Display = z.strictObject({ width: z.number().int().min(200).max(4096), height: z.number().int().min(200).max(4096) });

export const ProviderConfigSchema = z.strictObject({
  /**
   * `openai-chat`: any OpenAI-compatible Chat Completions endpoint with tool
   * calling (OpenAI, vLLM, Ollama, llama.cpp's server, LM Studio, gateways);
   * `anthropic`: the Messages API (tools, and its computer tool);
   * `openai-responses`: the Responses API (its computer-use tool).
   */
  api: ProviderApi,
  model: z.string().min(1),
  /** The API's base URL (default: the vendor's); e.g. http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** The environment variable holding the key (default OPENAI_API_KEY or ANTHROPIC_API_KEY). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional(),
  /** A file holding the key (its first line), instead of an environment variable. */
  apiKeyFile: z.string().min(1).optional(),
  /** Stream each answer as the provider sends it (server-sent events); false for servers that cannot. */
  stream: z.boolean().default(true),
  /** The longest answer asked for per step. */
  maxTokens: z.number().int().min(16).max(200_000).default(4096),
  /** The runtime a run takes on this provider when its call names none. */
  runtime: z.enum(['tools', 'computer']).optional(),
  /** The screen the model is told of (computer runtime); screenshots are scaled to it. */
  display: Display.default({ width: 1024, height: 768 }),
  /**
   * The computer tool's version: Anthropic's `computer_20250124` (with the
   * beta header it needs) or another it names; OpenAI's `computer_use_preview`
   * or the batched `computer`.
   */
  computerTool: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

export const BrowseConfigSchema = z.strictObject({
  providers: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'provider names: lowercase letters, digits, dots, hyphens'), ProviderConfigSchema)
    .default({}),
  /** The provider a run uses when its call names none (default: the only one configured). */
  defaultProvider: z.string().optional(),
  /** Steps (model turns) per run, unless the call asks for fewer; a call may ask up to maxStepsLimit. */
  maxSteps: z.number().int().min(1).max(500).default(30),
  maxStepsLimit: z.number().int().min(1).max(500).default(100),
  /** The longest one step (a model turn and the acts it asked for) may take. */
  stepTimeoutMs: z.number().int().min(1_000).max(900_000).default(120_000),
  /** Tokens (input and output, as the provider counts them) per run, unless the call sets a budget. 0: none. */
  budgetTokens: z.number().int().min(0).default(0),
  /** Runs at once on this server; one more is a 429. */
  maxRuns: z.number().int().min(1).max(64).default(2),
});
export type BrowseConfig = z.infer<typeof BrowseConfigSchema>;

const DEFAULT_KEY_ENV: Record<ProviderApi, string> = { 'openai-chat': 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', 'openai-responses': 'OPENAI_API_KEY' };

/** The provider a run names (or the default), with its name: a 400 naming those configured when there is none. */
export function providerNamed(config: BrowseConfig, name: string | undefined): { name: string; provider: ProviderConfig } {
  const names = Object.keys(config.providers);
  const chosen = name ?? config.defaultProvider ?? (names.length === 1 ? names[0] : undefined);
  if (chosen === undefined) {
    throw new BadRequestError(
      names.length
        ? `Invalid provider: name one of ${names.join(', ')} (or set browse.defaultProvider in config.json)`
        : 'No model provider is configured: add one under browse.providers in config.json (see docs/browse.md)',
    );
  }
  const provider = config.providers[chosen];
  if (!provider) throw new BadRequestError(`Invalid provider: no provider is named ${JSON.stringify(chosen)}; configured: ${names.join(', ') || 'none'}`);
  return { name: chosen, provider };
}

/**
 * The provider's key, read now (a rotated key applies to the next run).
 * A local server that needs none (Ollama, llama.cpp) is given a placeholder,
 * since the SDKs refuse an empty key. The error names where it looked, never
 * a value.
 */
export function apiKeyOf(name: string, provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (provider.apiKeyFile) {
    if (!existsSync(provider.apiKeyFile)) throw new UnavailableError(`Provider ${name}: its key file ${provider.apiKeyFile} does not exist`);
    const key = readFileSync(provider.apiKeyFile, 'utf8').split(/\r?\n/)[0].trim();
    if (!key) throw new UnavailableError(`Provider ${name}: its key file ${provider.apiKeyFile} is empty`);
    return key;
  }
  const variable = provider.apiKeyEnv ?? DEFAULT_KEY_ENV[provider.api];
  const key = env[variable]?.trim();
  if (key) return key;
  if (provider.baseUrl) return 'no-key';
  throw new UnavailableError(`Provider ${name}: no API key: set ${variable} in serve's environment, or apiKeyFile in config.json`);
}
