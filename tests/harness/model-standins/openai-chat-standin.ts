import type { ServerResponse } from 'node:http';
import { decideWithTools } from './policy.js';
import { pictureOf, type RecordedRequest, sendEvent, sendJson, type StandIn, startStandIn } from './standin-server.js';
import { tokensOf } from './policy.js';
import { type Exchange, lastIndexWhere, parseArgs, transcriptOf } from './transcript.js';

/**
 * A stand-in for an OpenAI-compatible Chat Completions server
 * (`POST /v1/chat/completions`), as OpenAI documents it: `tools` of type
 * `function`; an answer with `choices[0].message.tool_calls` or `content`;
 * `usage` with `prompt_tokens`, `completion_tokens`, `total_tokens`; with
 * `stream: true`, `chat.completion.chunk` events whose tool-call arguments
 * come in pieces, then (with `stream_options.include_usage`) a last chunk
 * with empty `choices` and the usage, then `data: [DONE]`.
 */

interface ChatMessage {
  role: string;
  content?: string | Array<{ type: string; text?: string; image_url?: { url: string } }> | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((part) => part.text ?? '').join('\n');
}

/** A user's message that is a goal (not a picture a tool answered with): a continued session has one per run. */
function isGoal(message: ChatMessage): boolean {
  return message.role === 'user' && !textOf(message.content).startsWith('The picture the tool answered with');
}

/** The latest goal, and the calls made since it (a model works on what it was last asked). */
function exchangesOf(messages: ChatMessage[]): { goal: string; exchanges: Exchange[] } {
  const from = lastIndexWhere(messages, isGoal);
  const goal = textOf(messages[from]?.content);
  const exchanges: Exchange[] = [];
  const byId = new Map<string, Exchange>();
  for (const message of messages.slice(from + 1)) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        const exchange: Exchange = { call: { name: call.function.name, args: parseArgs(call.function.arguments) } };
        exchanges.push(exchange);
        byId.set(call.id, exchange);
      }
    }
    if (message.role === 'tool' && message.tool_call_id) {
      const exchange = byId.get(message.tool_call_id);
      if (exchange) exchange.result = textOf(message.content);
    }
    // A picture a tool answered with follows as a user message.
    if (message.role === 'user' && Array.isArray(message.content) && exchanges.length) {
      const image = message.content.find((part) => part.type === 'image_url');
      if (image) exchanges.at(-1)!.picture = pictureOf(image.image_url?.url);
    }
  }
  return { goal, exchanges };
}

let serial = 0;

function answer(request: RecordedRequest, response: ServerResponse): void {
  if (request.path !== '/v1/chat/completions')
    return sendJson(response, 404, { error: { message: `Unknown path ${request.path}`, type: 'invalid_request_error' } });
  const body = request.body as {
    model: string;
    messages: ChatMessage[];
    tools?: Array<{ function: { name: string } }>;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
  };
  const { goal, exchanges } = exchangesOf(body.messages);
  const decision = decideWithTools(
    transcriptOf(goal, exchanges),
    (body.tools ?? []).map((tool) => tool.function.name),
  );
  const id = `chatcmpl-${++serial}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCalls =
    'call' in decision
      ? [{ id: `call_${serial}`, type: 'function' as const, function: { name: decision.call.name, arguments: JSON.stringify(decision.call.args) } }]
      : undefined;
  const content = 'call' in decision ? (decision.say ?? null) : decision.answer;
  const usage = { prompt_tokens: tokensOf(body.messages), completion_tokens: tokensOf({ content, toolCalls }), total_tokens: 0 };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const finish = toolCalls ? 'tool_calls' : 'stop';
  if (!body.stream) {
    return sendJson(response, 200, {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}), refusal: null },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage,
    });
  }
  const withUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: object, finishReason: string | null = null) =>
    sendEvent(response, {
      id,
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(withUsage ? { usage: null } : {}),
    });
  chunk({ role: 'assistant', content: '' });
  if (content) for (const piece of content.match(/.{1,12}/gs) ?? []) chunk({ content: piece });
  for (const [index, call] of (toolCalls ?? []).entries()) {
    chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const piece of call.function.arguments.match(/.{1,10}/gs) ?? []) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  }
  chunk({}, finish);
  if (withUsage) sendEvent(response, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage });
  sendEvent(response, '[DONE]');
  response.end();
}

/** With `key`, a request without `Authorization: Bearer <key>` is a 401 as OpenAI answers it. */
export function startOpenAiChatStandIn(options: { key?: string } = {}): Promise<StandIn> {
  return startStandIn((request, response) => {
    if (options.key && request.headers.authorization !== `Bearer ${options.key}`)
      return sendJson(response, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
    answer(request, response);
  });
}
