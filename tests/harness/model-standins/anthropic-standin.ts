import type { ServerResponse } from 'node:http';
import { decideWithScreen, decideWithTools, type Decision, tokensOf } from './policy.js';
import { type RecordedRequest, sendEvent, sendJson, type StandIn, startStandIn } from './standin-server.js';
import { type Exchange, lastIndexWhere, transcriptOf } from './transcript.js';

/**
 * A stand-in for the Anthropic Messages API (`POST /v1/messages`), as
 * Anthropic documents it: the key (`x-api-key`, or `Authorization: Bearer` as the SDK sends it) and the `anthropic-version` header;
 * `tools` with `input_schema`, and the computer tool (`type:
 * computer_YYYYMMDD`, `name: computer`, the display in pixels), refused
 * without its `anthropic-beta` header; an answer's `content` of `text` and
 * `tool_use` blocks, `stop_reason` `tool_use` or `end_turn`, `usage` with
 * `input_tokens` and `output_tokens`; with `stream: true`, the events
 * `message_start`, `content_block_start`, `content_block_delta`
 * (`text_delta`, `input_json_delta`), `content_block_stop`, `message_delta`
 * (the stop reason and output tokens), `message_stop`, and a `ping`.
 */

type Block = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  tool_use_id?: string;
  content?: Block[] | string;
  source?: { data: string };
};
interface Message {
  role: string;
  content: string | Block[];
}

function blocks(content: Message['content']): Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The latest goal (a user's message that is not tool results), and the calls made since it. */
function exchangesOf(messages: Message[]): { goal: string; exchanges: Exchange[]; firstPicture?: Buffer } {
  const from = lastIndexWhere(messages, (message) => message.role === 'user' && !blocks(message.content).some((block) => block.type === 'tool_result'));
  const first = blocks(messages[from]?.content ?? '');
  const goal = first
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');
  const image = first.find((block) => block.type === 'image');
  const exchanges: Exchange[] = [];
  const byId = new Map<string, Exchange>();
  for (const message of messages.slice(from + 1)) {
    for (const block of blocks(message.content)) {
      if (block.type === 'tool_use') {
        const exchange: Exchange = { call: { name: block.name ?? '', args: block.input ?? {} } };
        exchanges.push(exchange);
        byId.set(block.id ?? '', exchange);
      }
      if (block.type === 'tool_result') {
        const exchange = byId.get(block.tool_use_id ?? '');
        if (!exchange) continue;
        const parts = blocks(block.content ?? '');
        exchange.result = parts
          .filter((part) => part.type === 'text')
          .map((part) => part.text)
          .join('\n');
        const picture = parts.find((part) => part.type === 'image');
        if (picture?.source) exchange.picture = Buffer.from(picture.source.data, 'base64');
      }
    }
  }
  return { goal, exchanges, firstPicture: image?.source ? Buffer.from(image.source.data, 'base64') : undefined };
}

let serial = 0;

function contentOf(decision: Decision): Block[] {
  if ('answer' in decision) return [{ type: 'text', text: decision.answer }];
  return [
    ...(decision.say ? [{ type: 'text', text: decision.say }] : []),
    { type: 'tool_use', id: `toolu_${String(++serial).padStart(6, '0')}`, name: decision.call.name, input: decision.call.args },
  ];
}

function answer(request: RecordedRequest, response: ServerResponse): void {
  if (request.path !== '/v1/messages')
    return sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `Unknown path ${request.path}` } });
  const body = request.body as { model: string; messages: Message[]; tools?: Array<{ type?: string; name: string }>; stream?: boolean; max_tokens?: number };
  if (!request.headers['anthropic-version'])
    return sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
  if (typeof body.max_tokens !== 'number')
    return sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } });
  const computer = body.tools?.find((tool) => tool.type?.startsWith('computer_'));
  if (computer && !String(request.headers['anthropic-beta'] ?? '').includes('computer-use-')) {
    return sendJson(response, 400, {
      type: 'error',
      error: { type: 'invalid_request_error', message: `tools.0: the computer tool ${computer.type} needs its anthropic-beta header` },
    });
  }
  const { goal, exchanges, firstPicture } = exchangesOf(body.messages);
  const seen = transcriptOf(goal, exchanges, firstPicture);
  const content = contentOf(
    computer
      ? decideWithScreen(seen)
      : decideWithTools(
          seen,
          (body.tools ?? []).map((tool) => tool.name),
        ),
  );
  const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const id = `msg_${String(++serial).padStart(8, '0')}`;
  const usage = {
    input_tokens: tokensOf([body.messages, body.tools]),
    output_tokens: tokensOf(content),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  if (!body.stream)
    return sendJson(response, 200, { id, type: 'message', role: 'assistant', model: body.model, content, stop_reason: stopReason, stop_sequence: null, usage });
  sendEvent(
    response,
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
    'message_start',
  );
  sendEvent(response, { type: 'ping' }, 'ping');
  for (const [index, block] of content.entries()) {
    if (block.type === 'text') {
      sendEvent(response, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start');
      for (const piece of block.text?.match(/.{1,16}/gs) ?? [])
        sendEvent(response, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta');
    } else {
      sendEvent(
        response,
        { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
        'content_block_start',
      );
      for (const piece of JSON.stringify(block.input).match(/.{1,10}/gs) ?? [])
        sendEvent(response, { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }, 'content_block_delta');
    }
    sendEvent(response, { type: 'content_block_stop', index }, 'content_block_stop');
  }
  sendEvent(
    response,
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } },
    'message_delta',
  );
  sendEvent(response, { type: 'message_stop' }, 'message_stop');
  response.end();
}

/** The key a request carries: `x-api-key`, or `Authorization: Bearer` (which the SDK sends since its 1.x). */
export function anthropicKeyOf(headers: RecordedRequest['headers']): string | undefined {
  return (headers['x-api-key'] as string | undefined) ?? /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
}

/** With `key`, a request that does not carry it is a 401 as Anthropic answers it. */
export function startAnthropicStandIn(options: { key?: string } = {}): Promise<StandIn> {
  return startStandIn((request, response) => {
    if (options.key && anthropicKeyOf(request.headers) !== options.key)
      return sendJson(response, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    answer(request, response);
  });
}
