import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../errors.js';

/**
 * The one reading of a request's target (its path and query), for every door
 * of both servers and every route behind them (spec §9). A door decides what
 * a credential reaches from the path and the query, and a route then acts on
 * them: if the two read one target differently (a parser that keeps the first
 * thousand parameters and one that keeps them all, one that resolves `..` or
 * `\` and a router that does not, one that takes a name's first value and one
 * its last), a request is judged as one thing and served as another. So both
 * read it here, once:
 * - the path is the target before its `?`, exactly as sent, and it must be a
 *   plain path: no dot segments (`.`, `..`, `%2e`), no backslash, no leading
 *   `//`, no fragment, nothing a URL parser would rewrite (a 400 otherwise);
 * - the query is read whole, as URLSearchParams reads it: over
 *   MAX_QUERY_PARAMETERS parameters it is a 400, never cut short; a name a
 *   door or a route reads is given once (a 400 otherwise).
 * Nothing is ever appended to a target: what a door decides beyond it (the
 * profile a session's key means) travels beside it (control-door.ts).
 */

/** The most parameters a query may have: far more than any route takes, far fewer than what would slow a reading. */
export const MAX_QUERY_PARAMETERS = 100;

export class RequestQuery {
  constructor(private readonly pairs: ReadonlyArray<readonly [string, string]>) {}

  get size(): number {
    return this.pairs.length;
  }

  /** The value of `name`, undefined when absent; a 400 when it is given twice (which one was meant?). */
  one(name: string): string | undefined {
    const values = this.pairs.filter(([key]) => key === name);
    if (values.length > 1) throw repeated(name);
    return values[0]?.[1];
  }

  /** Every parameter by name, for a route's schema; a 400 when any is given twice. */
  record(): Record<string, string> {
    const record: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [key, value] of this.pairs) {
      if (Object.hasOwn(record, key)) throw repeated(key);
      record[key] = value;
    }
    return { ...record };
  }
}

export interface RequestTarget {
  /** The path as routes match it: the target before its `?`, as sent. */
  path: string;
  /** The query as sent, with its `?`, or ''. */
  search: string;
  query: RequestQuery;
}

const repeated = (name: string) =>
  new BadRequestError(`Query parameter ${JSON.stringify(name.slice(0, 64))} is given more than once: give each parameter once`);

/** Whether `path` is one no URL parser would rewrite: absolute, no `//` start, no backslash, no dot segments or encodings it resolves. */
export function isPlainPath(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.includes('\\') || path.includes('#')) return false;
  try {
    return new URL(path, 'http://plain.invalid').pathname === path;
  } catch {
    return false;
  }
}

/** Reads a request target (`/path?query`); throws a 400 naming what is wrong with it. */
export function readTarget(raw: string): RequestTarget {
  const at = raw.indexOf('?');
  const path = at === -1 ? raw : raw.slice(0, at);
  const search = at === -1 ? '' : raw.slice(at);
  if (!isPlainPath(path) || search.includes('#'))
    throw new BadRequestError('The request target must be a plain path (/…, without dot segments, backslashes or a fragment) and its query');
  // (A target is at most Node's header size, 16 KiB: reading all of it is cheap.)
  const pairs = [...new URLSearchParams(search)];
  if (pairs.length > MAX_QUERY_PARAMETERS)
    throw new BadRequestError(
      `The query has ${pairs.length} parameters: at most ${MAX_QUERY_PARAMETERS} are read, and a longer query is refused rather than read in part`,
    );
  return { path, search, query: new RequestQuery(pairs) };
}

/** A request's target, read once (again only when the URL was rewritten: a console's path taken off); throws a 400. */
export function requestTarget(request: Pick<IncomingMessage, 'url'>): RequestTarget {
  const raw = request.url ?? '/';
  const known = read.get(request);
  if (known?.raw === raw) return known.target;
  const target = readTarget(raw);
  read.set(request, { raw, target });
  return target;
}

/**
 * What a door does first: reads the target, and checks that the names it or
 * its routes read (every name, without `names`) are each given once; throws
 * a 400. Every later reading of the request is then the same one.
 */
export function admitTarget(request: Pick<IncomingMessage, 'url'>, names?: readonly string[]): RequestTarget {
  const target = requestTarget(request);
  if (names) for (const name of names) target.query.one(name);
  else target.query.record();
  return target;
}

/** The names the relay's doors read (its `/json/new?<url>` takes a URL's own query whole: only these must be given once). */
export const RELAY_QUERY_NAMES = ['profile', 'token', 'group', 'url'] as const;

const read = new WeakMap<object, { raw: string; target: RequestTarget }>();

/** The query parser the control API's Express uses: this one, so that nothing behind the door reads a query another way. */
export function parseQueryString(search: string): Record<string, string> {
  return readTarget(`/?${search}`).query.record();
}
