import { describe, expect, it } from 'vitest';
import { EXTENSION_ORIGIN } from '../../protocol/constants.js';
import { checkRequest, guardFor, hostName, isLoopbackHost } from '../../relay/src/server/request-guard.js';

const token = 'a'.repeat(64);
const options = { token, allowedOrigins: [EXTENSION_ORIGIN] };
const request = (headers: Record<string, string>, url = '/json/version') => ({ headers, url });

describe('request guard (spec §9)', () => {
  it('knows loopback host names with and without ports', () => {
    expect(hostName('127.0.0.1:18792')).toBe('127.0.0.1');
    expect(hostName('[::1]:18792')).toBe('[::1]');
    expect(isLoopbackHost('localhost:1')).toBe(true);
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('evil.example:18792')).toBe(false);
    expect(isLoopbackHost('127.0.0.1.evil.example')).toBe(false);
    expect(isLoopbackHost('')).toBe(false);
  });
  it('accepts the token as a Bearer header or a query parameter', () => {
    expect(checkRequest(request({ host: '127.0.0.1:1', authorization: `Bearer ${token}` }), options)).toEqual({ ok: true, tokenVia: 'header' });
    expect(checkRequest(request({ host: 'localhost:1' }, `/cdp?token=${token}`), options)).toEqual({ ok: true, tokenVia: 'query' });
  });
  it('refuses a missing or wrong token with 401', () => {
    expect(checkRequest(request({ host: '127.0.0.1' }), options)).toMatchObject({ ok: false, status: 401, message: expect.stringMatching(/Missing token/) });
    expect(checkRequest(request({ host: '127.0.0.1', authorization: 'Bearer nope' }), options)).toMatchObject({ ok: false, status: 401 });
    expect(checkRequest(request({ host: '127.0.0.1' }, '/cdp?token=nope'), options)).toMatchObject({ ok: false, status: 401 });
  });
  it('refuses foreign Host (DNS rebinding) and web Origins with 403, even with the token', () => {
    const auth = { authorization: `Bearer ${token}` };
    expect(checkRequest(request({ host: 'rebind.example:18792', ...auth }), options)).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringMatching(/Host/),
    });
    expect(checkRequest(request({ host: '127.0.0.1', origin: 'https://evil.example', ...auth }), options)).toMatchObject({
      ok: false,
      status: 403,
      message: expect.stringMatching(/Origin/),
    });
    expect(checkRequest(request({ host: '127.0.0.1', origin: 'chrome-extension://someoneelse', ...auth }), options)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest(request({ host: '127.0.0.1', origin: EXTENSION_ORIGIN, ...auth }), options)).toMatchObject({ ok: true });
  });
  it('allows an explicitly configured non-loopback bind host', () => {
    const auth = { authorization: `Bearer ${token}` };
    expect(checkRequest(request({ host: '10.1.2.3:18792', ...auth }), { ...options, extraHosts: ['10.1.2.3'] })).toMatchObject({ ok: true });
  });
  it('builds the guard for a bind address: loopback binds add no host, explicit ones add theirs', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1']) expect(guardFor(token, host).extraHosts).toEqual([]);
    expect(guardFor(token, '10.1.2.3')).toEqual({ token, allowedOrigins: [EXTENSION_ORIGIN], extraHosts: ['10.1.2.3'] });
    expect(guardFor(token, '127.0.0.1', ['https://ok.example']).allowedOrigins).toEqual([EXTENSION_ORIGIN, 'https://ok.example']);
    // A load balancer's name (config hostNames) is answered to on a non-loopback bind only; other names stay refused.
    const fleet = guardFor(token, '0.0.0.0', [], ['Clawd.Internal']);
    expect(checkRequest(request({ host: 'clawd.internal:18791', authorization: `Bearer ${token}` }), fleet)).toMatchObject({ ok: true });
    expect(checkRequest(request({ host: 'evil.example:18791', authorization: `Bearer ${token}` }), fleet)).toMatchObject({ ok: false, status: 403 });
    expect(guardFor(token, '127.0.0.1', [], ['clawd.internal']).extraHosts).toEqual([]);
  });
});
