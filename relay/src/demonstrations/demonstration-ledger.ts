import { z } from 'zod';
import { RoutineOwnerSchema } from '../api/teach-schemas.js';
import type { PersonStep } from '../replay/person-steps.js';

/**
 * A fleet's ledger of the demonstrations going on in task sessions: what
 * each server heard so far, written as it hears it. Hearing stays one
 * server's (a watch on one tab of the browser it drives); what it heard
 * is the fleet's, so when that server is lost and another takes the
 * session over, the person's steps are not: the new holder lists the
 * demonstration as no longer heard, and its stop makes the routine of the
 * steps kept. The fleet's store answers it (store/postgres-demonstrations.ts);
 * without one there is nothing to share (a server's own sessions end with it).
 */

export const KeptDemonstrationSchema = z.strictObject({
  profile: z.string().max(200),
  targetId: z.string().max(200),
  /** The server that hears it. */
  server: z.string().max(200),
  since: z.string(),
  url: z.string().max(10_000),
  title: z.string().max(10_000),
  // The watch's own steps, as this server's code wrote them (replay/person-steps.ts).
  steps: z.array(z.looseObject({ kind: z.enum(['goto', 'click', 'type', 'select', 'check', 'upload', 'press']) })).max(500),
  dropped: z.number().int().min(0),
  withheld: z.number().int().min(0),
  startedBy: RoutineOwnerSchema,
});

export type KeptDemonstration = Omit<z.infer<typeof KeptDemonstrationSchema>, 'steps'> & { steps: PersonStep[] };

export interface DemonstrationLedger {
  /** This server, as the ledger's rows name it. */
  readonly server: string;
  /** Keeps what was heard so far, in place of what was kept for its tab. */
  keep(demonstration: KeptDemonstration): Promise<void>;
  /** The tab's demonstration ended (stopped or discarded). */
  forget(profile: string, targetId: string): Promise<void>;
  /** The demonstrations kept for a profile, any server's. */
  ofProfile(profile: string): Promise<KeptDemonstration[]>;
}
