import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderConfigSchema } from '../../relay/src/config/browse-config.js';
import { providerFor } from '../../relay/src/browse/providers/provider-for.js';
import { pageFunctions } from '../../relay/src/browse/page-toolset.js';
import type { StandIn } from '../harness/model-standins/standin-server.js';
import { startOpenAiChatStandIn } from '../harness/model-standins/openai-chat-standin.js';
import { anthropicKeyOf, startAnthropicStandIn } from '../harness/model-standins/anthropic-standin.js';
import { startOpenAiResponsesStandIn } from '../harness/model-standins/openai-responses-standin.js';

/**
 * Each provider's conversation through its vendor's SDK against a stand-in
 * of its API (real HTTP, the documented shapes, streamed and not): the
 * asks it decodes, the results it sends back in the API's own shapes, the
 * usage it reads from the provider's own fields, the key it sends, and a
 * cancel that closes the request's socket.
 */

const KEY = 'sk-test-standin-key';
const SNAPSHOT = 'Form — http://site/\n- textbox "Full name" [ref=e3]\n- button "Send" [ref=e4]';
const stands: Record<string, StandIn> = {};

beforeAll(async () => {
  stands['openai-chat'] = await startOpenAiChatStandIn({ key: KEY });
  stands.anthropic = await startAnthropicStandIn({ key: KEY });
  stands['openai-responses'] = await startOpenAiResponsesStandIn({ key: KEY });
});
afterAll(async () => {
  for (const stand of Object.values(stands)) await stand.close();
});

const base = (api: string, stand: StandIn) => (api === 'anthropic' ? stand.url : `${stand.url}/v1`);

for (const api of ['openai-chat', 'anthropic', 'openai-responses'] as const) {
  for (const stream of [true, false]) {
    describe(`${api}${stream ? ', streamed' : ''}`, () => {
      it("asks for the tools the goal needs, reads their results, answers; usage is the provider's", async () => {
        const stand = stands[api];
        const config = ProviderConfigSchema.parse({ api, model: 'stand-in-1', baseUrl: base(api, stand), apiKeyEnv: 'STANDIN_KEY', stream });
        const provider = await providerFor('test', config, { STANDIN_KEY: KEY });
        const conversation = provider.conversation({ system: 'be brief', tools: pageFunctions() });
        const from = stand.requests.length;
        conversation.say('type "Ada" into "Full name", then answer "sent"');

        const first = await conversation.next(new AbortController().signal);
        expect(first.asks).toEqual([expect.objectContaining({ kind: 'function', name: 'browser_snapshot' })]);
        expect(first.usage.inputTokens).toBeGreaterThan(0);
        conversation.answer([{ id: first.asks[0].id, computer: false, text: SNAPSHOT, failed: false }]);

        const second = await conversation.next(new AbortController().signal);
        expect(second.asks).toEqual([expect.objectContaining({ name: 'browser_act', input: { kind: 'type', ref: 'e3', text: 'Ada' } })]);
        conversation.answer([{ id: second.asks[0].id, computer: false, text: 'type: done', failed: false }]);

        const third = await conversation.next(new AbortController().signal);
        expect(third.asks).toEqual([]);
        expect(third.text).toBe('sent');

        // What went over the wire: the vendor's own shapes.
        const sent = stand.requests.slice(from);
        expect(sent).toHaveLength(3);
        expect(sent.every((request) => (request.body.stream ?? false) === stream)).toBe(true);
        if (api === 'anthropic') {
          expect(anthropicKeyOf(sent[0].headers)).toBe(KEY);
          expect(JSON.stringify(sent[2].body.messages)).toContain('"tool_result"');
        } else expect(sent[0].headers.authorization).toBe(`Bearer ${KEY}`);
        if (api === 'openai-responses') expect(sent[2].body.previous_response_id).toMatch(/^resp_/);
        if (api === 'openai-chat') expect(JSON.stringify(sent[2].body.messages)).toContain('"role":"tool"');
      });
    });
  }

  it(`${api}: a cancel drops the request in flight (the provider sees its socket close)`, async () => {
    const stand = stands[api];
    const provider = await providerFor('test', ProviderConfigSchema.parse({ api, model: 'stand-in-1', baseUrl: base(api, stand), apiKeyEnv: 'STANDIN_KEY' }), {
      STANDIN_KEY: KEY,
    });
    const conversation = provider.conversation({ system: '', tools: pageFunctions() });
    conversation.say('answer "never"');
    stand.stall = true;
    try {
      const controller = new AbortController();
      const asked = conversation.next(controller.signal);
      await stand.arrived();
      const dropped = stand.dropped.length;
      controller.abort(new Error('cancelled'));
      await expect(asked).rejects.toThrow();
      await expect.poll(() => stand.dropped.length).toBe(dropped + 1);
    } finally {
      stand.stall = false;
    }
  });

  it(`${api}: a wrong key is the provider's 401, and the key is nowhere in the error`, async () => {
    const stand = stands[api];
    const provider = await providerFor('test', ProviderConfigSchema.parse({ api, model: 'm', baseUrl: base(api, stand), apiKeyEnv: 'STANDIN_KEY' }), {
      STANDIN_KEY: 'sk-wrong-secret-value',
    });
    const conversation = provider.conversation({ system: '', tools: [] });
    conversation.say('answer "x"');
    const error = (await conversation.next(new AbortController().signal).catch((caught: unknown) => caught)) as Error & { status?: number };
    expect(error.status).toBe(401);
    expect(`${error.message} ${error.stack}`).not.toContain('sk-wrong-secret-value');
  });
}
