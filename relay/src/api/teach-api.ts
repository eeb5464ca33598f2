import type { z } from 'zod';
import type { RequestOf } from './schemas.js';
import type { Demonstration, DemonstrationResult, Note, Notes, Routine, RoutineAnswer, RoutineRun, RoutineSummarySchema } from './teach-schemas.js';

export type RoutineSummary = z.infer<typeof RoutineSummarySchema>;

/**
 * A person teaches (spec §23), on one profile: `BrowserApi.teach`. The
 * typed client implements it over HTTP (teach-client.ts), the control
 * service in process; MCP's browser_routine and browser_notes call it.
 * Each answer that holds a page's words (element names, URLs, titles: a
 * routine's are its recorded page's) carries its `fence`.
 */
export interface TeachApi {
  startDemonstration(request?: RequestOf<'demonstrationStart'>): Promise<Demonstration>;
  demonstrations(query?: { targetId?: string }): Promise<{ demonstrations: Demonstration[]; fence?: string }>;
  stopDemonstration(request?: RequestOf<'demonstrationStop'>): Promise<DemonstrationResult>;
  routines(): Promise<{ routines: RoutineSummary[]; fence?: string }>;
  routine(name: string): Promise<RoutineAnswer>;
  deleteRoutine(name: string): Promise<{ deleted: Routine; fence?: string }>;
  routineScript(name: string): Promise<{ script: string; notes: string[]; fence?: string }>;
  runRoutine(name: string, request?: RequestOf<'routineRun'>): Promise<RoutineRun>;
  notes(query?: { targetId?: string; all?: boolean }): Promise<Notes>;
  noteDone(id: string): Promise<Note>;
}
