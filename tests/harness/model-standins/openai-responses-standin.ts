import type { ServerResponse } from 'node:http';
import { decideWithScreen, decideWithTools, type Decision, tokensOf } from './policy.js';
import { pictureOf, type RecordedRequest, sendEvent, sendJson, type StandIn, startStandIn } from './standin-server.js';
import { type Exchange, lastIndexWhere, parseArgs, transcriptOf } from './transcript.js';

/**
 * A stand-in for the OpenAI Responses API (`POST /v1/responses`), as
 * OpenAI documents it for computer use: the `computer_use_preview` tool
 * (display and environment) or `computer`, and `function` tools; the
 * server keeps each response, and a request goes on from one by
 * `previous_response_id` (an unknown one is a 400); `output` items
 * `message`, `function_call` and `computer_call` (with `call_id`, its
 * `action`, `pending_safety_checks`); answered by `function_call_output`
 * and `computer_call_output` (a `computer_screenshot` image URL); `usage`
 * with `input_tokens`, `output_tokens`, `total_tokens`; with `stream:
 * true`, typed events with `sequence_number`: `response.created`,
 * `response.output_item.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`, `response.output_item.done`,
 * `response.completed`.
 */

type Item = Record<string, unknown> & { type?: string; role?: string };

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return ((content as Array<{ type: string; text?: string }>) ?? []).map((part) => part.text ?? '').join('\n');
}

/** A user's message that is a goal (not a picture a tool answered with, nor a failure note): a continued session has one per run. */
function isGoal(item: Item): boolean {
  return item.role === 'user' && !/^The (picture the tool answered with|computer action failed)/.test(textOf(item.content));
}

/** The latest goal, and the calls made since it. */
function exchangesOf(all: Item[]): { goal: string; exchanges: Exchange[]; firstPicture?: Buffer } {
  const items = all.slice(lastIndexWhere(all, isGoal));
  const first = items[0];
  const firstImage = Array.isArray(first?.content) ? (first.content as Item[]).find((part) => part.type === 'input_image') : undefined;
  const exchanges: Exchange[] = [];
  const byId = new Map<string, Exchange>();
  for (const item of items) {
    if (item.type === 'function_call' || item.type === 'computer_call') {
      const call =
        item.type === 'function_call'
          ? { name: String(item.name), args: parseArgs(item.arguments) }
          : { name: 'computer', args: (item.action ?? (item.actions as Item[])?.[0] ?? {}) as Record<string, unknown> };
      const exchange: Exchange = { call };
      exchanges.push(exchange);
      byId.set(String(item.call_id), exchange);
    }
    if (item.type === 'function_call_output') {
      const exchange = byId.get(String(item.call_id));
      if (exchange) exchange.result = String(item.output);
    }
    if (item.type === 'computer_call_output') {
      const exchange = byId.get(String(item.call_id));
      if (exchange) exchange.picture = pictureOf((item.output as Item)?.image_url);
    }
    if (item.role === 'user' && item !== first && exchanges.length) {
      const image = Array.isArray(item.content) ? (item.content as Item[]).find((part) => part.type === 'input_image') : undefined;
      if (image) exchanges.at(-1)!.picture = pictureOf(image.image_url);
      const said = textOf(item.content);
      if (said.startsWith('The computer action failed:')) exchanges.at(-1)!.result = `Error: ${said}`;
    }
  }
  return { goal: textOf(first?.content), exchanges, firstPicture: firstImage ? pictureOf(firstImage.image_url) : undefined };
}

let serial = 0;
const next = (prefix: string) => `${prefix}_${(++serial).toString(16).padStart(12, '0')}`;

function outputOf(decision: Decision, batched: boolean): Item[] {
  const said = 'answer' in decision ? decision.answer : decision.say;
  const items: Item[] = said
    ? [{ type: 'message', id: next('msg'), status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: said, annotations: [] }] }]
    : [];
  if (!('call' in decision)) return items;
  const { name, args } = decision.call;
  if (name !== 'computer')
    return [...items, { type: 'function_call', id: next('fc'), call_id: next('call'), name, arguments: JSON.stringify(args), status: 'completed' }];
  const coordinate = args.coordinate as number[] | undefined;
  const action = args.action === 'left_click' && coordinate ? { type: 'click', button: 'left', x: coordinate[0], y: coordinate[1] } : { type: 'wait' };
  return [
    ...items,
    {
      type: 'computer_call',
      id: next('cu'),
      call_id: next('call'),
      ...(batched ? { actions: [action] } : { action }),
      pending_safety_checks: [],
      status: 'completed',
    },
  ];
}

export function startOpenAiResponsesStandIn(options: { key?: string } = {}): Promise<StandIn> {
  /** Each response kept as the API keeps it: the whole conversation up to and including its output. */
  const kept = new Map<string, Item[]>();
  const answer = (request: RecordedRequest, response: ServerResponse) => {
    if (request.path !== '/v1/responses') return sendJson(response, 404, { error: { message: `Unknown path ${request.path}`, type: 'invalid_request_error' } });
    const body = request.body as {
      model: string;
      input: string | Item[];
      previous_response_id?: string;
      tools?: Item[];
      stream?: boolean;
      instructions?: string;
    };
    const before = body.previous_response_id ? kept.get(body.previous_response_id) : [];
    if (!before)
      return sendJson(response, 400, {
        error: {
          message: `Previous response with id '${body.previous_response_id}' not found.`,
          type: 'invalid_request_error',
          param: 'previous_response_id',
          code: 'previous_response_not_found',
        },
      });
    const input: Item[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
    const conversation = [...before, ...input];
    const computer = body.tools?.find((tool) => tool.type === 'computer_use_preview' || tool.type === 'computer');
    const { goal, exchanges, firstPicture } = exchangesOf(conversation);
    const seen = transcriptOf(goal, exchanges, firstPicture);
    const output = outputOf(
      computer
        ? decideWithScreen(seen)
        : decideWithTools(
            seen,
            (body.tools ?? []).map((tool) => String(tool.name)),
          ),
      computer?.type === 'computer',
    );
    const id = next('resp');
    kept.set(id, [...conversation, ...output]);
    const usage = {
      input_tokens: tokensOf([body.instructions, conversation]),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: tokensOf(output),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    };
    usage.total_tokens = usage.input_tokens + usage.output_tokens;
    const whole = (status: string, items: Item[], withUsage: boolean) => ({
      id,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      model: body.model,
      output: items,
      previous_response_id: body.previous_response_id ?? null,
      instructions: body.instructions ?? null,
      tools: body.tools ?? [],
      parallel_tool_calls: true,
      error: null,
      incomplete_details: null,
      usage: withUsage ? usage : null,
    });
    if (!body.stream) return sendJson(response, 200, whole('completed', output, true));
    let sequence = 0;
    const emit = (type: string, data: object) => sendEvent(response, { type, sequence_number: sequence++, ...data }, type);
    emit('response.created', { response: whole('in_progress', [], false) });
    emit('response.in_progress', { response: whole('in_progress', [], false) });
    for (const [index, item] of output.entries()) {
      const base = { output_index: index, item_id: item.id };
      if (item.type === 'message') {
        const text = textOf(item.content);
        emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        emit('response.content_part.added', { ...base, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const piece of text.match(/.{1,16}/gs) ?? []) emit('response.output_text.delta', { ...base, content_index: 0, delta: piece, logprobs: [] });
        emit('response.output_text.done', { ...base, content_index: 0, text, logprobs: [] });
        emit('response.content_part.done', { ...base, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
      } else if (item.type === 'function_call') {
        emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const piece of String(item.arguments).match(/.{1,10}/gs) ?? []) emit('response.function_call_arguments.delta', { ...base, delta: piece });
        emit('response.function_call_arguments.done', { ...base, arguments: item.arguments });
      } else {
        emit('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
      }
      emit('response.output_item.done', { output_index: index, item });
    }
    emit('response.completed', { response: whole('completed', output, true) });
    response.end();
  };
  return startStandIn((request, response) => {
    if (options.key && request.headers.authorization !== `Bearer ${options.key}`)
      return sendJson(response, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
    answer(request, response);
  });
}
