import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { DashboardAuth } from './dashboard-auth.js';
import { CONSOLE_HEADER, FleetCarrier, sessionOfRequest } from './fleet-carrier.js';
import type { HandoffAccess } from './handoff-access.js';
import type { PickerAccess } from './picker-access.js';
import { asHttpFailure, sendError } from './http-errors.js';
import { checkCookieFetch, checkHostAndOrigin, checkRequest, type GuardOptions, type GuardResult, presentedSecret, refusal } from './request-guard.js';
import { admitTarget, requestTarget } from './request-target.js';
import { admitSessionRequest } from './session-scope.js';

/**
 * The control API's door (spec §9): every request passes it before
 * anything else, and leaves with what its credential reaches. The token
 * reaches everything; the console's cookie stands for it; a session's key
 * reaches its own session's routes (session-scope.ts); a hand-off's cookie
 * its one hand-off; the one-time links and `/pressure` need none. In a
 * fleet, a call for a session another server holds is carried there from
 * here (fleet-carrier.ts), before its body is read.
 *
 * What a credential reaches is judged on the request's target as the routes
 * read it, by the one parser both use (request-target.ts), and the profile a
 * session's key means when it names none is handed to the routes beside the
 * query (`queryOf`), never appended to it.
 */
export class ControlDoor {
  /** Requests made with a task session's key → that session's id. */
  private readonly scopes = new WeakMap<Request, string>();
  /** Requests made with the token itself (not a session's key, not the dashboard's cookie). */
  private readonly tokenHolders = new WeakSet<Request>();
  /** Requests the person makes in the tab picker, with its cookie (picker-access.ts). */
  private readonly pickers = new WeakSet<Request>();
  /** The profile a session's key means, for a request of its that names none. */
  private readonly meant = new WeakMap<Request, string>();
  /** Requests a person makes: in the console (its login), or with a hand-off cookie from a link that went to a person's channel. */
  private readonly persons = new WeakSet<Request>();

  constructor(
    private readonly deps: {
      guard: GuardOptions;
      dashboard: DashboardAuth;
      handoffAccess: HandoffAccess;
      pickerAccess: PickerAccess;
      /** The fleet's token: what a console's call is carried with. */
      token: string;
      fleet?: FleetCarrier;
      /** Whether this server holds session `id`'s browser. */
      holds: (id: string) => boolean;
    },
  ) {}

  /** The session a request's key reaches, when it came with one. */
  sessionOf(request: Request): string | undefined {
    return this.scopes.get(request);
  }

  /**
   * The query a route reads: the request's own, as its door read it (request-target.ts), with the
   * profile a session's key means when the request named none.
   */
  queryOf(request: Request): Record<string, string> {
    const query = requestTarget(request).query.record();
    const meant = this.meant.get(request);
    return meant === undefined ? query : { ...query, profile: meant };
  }

  /** Only the token's holder sees credential headers and cookie values. */
  isTokenHolder(request: Request): boolean {
    return this.tokenHolders.has(request);
  }

  /**
   * Made by a person with a credential no agent holds: the console's login, or a hand-off cookie
   * from a link that went to the person's own Chrome or the webhook's channel. Their input is a
   * person's and their yes says yes; the token's, a session key's, or a cookie from a link handed to
   * an agent, is an agent's (service/handoff-service.ts).
   */
  isPerson(request: Request): boolean {
    return this.persons.has(request);
  }

  /** Made by the person in the tab picker their Chrome holds the cookie of: the only one who lends tabs. */
  isPicker(request: Request): boolean {
    return this.pickers.has(request);
  }

  middleware(): RequestHandler {
    const { guard, dashboard, handoffAccess, pickerAccess, fleet, token } = this.deps;
    return (request, response, next) => {
      // One reading of the target for the door and the routes behind it: a target it cannot read whole is a 400 here.
      try {
        admitTarget(request);
      } catch (error) {
        return sendError(response, asHttpFailure(error).error);
      }
      const carried = FleetCarrier.wasCarried(request);
      // The console's mark is set by a fleet server carrying a call: never taken from a caller at the edge.
      if (!carried) delete request.headers[CONSOLE_HEADER];
      const carry = fleet && !carried ? fleet : undefined;
      // A login's console (`/console/<its path>/…` with its cookie: dashboard-auth.ts) calls the API's routes under its path.
      const consoleRoute = dashboard.routeOf(request);
      if (consoleRoute !== undefined) {
        request.url = consoleRoute;
        try {
          admitTarget(request);
        } catch (error) {
          return sendError(response, asHttpFailure(error).error);
        }
      }
      // The one-time links, and the load balancer's health check (it says only how loaded this server is).
      const { path } = requestTarget(request);
      const open = path === '/dashboard/login' || path === '/pressure' || path === '/chrome/picker/login' || /^\/handoff\/[0-9a-f]+\/open$/.test(path);
      // The person in the tab picker: its cookie opens the picker's routes under its login's own path, and only from its own page.
      const pickerRoute = pickerAccess.routeOf(request, path);
      if (pickerRoute !== undefined) {
        const refused = checkHostAndOrigin(request, guard) ?? checkCookieFetch(request);
        if (refused && !refused.ok) return sendError(response, refusal(refused));
        request.url = `${pickerRoute}${requestTarget(request).search}`;
        this.pickers.add(request);
        return next();
      }
      if (open || consoleRoute !== undefined) {
        // The doors that need no credential take none: a cookie is judged only where it is what lets a request in.
        const refused = checkHostAndOrigin(request, guard) ?? (open ? undefined : checkCookieFetch(request));
        if (refused && !refused.ok) return sendError(response, refusal(refused));
        if (consoleRoute !== undefined) this.persons.add(request);
        // The console's person holds the token's rights here; a session another server holds is carried there with the token.
        if (carry && consoleRoute !== undefined)
          return void this.throughFleet(carry, request, response, { ok: true, tokenVia: 'header' }, { token }).then(
            (here) => here && next(),
            (error: unknown) => sendError(response, asHttpFailure(error).error),
          );
        return next();
      }
      // A person's hand-off cookie: that hand-off's page, answer and tab only (handoff-access.ts).
      const handoff = handoffAccess.scopesOf(request).find((scope) => handoffAccess.admits(scope, request.method, path));
      if (handoff) {
        const refused = checkHostAndOrigin(request, guard) ?? checkCookieFetch(request);
        if (refused && !refused.ok) return sendError(response, refusal(refused));
        if (handoff.to === 'person') this.persons.add(request);
        return next();
      }
      // Carried here for a session this server is taking over: answered once it holds it (its key known here by then).
      const takingOver = fleet && !carry ? fleet.fleet.takeoversUnderWay() : undefined;
      if (takingOver) return void takingOver.then(() => this.admit(request, response, next, checkRequest(request, guard)));
      const verdict = checkRequest(request, guard);
      if (carry)
        return void this.throughFleet(carry, request, response, verdict).then(
          (here) => here && this.admit(request, response, next, here),
          (error: unknown) => sendError(response, asHttpFailure(error).error),
        );
      this.admit(request, response, next, verdict);
    };
  }

  /** Lets a request in with what its credential reaches, or answers the refusal. */
  private admit(request: Request, response: Response, next: NextFunction, verdict: GuardResult): void {
    if (!verdict.ok) return sendError(response, refusal(verdict));
    if (verdict.session === undefined) {
      // Carried for another server's console: the console's rights (and person), not the token holder's.
      if (request.headers[CONSOLE_HEADER] !== 'console') this.tokenHolders.add(request);
      else this.persons.add(request);
      return next();
    }
    // A task session's key: its own session's routes only (session-scope.ts).
    let profile: string;
    try {
      profile = admitSessionRequest(request.method, requestTarget(request), verdict.session);
    } catch (error) {
      return sendError(response, asHttpFailure(error).error);
    }
    this.scopes.set(request, verdict.session);
    this.meant.set(request, profile);
    next();
  }

  /**
   * In a fleet, a call for a session another server holds (by its key, its
   * profile or its /sessions/<id>) is carried there; undefined once it was.
   * A session taken over here on the way is answered here, its key now
   * known here.
   */
  private async throughFleet(
    fleet: FleetCarrier,
    request: Request,
    response: Response,
    verdict: GuardResult,
    console?: { token: string },
  ): Promise<GuardResult | undefined> {
    let id: string | undefined;
    if (!verdict.ok) {
      const secret = verdict.status === 401 ? presentedSecret(request) : undefined;
      id = secret === undefined ? undefined : (await fleet.fleet.keyOf(secret))?.id;
    } else if (verdict.session === undefined) id = sessionOfRequest(requestTarget(request));
    if (id === undefined || this.deps.holds(id)) return verdict;
    const place = await fleet.locate(id);
    if ('here' in place) return checkRequest(request, this.deps.guard);
    await fleet.carryHttp(request, response, place.carry, console);
    return undefined;
  }
}
