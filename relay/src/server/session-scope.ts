import { SESSION_PROFILE_PREFIX } from '../api/limits.js';
import { ForbiddenError } from '../errors.js';
import type { RequestTarget } from './request-target.js';

/**
 * Least privilege (spec §9): a task session's own key reaches that session
 * and nothing else. The routes that act on one profile's browser take it,
 * with `?profile=` naming its session or left out (then it is meant); MCP
 * over `/mcp` is scoped to it. Everything else (other sessions and profiles,
 * the session list, the vault, grants, the dashboard, the action log of all)
 * is the main token's. A refusal names what the key may do and nothing of
 * what else exists.
 */

/** Routes that act on one profile's browser: `METHOD path` patterns. */
const SESSION_ROUTES: Array<[string, RegExp]> = [
  ['GET', /^\/$/],
  ['POST', /^\/(start|stop|navigate|screenshot|pdf|act)$/],
  // Its own labelled screenshots and computer use.
  ['POST', /^\/(screenshot\/labelled|computer\/(openai|anthropic))$/],
  // The tools its pages offer.
  ['GET', /^\/page-tools$/],
  ['POST', /^\/page-tools\/call$/],
  ['GET', /^\/(tabs|console|snapshot|text|downloads|screencast|screencast\/frame)$/],
  // Its own hand-offs to a person (the service finds only its session's).
  ['POST', /^\/handoff$/],
  ['GET', /^\/handoff\/[0-9a-f]+$/],
  ['DELETE', /^\/handoff\/[0-9a-f]+$/],
  // Its own toolbox (cookie values stay hidden: those are the token's holder's).
  ['GET', /^\/(emulation|routes|init-scripts|storage\/(cookies|items|state))$/],
  ['POST', /^\/(emulation|routes|init-scripts|storage\/(cookies|items|state))$/],
  ['DELETE', /^\/(emulation|routes\/r\d+|init-scripts\/s\d+|storage\/(cookies|items))$/],
  ['POST', /^\/tabs\/(open|focus)$/],
  ['DELETE', /^\/tabs\/[^/]+$/],
  ['POST', /^\/hooks\/(file-chooser|dialog)$/],
  ['POST', /^\/screencast\/input$/],
  // Its own record (credential headers stay redacted: those are the token's holder's).
  ['POST', /^\/(network\/record|network\/har|trace\/start|trace\/stop|video\/start|video\/stop)$/],
  ['GET', /^\/(network|network\/body|script|videos|videos\/file)$/],
  // Demonstrations in its own tabs, and routines run on it (what a routine reaches is its session's). A note is a
  // person's words: the key reads them and marks them done, and writing one is the token's (the console's).
  ['POST', /^\/(demonstrations\/(start|stop)|notes\/done)$/],
  ['GET', /^\/(demonstrations|notes|routines)$/],
  ['GET', /^\/routines\/[a-z0-9._-]+(\/script)?$/],
  ['POST', /^\/routines\/[a-z0-9._-]+\/run$/],
];

const REACH = "A task session's key reaches its own session's browser routes and /mcp only";

/**
 * Checks a request made with a session's key, on its target as the routes
 * read it (request-target.ts), and answers the profile it reaches: the one
 * it names, which must be its session's, or its session's when it names none
 * (the door hands that to the routes beside the target: nothing is appended
 * to it). Throws a 403 otherwise.
 */
export function admitSessionRequest(method: string, target: RequestTarget, session: string): string {
  const own = `${SESSION_PROFILE_PREFIX}${session}`;
  const { path, query } = target;
  const named = query.one('profile');
  if (named !== undefined && named !== own) throw new ForbiddenError(`${REACH}: this one reaches profile ${own}, not ${JSON.stringify(named)}`);
  const closesItself = method === 'DELETE' && path === `/sessions/${session}`;
  const allowed = closesItself || path === '/mcp' || SESSION_ROUTES.some(([verb, pattern]) => verb === method && pattern.test(path));
  if (!allowed) throw new ForbiddenError(`${REACH}: this route is the main token's`);
  // Text a person cannot see (page-runtime/page-sight.ts) is shown to a person debugging, never to an agent's key.
  const hidden = query.one('hidden');
  if (hidden !== undefined && hidden !== 'false' && hidden !== '0')
    throw new ForbiddenError(`${REACH}: hidden=true (text a person cannot see, for debugging) is the main token's`);
  return own;
}
