import { z } from 'zod';
import type { MediaAnswer, RouteSpec } from './route-spec.js';
import { ROUTES } from './routes.js';

/**
 * The OpenAPI 3.1 document of the control API, generated from the route
 * table (api/routes.ts) and the zod schemas the server validates with: no
 * hand-written copy to drift. Served at `GET /openapi.json`, and checked in
 * as docs/openapi.json (`npm run openapi` writes it; `npm run typecheck`
 * fails when it is stale).
 */

type Json = Record<string, unknown>;

const ERROR_BODY = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'bad_request',
            'unauthorized',
            'forbidden',
            'not_found',
            'gone',
            'ambiguous',
            'conflict',
            'disabled',
            'unavailable',
            'timeout',
            'too_many',
            'too_large',
            'internal',
          ],
        },
        message: { type: 'string', description: 'What went wrong, and what to do about it' },
        details: {
          type: 'object',
          additionalProperties: { type: ['string', 'number', 'boolean'] },
          description: 'What a caller can act on: a stale ref and why, the next step, …',
        },
      },
    },
  },
} as const;

const ERROR_MEANING: Record<number, string> = {
  400: 'The request is malformed: the message names the field',
  401: 'No token, or the wrong one',
  403: 'Refused: a URL policy, a guardrail, or a key that does not reach this',
  404: 'No such profile, tab, session or resource',
  409: 'A conflict: an ambiguous target, a name in use, a stale ref',
  410: 'Gone: the task session ended (its key no longer opens anything)',
  413: 'The body is too large',
  429: 'Too many: a session or operation limit was reached',
  503: 'Not available now: the profile is disabled, the extension is not connected, the vault has no key',
  504: 'The wait ran out: the answer says what was waited for',
};

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as Json;
  delete json.$schema;
  return json;
}

/** A query schema's properties as OpenAPI parameters (a query string is flat). */
function queryParameters(schema: z.ZodType): Json[] {
  const json = schemaOf(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as Json & { description?: string };
    return { name, in: 'query', required: json.required?.includes(name) ?? false, ...(description ? { description } : {}), schema: rest };
  });
}

function isMedia(answer: RouteSpec['answer']): answer is MediaAnswer {
  return typeof (answer as MediaAnswer).media === 'string';
}

function successOf(spec: RouteSpec): [string, Json] {
  const { answer } = spec;
  if (!isMedia(answer))
    return [String(spec.status ?? 200), { description: spec.summary, content: { 'application/json': { schema: schemaOf(answer, 'output') } } }];
  if (answer.media === 'redirect') return ['302', { description: answer.description }];
  const schema = answer.media === 'image/jpeg' ? { type: 'string', contentMediaType: 'image/jpeg' } : { type: 'string' };
  return ['200', { description: answer.description, content: { [answer.media]: { schema } } }];
}

function operationOf(key: string, spec: RouteSpec): Json {
  const errors = new Set<number>([...(spec.public ? [] : [401]), ...(spec.query || spec.body || spec.params ? [400] : []), ...(spec.errors ?? [])]);
  const [status, success] = successOf(spec);
  const responses: Json = { [status]: success };
  for (const code of [...errors].sort())
    responses[String(code)] = { description: ERROR_MEANING[code], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  if (spec.sameBodyOn) responses[String(spec.sameBodyOn.status)] = { ...success, description: spec.sameBodyOn.description };
  const parameters = [
    ...Object.entries(spec.params ?? {}).map(([name, description]) => ({ name, in: 'path', required: true, description, schema: { type: 'string' } })),
    ...(spec.query ? queryParameters(spec.query) : []),
  ];
  return {
    operationId: operationIdOf(key),
    summary: spec.summary,
    tags: [spec.tag],
    ...(spec.public ? { security: [] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(spec.body, 'input') } } } } : {}),
    responses,
  };
}

/** `POST /tabs/open` → `postTabsOpen`; `DELETE /tabs/:targetId` → `deleteTabsByTargetId`. */
function operationIdOf(key: string): string {
  const [method, path] = key.split(' ');
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((part) => (part.startsWith(':') ? ['by', part.slice(1)] : part.split(/[-.]/)));
  return method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
}

export function openApiDocument(version: string): Json {
  const paths: Record<string, Json> = {};
  for (const [key, spec] of Object.entries(ROUTES) as Array<[string, RouteSpec]>) {
    const [method, path] = key.split(' ');
    const openApiPath = path.replace(/:(\w+)/g, '{$1}');
    paths[openApiPath] = { ...paths[openApiPath], [method.toLowerCase()]: operationOf(key, spec) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'clawd-browser control API',
      version,
      description:
        'A browser for AI agents: managed Chromium profiles, tabs shared from your own Chrome, and task sessions, behind one local API. ' +
        'Every route takes `?profile=` where it acts on a browser (the default profile otherwise). ' +
        "Send the token (`$CLAWD_HOME/token`) as `Authorization: Bearer <token>`; a task session's key reaches that session's routes only.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:18791', description: 'The default local server' }],
    security: [{ token: [] }],
    tags: [...new Set(Object.values(ROUTES).map((spec) => spec.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: { token: { type: 'http', scheme: 'bearer', description: "The token in $CLAWD_HOME/token, or a task session's key" } },
      schemas: { Error: ERROR_BODY },
    },
  };
}
