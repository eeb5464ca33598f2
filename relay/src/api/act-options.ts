import type { ActionResult } from './responses.js';

/** How an act is asked for beyond the action itself: shared by the browser's, the vision's and the page tools' APIs. */
export interface ActOptions {
  diffMaxChars?: number;
  /**
   * A person is at hand to answer a confirmation (an act a confirm rule names waits for their yes:
   * service/confirm-service.ts) in the operator's console; without it, and with nobody else to ask, such
   * an act is a 409. No link comes to the caller: a yes never goes through the agent.
   */
  person?: boolean;
  /** Hears a confirmation once it waits for the person, with where they are asked. */
  onConfirmation?: (confirmation: Confirmation) => void;
}

/** An act waiting for a person's yes: a hand-off (GET /handoff/{id} waits for it, and then carries the act's answer). */
export type Confirmation = NonNullable<ActionResult['confirmation']>;
