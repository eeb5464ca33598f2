import type { z } from 'zod';
import type { schemas } from '../api/schemas.js';
import type { ConfirmService } from './confirm-service.js';
import type { AnsweredBy, HandoffService } from './handoff-service.js';
import type { Operations } from './operation-runner.js';

/**
 * Input through a live view (the operator's console, a hand-off's page, an
 * MCP App's view), logged as `how.actor`'s. Unless a person's credential sent
 * it (the console's login, a link that went to their own channel: `how.by`),
 * whoever holds the token, a session's key or a link handed to an agent may
 * have: a click or key on what a confirm rule names is then stopped, as in
 * computer use (confirm-service.ts), since it would be the act without a yes.
 */
export class LiveInput {
  constructor(
    private readonly operations: Operations,
    private readonly confirmations: Pick<ConfirmService, 'pressGate'>,
    private readonly handoffs: Pick<HandoffService, 'waiting'>,
  ) {}

  view(
    profile: string | undefined,
    input: z.output<typeof schemas.viewInput>,
    signal: AbortSignal | undefined,
    how: { by: AnsweredBy; actor: 'agent' | 'person' },
  ) {
    return this.operations.operation(profile, { kind: `view-${input.type}`, targetId: input.targetId, actor: how.actor }, signal, (driver) =>
      driver.viewInput(input, how.by === 'agent' ? this.confirmations.pressGate(driver.profile.name) : undefined),
    );
  }

  /**
   * The person's input on a waiting hand-off's tab, logged as theirs. Through a link an agent was handed
   * (or the agent's own connection: `by`), whoever holds it may be the agent: a click a confirm rule
   * names is held to the rule there, the person saying yes in the console instead.
   */
  handoff(id: string, input: z.output<typeof schemas.handoffInput>, signal: AbortSignal | undefined, by: AnsweredBy) {
    const handoff = this.handoffs.waiting(id);
    return this.view(handoff.profile, { ...input, targetId: handoff.targetId }, signal, { by, actor: 'person' });
  }
}
