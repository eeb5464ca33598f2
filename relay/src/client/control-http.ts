import { request as httpRequest } from 'node:http';
import { type ClawdError, errorFromBody, TimeoutError, UnauthorizedError, UnavailableError } from '../errors.js';

/**
 * The client's side of the wire: one request, and what its answer means.
 * clawd-browser answers JSON, its refusals `{ error: { code, message } }`
 * (errors.ts). Anything else at the address (a web server's page, another
 * program's 404) is said as such: the address is wrong, not the request.
 * A refused credential is said as what the caller presented, since the
 * server only knows it does not know it: this home's token meeting another
 * home's server, or a key whose session has ended.
 */

export interface ControlResponse {
  status: number;
  contentType: string;
  text: string;
  /** The answer as it came: a picture's bytes. */
  bytes: Buffer;
}

/** What a client's token is. */
export type Credential =
  { kind: 'home token'; home: string; /** false: the home has no token yet, no server of it ever ran. */ made: boolean } | { kind: 'session key' };

/**
 * One request on a fresh connection. Without keep-alive a client that
 * outlives a server restart never writes into a socket the old server closed;
 * on loopback the extra handshake costs a fraction of a millisecond.
 */
export function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ControlResponse> {
  return new Promise((resolve, reject) => {
    // Aborting destroys the socket: the server sees its caller go and stops the work.
    const request = httpRequest(url, { method, headers, agent: false, timeout: timeoutMs, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), text: bytes.toString('utf8'), bytes });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new TimeoutError('timed out')));
    request.on('error', reject);
    request.end(body);
  });
}

/** The answer's JSON, or the typed error it (or the address) means. */
export function readAnswer<T>(response: ControlResponse, context: { baseUrl: string; credential?: Credential }): T {
  let parsed: unknown;
  try {
    parsed = response.text ? JSON.parse(response.text) : undefined;
  } catch {
    throw notClawd(response, context.baseUrl);
  }
  if (response.status < 400) return parsed as T;
  const refusal = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof refusal?.code !== 'string' || typeof refusal.message !== 'string') throw notClawd(response, context.baseUrl);
  const error = errorFromBody(response.status, parsed) satisfies ClawdError;
  if (error.code === 'unauthorized' && context.credential) refused(error, context.baseUrl, context.credential);
  throw error;
}

function notClawd(response: ControlResponse, baseUrl: string): UnavailableError {
  const what = [`HTTP ${response.status}`, response.contentType.split(';')[0]].filter(Boolean).join(', ');
  return new UnavailableError(
    `Something other than clawd-browser answers at ${baseUrl} (${what}): check --url, CLAWD_URL and controlUrl in config.json (\`clawd-browser doctor\` says what answers there)`,
  );
}

function refused(error: ClawdError, baseUrl: string, credential: Credential): never {
  if (credential.kind === 'session key')
    throw new UnauthorizedError(
      `The clawd-browser server at ${baseUrl} does not know this key (--key or CLAWD_KEY): its session has ended, or it is another server's key`,
    );
  const home = credential.made ? `this home's token (${credential.home})` : `a token: this home (${credential.home}) has none yet, no server of it has run`;
  throw new UnauthorizedError(
    `The clawd-browser server at ${baseUrl} is another CLAWD_HOME's: it refuses ${home}. Run with that server's CLAWD_HOME, or stop it and start this home's (\`clawd-browser serve\`)`,
    error.details,
  );
}
