import { z } from 'zod';

/**
 * An address as people and models type it, read as a browser's address bar
 * reads it: `example.com` is https://example.com, `localhost:3000` and
 * `127.0.0.1:8080` are http:// (a local server rarely has a certificate),
 * and anything with a scheme of its own (`https://…`, `about:blank`,
 * `file:///…`) is taken as written. Every URL field of the API goes through
 * `WebUrl`, so the HTTP API, the CLI, MCP and the typed client read the same
 * thing the same way; what may then be opened is the URL gate's and the URL
 * policy's to say.
 */

/** A host typed without a scheme, with an optional port and path: `example.com`, `localhost:3000/app`, `[::1]:8080`. */
const BARE = /^(?<host>\[[0-9a-f:.]+\]|[^\s/?#:@[\]]+)(?::(?<port>\d{1,5}))?(?<rest>[/?#]\S*)?$/i;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
/** A name with a dot whose last label is a top-level domain (letters, or punycode). */
const DOTTED_NAME = /^([^.\s]+\.)+([a-z\u00a1-\uffff]{2,}|xn--[a-z0-9-]+)\.?$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** The URL `typed` means, or undefined when it is no address at all ("foo bar", "hello"). */
export function webAddress(typed: string): string | undefined {
  const input = typed.trim();
  const bare = BARE.exec(input);
  if (bare?.groups) {
    const host = bare.groups.host.toLowerCase();
    const local = host === 'localhost' || host.endsWith('.localhost') || IPV4.test(host) || host.startsWith('[');
    // A single-label name is an address only with a port ("intranet:8080"); alone it is a word.
    const named = DOTTED_NAME.test(host) || (bare.groups.port !== undefined && /^[a-z0-9-]+$/.test(host));
    if (local || named) {
      const url = `${local || !DOTTED_NAME.test(host) ? 'http' : 'https'}://${input}`;
      if (URL.canParse(url)) return url;
    }
  }
  return SCHEME.test(input) && URL.canParse(input) ? input : undefined;
}

/** A URL field of the API: read as `webAddress` reads it, and said plainly when it is none. */
export const WebUrl = z
  .string()
  .min(1, 'give a web address, like https://example.com')
  .transform((typed, context) => {
    const url = webAddress(typed);
    if (url !== undefined) return url;
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(typed)} is not a web address: give one like https://example.com, example.com or localhost:3000`,
    });
    return z.NEVER;
  });

/** The origin of a URL, `https://bank.example:8443` (undefined for one that has none: about:blank, data:, not a URL). */
export function originOf(url: string | undefined): string | undefined {
  try {
    const origin = url ? new URL(url).origin : 'null';
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
