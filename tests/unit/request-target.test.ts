import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../relay/src/errors.js';
import { isPlainPath, MAX_QUERY_PARAMETERS, parseQueryString, readTarget } from '../../relay/src/server/request-target.js';

/**
 * The one reading of a request target (pure): the query whole or a 400,
 * never its first thousand keys; a name read once; a path nothing rewrites.
 */
describe('a request target', () => {
  it('is read whole up to the limit, and refused past it rather than cut short', () => {
    const under = Array.from({ length: MAX_QUERY_PARAMETERS - 1 }, () => 'a').join('&');
    expect(readTarget(`/tabs?${under}&profile=session-x`).query.size).toBe(MAX_QUERY_PARAMETERS);
    for (const query of [Array.from({ length: 1000 }, () => 'a').join('&'), `${under}&b&profile=session-x`])
      expect(() => readTarget(`/tabs?${query}`)).toThrow(
        new BadRequestError(
          `The query has ${query.split('&').length} parameters: at most ${MAX_QUERY_PARAMETERS} are read, and a longer query is refused rather than read in part`,
        ),
      );
  });

  it('gives a name read once, and refuses one given twice', () => {
    const { query } = readTarget('/snapshot?profile=session-x&hidden=false&hidden=true&q=a+b%21');
    expect(query.one('profile')).toBe('session-x');
    expect(query.one('q')).toBe('a b!');
    expect(query.one('absent')).toBeUndefined();
    expect(() => query.one('hidden')).toThrow('Query parameter "hidden" is given more than once: give each parameter once');
    expect(() => query.record()).toThrow(BadRequestError);
    expect(readTarget('/x?a=1&b=').query.record()).toEqual({ a: '1', b: '' });
    // A name like __proto__ is a name, not a way into the object.
    expect(parseQueryString('__proto__=x&constructor=y')).toEqual({ ['__proto__']: 'x', constructor: 'y' });
  });

  it('takes plain paths only: what a URL parser rewrites and a router does not is a 400', () => {
    for (const path of ['/', '/tabs', '/routines/a.b-c', '/json/activate/ABC%20D']) expect(isPlainPath(path), path).toBe(true);
    for (const raw of [
      '/grants/..\\tabs\\x',
      '/./tabs',
      '/a/../tabs',
      '/a/%2e%2e/tabs',
      '/a/%2E/b',
      '//host/tabs',
      'tabs',
      'http://x/tabs',
      '/tabs#x',
      '/tabs?x#y',
      '*',
    ])
      expect(() => readTarget(raw), raw).toThrow('The request target must be a plain path');
    expect(readTarget('/json/new?http://example.com/?a=1&a=2')).toMatchObject({ path: '/json/new', search: '?http://example.com/?a=1&a=2' });
  });
});
