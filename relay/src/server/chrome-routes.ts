import type { Request } from 'express';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import type { ChromeService } from '../service/chrome-service.js';
import type { ControlDoor } from './control-door.js';
import { NOT_FRAMED } from './one-time-logins.js';
import type { PickerAccess } from './picker-access.js';
import { pickerPage } from '../pages/picker-page.js';
import type { RouteBinder } from './route-binder.js';

/**
 * The `chrome` profile's routes (api/chrome-routes.ts): the token's
 * (status, attach, detach, opening the picker in the person's Chrome), and
 * the person's, in that picker (its cookie, checked at the door). Lending is
 * the person's alone: the token, the console's cookie and a task session's
 * key are refused there.
 */

const PERSON_ONLY =
  "Only the person at the browser lends its tabs, in clawd-browser's picker there (`clawd-browser chrome pick` opens it in their Chrome): this route answers that page only";

export function bindChromeRoutes(
  routes: RouteBinder,
  deps: { chrome: ChromeService; door: ControlDoor; access: PickerAccess; controlOrigin: () => string },
): void {
  const { chrome, door, access } = deps;
  const person = (request: Request) => {
    if (!door.isPicker(request)) throw new ForbiddenError(PERSON_ONLY);
  };
  routes.json('GET /chrome', () => chrome.status());
  routes.json('POST /chrome/attach', ({ body, signal }) => chrome.attach(body.waitSeconds, signal));
  routes.json('POST /chrome/detach', () => chrome.detach());
  // The link goes to the person's Chrome alone, on this server's own address (the picker is a page of it, at a path of its login's).
  routes.json('POST /chrome/picker/open', () =>
    chrome.openPicker(`${deps.controlOrigin()}/chrome/picker/`, () => `${deps.controlOrigin()}/chrome/picker/login?code=${access.newCode()}`),
  );
  routes.media('GET /chrome/picker/login', ({ query }, response) => {
    const login = access.login(query.code ?? '');
    if (!login) throw new UnauthorizedError('This picker link is used or expired: open the picker again (`clawd-browser chrome pick`)');
    response.set({ 'set-cookie': login.cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).redirect(302, login.home);
  });
  routes.media('GET /chrome/picker', ({ request }, response) => {
    person(request);
    const page = pickerPage();
    response
      .type('html')
      .set({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', ...NOT_FRAMED, 'content-security-policy': page.csp })
      .send(page.html);
  });
  routes.json('GET /chrome/picker/tabs', ({ request }) => {
    person(request);
    return chrome.pickerTabs();
  });
  routes.json('POST /chrome/picker/lend', ({ request, body }) => {
    person(request);
    return chrome.lend(body.targetId, body.lent);
  });
}
