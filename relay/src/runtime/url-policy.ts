import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { z } from 'zod';
import { HostPattern } from '../api/schemas.js';

/**
 * The optional URL policy (config `urlPolicy`, spec §12): which top-level
 * URLs a tab may be sent to, on every profile. `public-only` refuses
 * loopback, private and link-local addresses (literal, `localhost`, or a
 * name that resolves to one) and `file:`, `chrome:` and `data:` URLs; `allow`
 * and `deny` are host patterns (`example.com`, `*.example.com`, `*`). A
 * refusal names the rule. Pure but for the resolver, which callers pass
 * (`resolveHost`, the system's, or a test's).
 */

export const UrlPolicySchema = z.strictObject({
  mode: z.enum(['any', 'public-only']).default('any'),
  allow: z.array(HostPattern).default([]),
  deny: z.array(HostPattern).default([]),
  /** In public-only mode, hosts let through though they are loopback or private (a developer's local app, an intranet site). */
  private: z.array(HostPattern).default([]),
});
export type UrlPolicy = z.infer<typeof UrlPolicySchema>;

export type Resolve = (host: string) => Promise<string[]>;

/** The system's resolver: every address a name has. What the checks use outside tests. */
export const resolveHost: Resolve = async (host) => (await lookup(host, { all: true })).map((entry) => entry.address);

/**
 * The policy a task session gets when config.json sets no `urlPolicy`:
 * public addresses only. An agent on the web with lent logins must not
 * reach this machine's or its network's own services (the SSRF class);
 * a local app is let through by a `urlPolicy` with `private` hosts.
 */
export const SESSION_DEFAULT_POLICY: UrlPolicy = { mode: 'public-only', allow: [], deny: [], private: [] };

/**
 * How a public-only refusal of `url` (its host loopback or private) is
 * lifted, said after the refusal: config.json's `private` list for every
 * browser the policy holds, or, for one task session, the hosts its opener
 * lets it reach. Only whoever holds the token opens sessions: a session's
 * own key cannot widen what it reaches. Empty for any other refusal.
 */
export function privateHostRemedy(refusal: string, url: string): string {
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase().replace(/\.$/, '') : '';
  if (!host || !refusal.startsWith(`urlPolicy public-only: ${host} `)) return '';
  return `. To allow ${host}: add ${JSON.stringify(host)} to urlPolicy.private in config.json; or, for one task session, whoever holds the token opens it with allowPrivate ["${host}"] (clawd-browser session-open --allow-private ${host})`;
}

/** True when public-only lets `host` (as a URL writes it: `[::1]` for IPv6) through though it is loopback or private (the policy's `private` list). */
export function privateAllowed(policy: UrlPolicy, host: string): boolean {
  return policy.private.some((pattern) => matches(pattern, host.toLowerCase()));
}

/** True when the policy can refuse anything (so nothing need be intercepted otherwise). */
/** Requests the URL policy refused in a browser (CDP Fetch) since this process started: GET /metrics. */
let browserRefusals = 0;

/** A guard refused a request in a browser (driver/network/browser-url-guard.ts, url-policy-guard.ts). */
export function countBrowserRefusal(): void {
  browserRefusals++;
}

export function browserRefusalCount(): number {
  return browserRefusals;
}

export function policyActive(policy: UrlPolicy | undefined): policy is UrlPolicy {
  return !!policy && (policy.mode === 'public-only' || policy.allow.length > 0 || policy.deny.length > 0);
}

function matches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  if (p === '*') return true;
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/** Why an IP address is not public, or undefined when it is. */
export function nonPublicAddress(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  const version = isIP(ip);
  if (version === 4) {
    const [a, b] = ip.split('.').map(Number);
    if (a === 127) return 'a loopback address';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private address';
    if (a === 169 && b === 254) return 'a link-local address';
    if (a === 0) return 'an unspecified address';
    if (a === 100 && b >= 64 && b <= 127) return 'a shared (carrier-grade NAT) address';
    return undefined;
  }
  if (version === 6) {
    if (ip === '::1') return 'a loopback address';
    if (ip === '::') return 'an unspecified address';
    if (/^f[cd]/.test(ip)) return 'a private address';
    if (/^fe[89ab]/.test(ip)) return 'a link-local address';
    // IPv4-mapped: ::ffff:10.0.0.1, which URL parsing writes as ::ffff:a00:1.
    const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
    if (dotted) return nonPublicAddress(dotted[1]);
    const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ip);
    if (hex) {
      const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
      return nonPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
    }
    return undefined;
  }
  return undefined;
}

/**
 * An address as it is connected to, in one form: an IPv4-mapped IPv6
 * address is its IPv4 address, an IPv6 one is written out whole; undefined
 * for what is not an address.
 */
export function canonicalAddress(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(ip) === 4) return ip;
  if (isIP(ip) !== 6) return undefined;
  const [head, tail = ''] = ip.split('::');
  const part = (text: string) => (text ? text.split(':') : []);
  let groups = [...part(head), ...part(tail)];
  // A dotted IPv4 tail is two groups.
  const last = groups.at(-1) ?? '';
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number);
    groups = [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  }
  const filled = ip.includes('::') ? [...part(head), ...Array(8 - groups.length).fill('0'), ...groups.slice(part(head).length)] : groups;
  const words = filled.map((group) => parseInt(group, 16));
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) return `${words[6] >> 8}.${words[6] & 255}.${words[7] >> 8}.${words[7] & 255}`;
  return words.map((word) => word.toString(16)).join(':');
}

/** This machine, whichever of its addresses (in canonicalAddress's form): loopback, or unspecified (0.0.0.0 and :: connect to it). */
function thisMachine(canonical: string): boolean {
  return /^(127|0)\./.test(canonical) || canonical === '0:0:0:0:0:0:0:1' || canonical === '0:0:0:0:0:0:0:0';
}

/**
 * The deny entry an address falls under, when the deny list names
 * addresses: each is judged against the address actually connected to, in
 * every form (IPv4-mapped, written out, by a name that resolves to it), and
 * an entry naming this machine (127.0.0.1, ::1, 0.0.0.0) stands for all its
 * addresses, since a service bound to 0.0.0.0 answers on every one.
 */
export function deniedAddress(policy: UrlPolicy | undefined, address: string): string | undefined {
  const connected = canonicalAddress(address);
  if (!policy || connected === undefined) return undefined;
  return policy.deny.find((pattern) => {
    const entry = canonicalAddress(pattern);
    return entry !== undefined && (entry === connected || (thisMachine(entry) && thisMachine(connected)));
  });
}

/** Whether the deny list names addresses (then a name is resolved to judge it, whatever the mode). */
function deniesAddresses(policy: UrlPolicy): boolean {
  return policy.deny.some((pattern) => canonicalAddress(pattern) !== undefined);
}

/** Why `url` may not be opened under `policy`, or undefined when it may. */
export async function urlPolicyProblem(url: string, policy: UrlPolicy | undefined, resolve: Resolve): Promise<string | undefined> {
  const judged = judge(url, policy);
  if (typeof judged !== 'object') return judged;
  let addresses: string[];
  try {
    addresses = await resolve(judged.resolve);
  } catch {
    return undefined; // it will not load either; the browser says why
  }
  for (const address of addresses) {
    const denied = deniedAddress(policy, address);
    if (denied) return `urlPolicy deny: ${judged.resolve} is ${address}, which ${JSON.stringify(denied)} denies`;
    const why = policy?.mode === 'public-only' && !privateAllowed(policy, judged.resolve) ? nonPublicAddress(address) : undefined;
    if (why) return `urlPolicy public-only: ${judged.resolve} resolves to ${address}, ${why}`;
  }
  return undefined;
}

/**
 * The same without DNS, for the relay's synchronous CDP gate: names are not
 * resolved there (the driver's own checks and interception resolve them).
 */
export function urlPolicyProblemWithoutDns(url: string, policy: UrlPolicy | undefined): string | undefined {
  const judged = judge(url, policy);
  return typeof judged === 'object' ? undefined : judged;
}

/** A refusal, undefined (allowed), or the host name whose addresses decide. */
function judge(url: string, policy: UrlPolicy | undefined): string | undefined | { resolve: string } {
  if (!policyActive(policy)) return undefined;
  if (url === 'about:blank') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `urlPolicy: ${JSON.stringify(url)} is not a URL`;
  }
  const scheme = parsed.protocol;
  if (policy.mode === 'public-only' && (scheme === 'file:' || scheme === 'chrome:' || scheme === 'data:'))
    return `urlPolicy public-only: ${scheme} URLs are not public`;
  if (scheme !== 'http:' && scheme !== 'https:') return undefined; // other schemes are the URL gate's to judge
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  const denied = policy.deny.find((pattern) => matches(pattern, host));
  if (denied) return `urlPolicy deny: ${host} matches ${JSON.stringify(denied)}`;
  if (policy.allow.length && !policy.allow.some((pattern) => matches(pattern, host)))
    return `urlPolicy allow: ${host} matches none of ${policy.allow.map((p) => JSON.stringify(p)).join(', ')}`;
  // An address the deny list names is judged by the address itself, in every form; a name, by what it resolves to.
  const literal = isIP(host.replace(/^\[|\]$/g, '')) !== 0;
  const deniedHere = literal ? deniedAddress(policy, host) : undefined;
  if (deniedHere) return `urlPolicy deny: ${host} is ${canonicalAddress(host)}, which ${JSON.stringify(deniedHere)} denies`;
  const byAddress = !literal && deniesAddresses(policy) ? { resolve: host } : undefined;
  if (policy.mode !== 'public-only' || privateAllowed(policy, host)) return byAddress;
  if (host === 'localhost' || host.endsWith('.localhost')) return `urlPolicy public-only: ${host} is a loopback name`;
  const nonPublic = nonPublicAddress(host);
  if (nonPublic) return `urlPolicy public-only: ${host} is ${nonPublic}`;
  return literal ? undefined : { resolve: host };
}
