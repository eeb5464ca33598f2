import type { Express, Request, Response } from 'express';
import type { z } from 'zod';
import type { PathParamNames, RouteSpec } from '../api/route-spec.js';
import { type RouteKey, ROUTES } from '../api/routes.js';
import { CallerGoneError } from '../runtime/operation.js';
import { validated } from '../validation.js';

/**
 * Binds the control API's handlers to its route table (api/routes.ts), so
 * what the server does and what the OpenAPI document says are one thing:
 * the query and body are parsed with the route's own schemas before the
 * handler runs, a JSON handler must return its route's answer type (checked
 * by the compiler), and `assertAllBound` stops the server at start when a
 * route of the table has no handler.
 */

type Spec<K extends RouteKey> = (typeof ROUTES)[K];
type Parsed<S, F extends 'query' | 'body'> = S extends { [P in F]: infer T extends z.ZodType } ? z.output<T> : undefined;
type AnswerOf<K extends RouteKey> = Spec<K>['answer'] extends z.ZodType ? z.input<Spec<K>['answer']> : never;

export interface RouteInput<K extends RouteKey> {
  query: Parsed<Spec<K>, 'query'>;
  body: Parsed<Spec<K>, 'body'>;
  /** The path's parameters, by the names its key gives them. */
  params: Record<PathParamNames<K>, string>;
  request: Request;
  /** Fires when the HTTP client goes before its answer is written: the work stops with it. */
  signal: AbortSignal;
}

function callerSignal(response: Response): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new CallerGoneError());
  });
  return controller.signal;
}

/** Told of each answered request: its route's pattern, its status, how long it took (GET /metrics). */
export type RequestObserver = (method: string, route: string, status: number, seconds: number) => void;

/** What a request's JSON answer may show: the answer as it goes out (the profile's typed secrets replaced). */
export type AnswerFilter = (request: Request) => <T>(answer: T) => T;

export class RouteBinder {
  private readonly bound = new Set<RouteKey>();

  constructor(
    private readonly app: Express,
    /** The query a route reads: its door's reading of the request (control-door.ts), one parser for both. */
    private readonly queryOf: (request: Request) => Record<string, string>,
    private readonly observe: RequestObserver = () => {},
    private readonly shown: AnswerFilter = () => (answer) => answer,
  ) {}

  /** A JSON route: the handler's value is the answer, with the route's status. */
  json<K extends RouteKey>(key: K, handle: (input: RouteInput<K>) => Promise<AnswerOf<K>> | AnswerOf<K>): void {
    const spec: RouteSpec = ROUTES[key];
    this.bind(key, async (request, response) => {
      const answer = await handle(this.input<K>(spec, request, response));
      response.status(spec.status ?? 200).json(this.shown(request)(answer));
    });
  }

  /** A route that writes its own answer: an image, a page, a stream. */
  media<K extends RouteKey>(key: K, handle: (input: RouteInput<K>, response: Response) => Promise<void> | void, options: { everyMethod?: boolean } = {}): void {
    const spec: RouteSpec = ROUTES[key];
    this.bind(key, (request, response) => handle(this.input<K>(spec, request, response), response), options.everyMethod);
  }

  /** Every route of the table has its handler: a route documented but not served is a bug found at start. */
  assertAllBound(): void {
    const unbound = (Object.keys(ROUTES) as RouteKey[]).filter((key) => !this.bound.has(key));
    if (unbound.length) throw new Error(`Routes in api/routes.ts with no handler: ${unbound.join(', ')}`);
  }

  private bind(key: RouteKey, handler: (request: Request, response: Response) => Promise<void> | void, everyMethod = false): void {
    if (this.bound.has(key)) throw new Error(`Route ${key} is bound twice`);
    this.bound.add(key);
    const [method, path] = key.split(' ') as ['GET' | 'POST' | 'DELETE', string];
    const timed = (request: Request, response: Response) => {
      const started = performance.now();
      response.once('finish', () => this.observe(request.method, path, response.statusCode, (performance.now() - started) / 1000));
      return handler(request, response);
    };
    if (everyMethod) this.app.all(path, timed);
    else this.app[method.toLowerCase() as 'get' | 'post' | 'delete'](path, timed);
  }

  private input<K extends RouteKey>(spec: RouteSpec, request: Request, response: Response): RouteInput<K> {
    return {
      query: (spec.query ? validated(spec.query, this.queryOf(request), 'query') : undefined) as Parsed<Spec<K>, 'query'>,
      body: (spec.body ? validated(spec.body, request.body, 'body') : undefined) as Parsed<Spec<K>, 'body'>,
      params: request.params as Record<PathParamNames<K>, string>,
      request,
      signal: callerSignal(response),
    };
  }
}
