/** A task session answers on every route as the profile `session-<id>` (its own name space: no profile may be created there). */
export const SESSION_PROFILE_PREFIX = 'session-';

/** A session's id from its id or its profile name (`session-<id>`, as `session-open` prints it). */
export function sessionIdOf(idOrProfile: string): string {
  return idOrProfile.startsWith(SESSION_PROFILE_PREFIX) ? idOrProfile.slice(SESSION_PROFILE_PREFIX.length) : idOrProfile;
}

/**
 * Limits every surface shares (the server checks them; the client and the
 * CLI size their own timeouts from them). Plain numbers: the client reads
 * them without loading the schemas.
 */

/** Spec §6: hooks and waits default to, and may not exceed, two minutes. */
export const MAX_WAIT_MS = 120_000;
/** How long one Playwright step of an action (a click, a fill, a screenshot, a navigation) may take. */
export const ACTION_TIMEOUT_MS = 30_000;
/** A wait's default timeout (`timeoutMs` may raise it to MAX_WAIT_MS). */
export const WAIT_DEFAULT_MS = 30_000;

/**
 * The characters an agent's client (MCP, the CLI) asks a snapshot for unless
 * told otherwise: a long page's outline is cut with a note saying how to see
 * the rest (find, scope, a larger maxChars), instead of costing its reader
 * tens of thousands of tokens. The HTTP API itself cuts nothing unasked.
 */
export const AGENT_SNAPSHOT_CHARS = 16_000;

/** The header naming the agent a request is for (runtime/agent-context.ts): its requests without targetId mean its own tabs. */
export const AGENT_HEADER = 'x-clawd-agent';
