import { isIP } from 'node:net';
import { deniedAddress, nonPublicAddress, privateAllowed, type Resolve, type UrlPolicy, urlPolicyProblemWithoutDns } from '../runtime/url-policy.js';

/**
 * What the egress proxy decides for one connection a browser asks for (a
 * host and a port, from a CONNECT or a proxied request): refused, with the
 * rule, or the one address to connect to. The name is resolved here, once,
 * and the proxy connects to the address that was judged: a name cannot
 * resolve to a public address for the check and a private one for the
 * connection (DNS rebinding), because there is no second resolution.
 *
 * Whatever the policy, clawd-browser's own doors (the control API, the
 * relay, every egress proxy) are never connected to: a page must not reach
 * the server that drives it, or another session's way out.
 */

export type EgressDecision = { address: string; port: number } | { refused: string };

export interface EgressRules {
  policy: UrlPolicy | undefined;
  resolve: Resolve;
  /** Ports on this machine that no browser may reach (the server's own, the proxies'). */
  forbiddenPorts: () => ReadonlySet<number>;
}

export async function decideEgress(host: string, port: number, rules: EgressRules): Promise<EgressDecision> {
  const name = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (!name || !Number.isInteger(port) || port < 1 || port > 65_535) return { refused: `egress: ${JSON.stringify(`${host}:${port}`)} is not a host and port` };
  // The policy's rules on the name (deny, allow, public-only's loopback names and literal addresses).
  const literal = isIP(name) ? (isIP(name) === 6 ? `[${name}]` : name) : name;
  const byName = urlPolicyProblemWithoutDns(`http://${literal}:${port}/`, rules.policy);
  if (byName) return { refused: byName };
  let addresses: string[];
  try {
    addresses = isIP(name) ? [name] : await rules.resolve(name);
  } catch (error) {
    return { refused: `${name} does not resolve: the name is unknown, or this machine has no network or DNS (${(error as Error).message.split('\n')[0]})` };
  }
  if (!addresses.length) return { refused: `${name} does not resolve: the name is unknown, or this machine has no network or DNS` };
  // An address the deny list names, in whatever form it was asked for or resolved to.
  for (const address of addresses) {
    const denied = deniedAddress(rules.policy, address);
    if (denied) return { refused: `urlPolicy deny: ${name} is ${address}, which ${JSON.stringify(denied)} denies` };
  }
  // public-only judges every address the name has: any one of them could be the one connected to.
  if (rules.policy?.mode === 'public-only' && !privateAllowed(rules.policy, literal)) {
    for (const address of addresses) {
      const why = nonPublicAddress(address);
      if (why) return { refused: `urlPolicy public-only: ${name} resolves to ${address}, ${why}` };
    }
  }
  const address = addresses.find((candidate) => isIP(candidate) === 4) ?? addresses[0];
  if (rules.forbiddenPorts().has(port) && isThisMachine(address)) return { refused: `egress: ${name}:${port} is clawd-browser's own port` };
  return { address, port };
}

/** Loopback, or the unspecified address (which connects to this machine). */
function isThisMachine(address: string): boolean {
  const why = nonPublicAddress(address);
  return why === 'a loopback address' || why === 'an unspecified address' || address.startsWith('::ffff:127.');
}
