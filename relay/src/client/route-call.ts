import type { z } from 'zod';
import type { RouteKey, ROUTES } from '../api/routes.js';
import type { PathParamNames, QueryInput } from '../api/route-spec.js';
import { BadRequestError } from '../errors.js';

/**
 * The typed client's one way to call a route: by its key in the route table
 * (api/routes.ts), with the input the table's schemas take and the answer its
 * schema gives, so a route renamed, moved or reshaped there breaks its callers
 * at compile time. The table is imported as a type only: a command's start
 * loads none of its schemas, since the method and path are the key itself.
 */

type Spec<K extends RouteKey> = (typeof ROUTES)[K];

type ParamsOf<K extends RouteKey> = [PathParamNames<K>] extends [never] ? never : Record<PathParamNames<K>, string>;
type QueryOf<K extends RouteKey> = Spec<K> extends { query: infer Q extends z.ZodType } ? QueryInput<Q> : never;
type BodyOf<K extends RouteKey> = Spec<K> extends { body: infer B extends z.ZodType } ? z.input<B> : never;

/** A part of the input: absent for a route without it, optional when everything in it is. */
type Part<Name extends string, T> = [T] extends [never] ? unknown : object extends T ? { [P in Name]?: T } : { [P in Name]: T };

/** What route `K` takes: its path's parameters, its query, its body, as its schemas say. */
export type RouteInput<K extends RouteKey> = Part<'params', ParamsOf<K>> & Part<'query', QueryOf<K>> & Part<'body', BodyOf<K>>;

/** What route `K` answers, as its schema says (never for a page, a picture, a stream). */
export type RouteAnswer<K extends RouteKey> = Spec<K>['answer'] extends z.ZodType ? z.output<Spec<K>['answer']> : never;

/** The input argument: left out where the route needs nothing. */
export type RouteArgs<K extends RouteKey> = object extends RouteInput<K> ? [input?: RouteInput<K>] : [input: RouteInput<K>];

/** One call of a route by its key: the typed client's, and what its feature clients are given. */
export type RouteCall = <K extends RouteKey>(key: K, ...input: RouteArgs<K>) => Promise<RouteAnswer<K>>;

/** The untyped view of an input, for the wire. */
export interface WireInput {
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, unknown>>;
  body?: unknown;
}

/** A route key's method and its path, the path's `:name` segments filled from `params` (each encoded). */
export function routeTarget(key: string, params: Readonly<Record<string, string>> = {}): { method: string; path: string } {
  const space = key.indexOf(' ');
  const method = key.slice(0, space);
  const path = key.slice(space + 1).replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== 'string' || value === '') throw new BadRequestError(`${key}: ${name} is missing`);
    return encodeURIComponent(value);
  });
  return { method, path };
}
