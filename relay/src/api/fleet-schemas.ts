import { z } from 'zod';

/** What a server says of its load (spec §18): `GET /pressure`, for load balancers' health checks. */
export const PressureSchema = z.object({
  state: z.enum(['ok', 'full', 'cpu', 'memory']).describe('ok (200); full: no session slot is free; cpu, memory: at or above config pressure (503)'),
  sessions: z.object({ open: z.number().int(), capacity: z.number().int(), waiting: z.number().int().describe('Requests in the admission queue') }),
  cpu: z.number().describe('Busy share of all cores, 0..1, over the last moments'),
  memory: z.number().describe('Share of memory in use, 0..1'),
  thresholds: z.object({ cpu: z.number(), memory: z.number() }).describe('config pressure'),
});
export type Pressure = z.infer<typeof PressureSchema>;
