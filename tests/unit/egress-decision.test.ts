import { describe, expect, it } from 'vitest';
import { decideEgress, type EgressRules } from '../../relay/src/egress/egress-decision.js';
import { canonicalAddress, UrlPolicySchema, urlPolicyProblem } from '../../relay/src/runtime/url-policy.js';

/**
 * The egress proxy's decision (egress/egress-decision.ts), with an injected
 * resolver: the name is resolved once, every address is judged, and the
 * address connected to is one that was judged, so a name that would answer
 * differently a second time (DNS rebinding) gains nothing.
 */

const rules = (policy: object | undefined, answers: Record<string, string[] | Error>, forbidden: number[] = []): EgressRules & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    policy: policy === undefined ? undefined : UrlPolicySchema.parse(policy),
    forbiddenPorts: () => new Set(forbidden),
    resolve: async (host) => {
      asked.push(host);
      const answer = answers[host];
      if (answer instanceof Error) throw answer;
      return answer ?? [];
    },
  };
};

describe('decideEgress', () => {
  it('connects to the address it judged, and resolves once', async () => {
    const r = rules({ mode: 'public-only' }, { 'example.com': ['93.184.216.34'] });
    expect(await decideEgress('example.com', 443, r)).toEqual({ address: '93.184.216.34', port: 443 });
    expect(r.asked).toEqual(['example.com']);
  });

  it('public-only: a name with any private address is refused, whatever its first answer', async () => {
    const r = rules({ mode: 'public-only' }, { 'rebind.example': ['93.184.216.34', '127.0.0.1'] });
    expect(await decideEgress('rebind.example', 80, r)).toEqual({ refused: 'urlPolicy public-only: rebind.example resolves to 127.0.0.1, a loopback address' });
    const metadata = rules({ mode: 'public-only' }, { 'meta.example': ['169.254.169.254'] });
    expect(await decideEgress('meta.example', 80, metadata)).toMatchObject({ refused: expect.stringMatching(/link-local/) });
  });

  it('a rebinding name cannot swap its address between the check and the connection', async () => {
    // Answers public the first time and loopback after: only one answer is ever asked for and used.
    let calls = 0;
    const r: EgressRules = {
      policy: UrlPolicySchema.parse({ mode: 'public-only' }),
      forbiddenPorts: () => new Set(),
      resolve: async () => (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    };
    expect(await decideEgress('flip.example', 80, r)).toEqual({ address: '93.184.216.34', port: 80 });
    expect(calls).toBe(1);
  });

  it('deny and allow judge the name; literal and loopback names are refused under public-only without asking DNS', async () => {
    const deny = rules({ deny: ['localhost', '*.internal'] }, {});
    expect(await decideEgress('localhost', 8080, deny)).toEqual({ refused: 'urlPolicy deny: localhost matches "localhost"' });
    expect(await decideEgress('db.internal', 5432, deny)).toEqual({ refused: 'urlPolicy deny: db.internal matches "*.internal"' });
    const publicOnly = rules({ mode: 'public-only' }, {});
    expect(await decideEgress('10.0.0.5', 80, publicOnly)).toEqual({ refused: 'urlPolicy public-only: 10.0.0.5 is a private address' });
    expect(await decideEgress('[::1]', 80, publicOnly)).toMatchObject({ refused: expect.stringMatching(/loopback/) });
    expect(publicOnly.asked).toEqual([]);
  });

  it("public-only lets through the policy's `private` hosts (a local app), and nothing else private", async () => {
    const r = rules({ mode: 'public-only', private: ['127.0.0.1', 'dev.internal'] }, { 'dev.internal': ['10.0.0.2'], 'db.internal': ['10.0.0.3'] });
    expect(await decideEgress('127.0.0.1', 3000, r)).toEqual({ address: '127.0.0.1', port: 3000 });
    expect(await decideEgress('dev.internal', 80, r)).toEqual({ address: '10.0.0.2', port: 80 });
    expect(await decideEgress('db.internal', 80, r)).toMatchObject({
      refused: expect.stringMatching(/db\.internal resolves to 10\.0\.0\.3, a private address/),
    });
    expect(await decideEgress('localhost', 3000, r)).toMatchObject({ refused: 'urlPolicy public-only: localhost is a loopback name' });
  });

  it("never connects to clawd-browser's own ports on this machine, whatever the policy", async () => {
    const r = rules(undefined, { localhost: ['127.0.0.1'] }, [18791, 18792]);
    expect(await decideEgress('127.0.0.1', 18791, r)).toEqual({ refused: "egress: 127.0.0.1:18791 is clawd-browser's own port" });
    expect(await decideEgress('localhost', 18792, r)).toEqual({ refused: "egress: localhost:18792 is clawd-browser's own port" });
    expect(await decideEgress('0.0.0.0', 18792, r)).toMatchObject({ refused: expect.stringMatching(/own port/) });
    expect(await decideEgress('127.0.0.1', 8080, r)).toEqual({ address: '127.0.0.1', port: 8080 });
  });

  it('bad ports and names that do not resolve are refused with why', async () => {
    const r = rules(undefined, { 'gone.example': new Error('getaddrinfo ENOTFOUND gone.example') });
    expect(await decideEgress('gone.example', 80, r)).toEqual({
      refused: 'gone.example does not resolve: the name is unknown, or this machine has no network or DNS (getaddrinfo ENOTFOUND gone.example)',
    });
    expect(await decideEgress('example.com', 0, r)).toMatchObject({ refused: expect.stringMatching(/not a host and port/) });
    expect(await decideEgress('example.com', 70_000, r)).toMatchObject({ refused: expect.stringMatching(/not a host and port/) });
  });
});

describe('an address in the deny list', () => {
  const policy = { mode: 'any', deny: ['127.0.0.1', '169.254.169.254'] };
  const names = {
    localhost: ['127.0.0.1', '::1'],
    'hosts-alias.test': ['127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:169.254.169.254'],
    'example.com': ['93.184.216.34'],
  };

  it('is judged against the address connected to, in every form it can be asked for', async () => {
    const r = rules(policy, names);
    for (const host of [
      '127.0.0.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:7f00:1]',
      'localhost',
      'hosts-alias.test',
      '0.0.0.0',
      '[::]',
      '[::1]',
      '127.0.0.2',
    ])
      expect(await decideEgress(host, 8080, r), host).toMatchObject({
        refused: expect.stringMatching(/^urlPolicy deny: .*(which "127\.0\.0\.1" denies|matches "127\.0\.0\.1")$/),
      });
    for (const host of ['169.254.169.254', '[::ffff:a9fe:a9fe]', '[::ffff:169.254.169.254]', 'metadata.test', 'mapped.test'])
      expect(await decideEgress(host, 80, r), host).toMatchObject({
        refused: expect.stringMatching(/(which "169\.254\.169\.254" denies|matches "169\.254\.169\.254")$/),
      });
    expect(await decideEgress('example.com', 443, r)).toEqual({ address: '93.184.216.34', port: 443 });
    expect(await decideEgress('169.254.169.253', 80, r)).toEqual({ address: '169.254.169.253', port: 80 });
  });

  it('is judged the same before a navigation, by the driver', async () => {
    const parsed = UrlPolicySchema.parse(policy);
    const resolve = async (host: string) => (names as Record<string, string[]>)[host] ?? [];
    expect(await urlPolicyProblem('http://[::ffff:7f00:1]:5/', parsed, resolve)).toBe('urlPolicy deny: [::ffff:7f00:1] is 127.0.0.1, which "127.0.0.1" denies');
    expect(await urlPolicyProblem('http://localhost:5/', parsed, resolve)).toBe('urlPolicy deny: localhost is 127.0.0.1, which "127.0.0.1" denies');
    expect(await urlPolicyProblem('http://0.0.0.0:5/', parsed, resolve)).toBe('urlPolicy deny: 0.0.0.0 is 0.0.0.0, which "127.0.0.1" denies');
    expect(await urlPolicyProblem('http://example.com/', parsed, resolve)).toBeUndefined();
    // public-only still refuses what it refused, and its private list still lets through (but never past a deny).
    const strict = UrlPolicySchema.parse({ mode: 'public-only', deny: ['10.0.0.9'], private: ['127.0.0.1'] });
    expect(await urlPolicyProblem('http://[::1]/', strict, resolve)).toBe('urlPolicy public-only: [::1] is a loopback address');
    expect(await urlPolicyProblem('http://127.0.0.1:5/', strict, resolve)).toBeUndefined();
    expect(await urlPolicyProblem('http://10.0.0.9/', strict, resolve)).toBe('urlPolicy deny: 10.0.0.9 matches "10.0.0.9"');
  });

  it('writes every form of an address one way', () => {
    expect(['::ffff:127.0.0.1', '[::FFFF:7F00:1]', '0:0:0:0:0:ffff:7f00:1', '127.0.0.1'].map(canonicalAddress)).toEqual(Array(4).fill('127.0.0.1'));
    expect(canonicalAddress('[2001:db8::1]')).toBe('2001:db8:0:0:0:0:0:1');
    expect(canonicalAddress('::')).toBe('0:0:0:0:0:0:0:0');
    expect(canonicalAddress('example.com')).toBeUndefined();
  });
});
