import type { Request } from 'express';
import { ForbiddenError } from '../errors.js';
import type { ControlServices } from '../service/control-assembly.js';
import type { HandoffAccess } from './handoff-access.js';
import { handoffPage } from '../pages/handoff-page.js';
import { movingOnPage, NOT_FRAMED } from './one-time-logins.js';
import type { RouteBinder } from './route-binder.js';
import { streamScreencast } from './screencast-stream.js';

/**
 * The hand-off routes (spec §15): the agent's (open, wait, cancel), the
 * operator's list, and the person's (the one-time link, the page, its live
 * view and input, the answer), all under `/handoff/<id>/`, the one path the
 * person's cookie is sent to; it opens only its own hand-off
 * (handoff-access.ts, checked at the door). Whether an input or an answer
 * is a person's (`isPerson`: the console's login, or a cookie from a link
 * that went to a person's channel) is the door's to say.
 */
export function bindHandoffRoutes(
  routes: RouteBinder,
  services: Pick<ControlServices, 'handoffs' | 'liveInput' | 'handoffLink'>,
  access: HandoffAccess,
  isPerson: (request: Request) => boolean,
): void {
  const { handoffs, liveInput } = services;
  // The link is on the host the agent reached (it passed the Host check), so the person reaches the same server.
  routes.json('POST /handoff', ({ query, body, request, signal }) => handoffs.open(query.profile, body, services.handoffLink(request.headers.host), signal));
  routes.json('GET /handoff/:id', ({ query, params, signal }) => handoffs.state(query.profile, params.id, query.wait, signal));
  routes.json('DELETE /handoff/:id', ({ query, params }) => handoffs.cancel(query.profile, params.id));
  routes.json('GET /handoffs', () => handoffs.list());
  routes.media('GET /handoff/:id/open', ({ params, query }, response) => {
    const session = access.login(params.id, query.code ?? '');
    if (!session) throw new ForbiddenError('This hand-off link is used or expired: ask for a new one');
    const page = movingOnPage(`/handoff/${params.id}/page`);
    response
      .set({ ...page.headers, 'set-cookie': access.cookieFor(params.id, session) })
      .type('html')
      .send(page.html);
  });
  routes.media('GET /handoff/:id/page', ({ params }, response) => {
    const handoff = handoffs.find(undefined, params.id);
    response.set({ 'cache-control': 'no-store', ...NOT_FRAMED });
    if (handoff.state !== 'waiting') {
      response
        .type('html')
        .send(`<!doctype html><title>clawd-browser: a hand-off</title><p>This hand-off is over (${handoff.state}). Nothing waits for you here.</p>`);
      return;
    }
    response.type('html').send(handoffPage(handoff));
  });
  routes.media('GET /handoff/:id/screencast', async ({ params }, response) => {
    await streamScreencast(await handoffs.liveView(params.id), response);
  });
  const by = (request: Request) => (isPerson(request) ? ('person' as const) : ('agent' as const));
  routes.json('POST /handoff/:id/input', ({ params, body, signal, request }) => liveInput.handoff(params.id, body, signal, by(request)));
  routes.json('POST /handoff/:id/answer', ({ params, body, request }) => handoffs.answer(params.id, body, by(request)));
}
