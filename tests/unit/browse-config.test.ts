import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyOf, BrowseConfigSchema, providerNamed, ProviderConfigSchema } from '../../relay/src/config/browse-config.js';

/** Providers by name, and their keys: from a variable or a file, and an error that names where it looked, never a value. */

const dir = mkdtempSync(join(tmpdir(), 'clawd-browse-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('providers', () => {
  const config = BrowseConfigSchema.parse({
    providers: { local: { api: 'openai-chat', model: 'qwen', baseUrl: 'http://127.0.0.1:11434/v1' }, claude: { api: 'anthropic', model: 'c' } },
  });

  it('a call names one, else the default, else the only one; a wrong name lists those there are', () => {
    expect(providerNamed(config, 'claude').provider.model).toBe('c');
    expect(providerNamed({ ...config, defaultProvider: 'local' }, undefined).name).toBe('local');
    expect(() => providerNamed(config, undefined)).toThrow('Invalid provider: name one of local, claude (or set browse.defaultProvider in config.json)');
    expect(() => providerNamed(config, 'gpt')).toThrow('Invalid provider: no provider is named "gpt"; configured: local, claude');
    expect(() => providerNamed(BrowseConfigSchema.parse({}), undefined)).toThrow(/No model provider is configured: add one under browse.providers/);
  });

  it('a bad provider in config.json is an error naming the field', () => {
    const parsed = BrowseConfigSchema.safeParse({ providers: { x: { api: 'gemini', model: 'm' } } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0].path).toEqual(['providers', 'x', 'api']);
  });
});

describe('keys', () => {
  it('from the named variable, the vendor default, or a file (its first line)', () => {
    expect(apiKeyOf('p', ProviderConfigSchema.parse({ api: 'anthropic', model: 'm', apiKeyEnv: 'MY_KEY' }), { MY_KEY: ' k1 ' })).toBe('k1');
    expect(apiKeyOf('p', ProviderConfigSchema.parse({ api: 'openai-responses', model: 'm' }), { OPENAI_API_KEY: 'k2' })).toBe('k2');
    const file = join(dir, 'key');
    writeFileSync(file, 'k3\nignored\n');
    expect(apiKeyOf('p', ProviderConfigSchema.parse({ api: 'openai-chat', model: 'm', apiKeyFile: file }), {})).toBe('k3');
  });

  it('a local server needs none; a hosted one without a key says where it looked, never a value', () => {
    expect(apiKeyOf('local', ProviderConfigSchema.parse({ api: 'openai-chat', model: 'm', baseUrl: 'http://127.0.0.1:8000/v1' }), {})).toBe('no-key');
    expect(() => apiKeyOf('claude', ProviderConfigSchema.parse({ api: 'anthropic', model: 'm' }), { OTHER: 'secret-value' })).toThrow(
      "Provider claude: no API key: set ANTHROPIC_API_KEY in serve's environment, or apiKeyFile in config.json",
    );
    const empty = join(dir, 'empty');
    writeFileSync(empty, '\n');
    expect(() => apiKeyOf('p', ProviderConfigSchema.parse({ api: 'anthropic', model: 'm', apiKeyFile: empty }), {})).toThrow(
      `Provider p: its key file ${empty} is empty`,
    );
  });
});
