import { describe, expect, it } from 'vitest';
import { nonPublicAddress, UrlPolicySchema, urlPolicyProblem, urlPolicyProblemWithoutDns } from '../../relay/src/runtime/url-policy.js';

/** The URL policy's rules on their own; e2e/runtime.test.ts shows them enforced in Chromium. */

const publicOnly = UrlPolicySchema.parse({ mode: 'public-only' });
const resolver = (table: Record<string, string[]>) => async (host: string) => table[host] ?? ['93.184.215.14'];

describe('public-only', () => {
  it('refuses each non-public class by address, name and scheme, and names the rule', async () => {
    const cases: Array<[string, RegExp]> = [
      ['http://127.0.0.1:8080/', /127\.0\.0\.1 is a loopback address/],
      ['http://[::1]/', /loopback/],
      ['http://10.0.0.5/', /private address/],
      ['http://172.20.1.1/', /private address/],
      ['http://192.168.1.1/', /private address/],
      ['http://169.254.169.254/', /link-local address/],
      ['http://[fe80::1]/', /link-local address/],
      ['http://[fd00::1]/', /private address/],
      ['http://[::ffff:10.0.0.1]/', /private address/],
      ['http://100.64.0.1/', /carrier-grade NAT/],
      ['http://localhost/', /localhost is a loopback name/],
      ['http://app.localhost/', /loopback name/],
      ['file:///etc/passwd', /file: URLs are not public/],
      ['chrome://settings', /chrome: URLs are not public/],
      ['data:text/html,x', /data: URLs are not public/],
      ['http://intranet.example/', /intranet\.example resolves to 10\.1\.1\.1, a private address/],
    ];
    for (const [url, rule] of cases) {
      const problem = await urlPolicyProblem(url, publicOnly, resolver({ 'intranet.example': ['10.1.1.1'] }));
      expect(problem, url).toMatch(rule);
      expect(problem, url).toMatch(/^urlPolicy public-only: /);
    }
  });

  it('lets public addresses and names through, and about:blank', async () => {
    for (const url of ['https://example.com/', 'http://8.8.8.8/', 'http://172.32.0.1/', 'about:blank'])
      expect(await urlPolicyProblem(url, publicOnly, resolver({})), url).toBeUndefined();
    expect(nonPublicAddress('2606:4700::1111')).toBeUndefined();
  });
});

describe('allow and deny', () => {
  const policy = UrlPolicySchema.parse({ allow: ['*.example.com', 'example.com'], deny: ['ads.example.com'] });
  it('deny wins, then allow must match', async () => {
    expect(await urlPolicyProblem('https://ads.example.com/x', policy, resolver({}))).toBe('urlPolicy deny: ads.example.com matches "ads.example.com"');
    expect(await urlPolicyProblem('https://docs.example.com/', policy, resolver({}))).toBeUndefined();
    expect(await urlPolicyProblem('https://example.com/', policy, resolver({}))).toBeUndefined();
    expect(await urlPolicyProblem('https://evil.test/', policy, resolver({}))).toMatch(
      /urlPolicy allow: evil\.test matches none of "\*\.example\.com", "example\.com"/,
    );
    // A trailing dot is the same host.
    expect(await urlPolicyProblem('https://ads.example.com./', policy, resolver({}))).toMatch(/deny/);
  });
  it('the relay checks the same rules without resolving names', () => {
    expect(urlPolicyProblemWithoutDns('https://ads.example.com/', policy)).toMatch(/deny/);
    expect(urlPolicyProblemWithoutDns('http://intranet.example/', publicOnly)).toBeUndefined();
    expect(urlPolicyProblemWithoutDns('http://10.0.0.1/', publicOnly)).toMatch(/private/);
  });
  it('refuses patterns that are not host patterns', () => {
    expect(UrlPolicySchema.safeParse({ deny: ['http://x/'] }).success).toBe(false);
  });
});
