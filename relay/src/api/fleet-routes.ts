import { PressureSchema } from './fleet-schemas.js';
import type { RouteSpec } from './route-spec.js';

/** Signals for a load balancer and Prometheus (spec §18); spread into api/routes.ts's table and bound by server/fleet-routes.ts. */

export const FLEET_ROUTES = {
  'GET /metrics': {
    summary:
      'Prometheus metrics: sessions by place, isolation and state, spares, the admission queue, CDP clients, request latency by route, policy refusals, egress bytes, hand-offs waiting',
    tag: 'Fleet',
    answer: { media: 'text/plain', description: "Prometheus's text format (version 0.0.4)" },
  },
  'GET /pressure': {
    summary: "This server's load for a load balancer's health check: 200 while it can take a session, 503 with full, cpu or memory",
    tag: 'Fleet',
    answer: PressureSchema,
    sameBodyOn: { status: 503, description: 'It should not be given more work now: full, cpu or memory, with the same figures' },
    public: true,
  },
} satisfies Record<string, RouteSpec>;
