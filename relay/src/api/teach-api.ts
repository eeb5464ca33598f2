import type { z } from 'zod';
import type { RequestOf } from './schemas.js';
import type { Demonstration, DemonstrationResult, Note, Notes, Routine, RoutineRun, RoutineSummarySchema } from './teach-schemas.js';

export type RoutineSummary = z.infer<typeof RoutineSummarySchema>;

/**
 * A person teaches (spec §23), on one profile: `BrowserApi.teach`. The
 * typed client implements it over HTTP (teach-client.ts), the control
 * service in process; MCP's browser_routine and browser_notes call it.
 */
export interface TeachApi {
  startDemonstration(request?: RequestOf<'demonstrationStart'>): Promise<Demonstration>;
  demonstrations(query?: { targetId?: string }): Promise<{ demonstrations: Demonstration[] }>;
  stopDemonstration(request?: RequestOf<'demonstrationStop'>): Promise<DemonstrationResult>;
  routines(): Promise<{ routines: RoutineSummary[] }>;
  routine(name: string): Promise<Routine>;
  deleteRoutine(name: string): Promise<{ deleted: Routine }>;
  routineScript(name: string): Promise<{ script: string; notes: string[] }>;
  runRoutine(name: string, request?: RequestOf<'routineRun'>): Promise<RoutineRun>;
  notes(query?: { targetId?: string; all?: boolean }): Promise<Notes>;
  noteDone(id: string): Promise<Note>;
}

/** A routine as GET /routines lists it. */
export function routineSummary(routine: Routine): RoutineSummary {
  return {
    name: routine.name,
    description: routine.description,
    createdAt: routine.createdAt,
    url: routine.recordedOn.url,
    parameters: routine.parameters.map((param) => (param.kind === 'secret' ? `${param.name} (secret)` : param.name)),
    steps: routine.steps.length,
  };
}
