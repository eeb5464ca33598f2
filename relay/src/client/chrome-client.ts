import type { ChromeStatus } from '../api/chrome-schemas.js';
import type { RouteCall } from './route-call.js';

/**
 * The person's own Chrome over HTTP (`BrowserClient.chrome`): each method is
 * one route of api/chrome-routes.ts. Lending tabs is not here: only the
 * person does that, in the picker this opens in their Chrome.
 */
export interface ChromeClient {
  /** Attached, waiting for the person's answer, or why not. */
  status(): Promise<ChromeStatus>;
  /** Attaches (Chrome asks the person); answers once settled, or after `waitSeconds` with state `asking`. */
  attach(waitSeconds?: number): Promise<ChromeStatus>;
  /** Lets go of the person's Chrome: every lent tab is taken back. */
  detach(): Promise<ChromeStatus>;
  /** Opens the tab picker in the person's Chrome. */
  openPicker(): Promise<{ opened: true }>;
}

export function chromeClient(call: RouteCall): ChromeClient {
  return {
    status: () => call('GET /chrome'),
    attach: (waitSeconds) => call('POST /chrome/attach', { body: waitSeconds === undefined ? {} : { waitSeconds } }),
    detach: () => call('POST /chrome/detach'),
    openPicker: () => call('POST /chrome/picker/open'),
  };
}
