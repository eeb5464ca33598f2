import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * `GET /metrics` (spec §18): what a Prometheus server scrapes to see a
 * clawd-browser server, in its text format, through prom-client. Most
 * figures are read when scraped (sessions, spares, the admission queue, CDP
 * clients, hand-offs, egress, policy refusals); request latency is observed
 * as each route answers, labelled by the route's pattern (`/sessions/:id`),
 * never by its raw path, so the series stay few. Node's own process metrics
 * come with them, prefixed `clawd_`.
 */

export interface MetricsSources {
  /** Open task sessions: where each runs, and how it is isolated. */
  sessions(): Array<{ place: string; isolation?: string }>;
  spares(): { ready: number; starting: number };
  queue(): { inUse: number; waiting: number; capacity: number };
  cdpClients(): number;
  handoffsWaiting(): number;
  /** Requests the URL policy refused: in the browser (CDP's Fetch), and at a jail's way out. */
  policyRefusals(): { browser: number; egress: number };
  /** Bytes through task sessions' ways out (the egress proxies), ended sessions included. */
  egressBytes(): { in: number; out: number };
}

/** Request latency buckets (seconds): a snapshot in tens of ms, a session start in hundreds, a film's stop in seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'clawd_' });
    this.requests = new Histogram({
      name: 'clawd_http_request_duration_seconds',
      help: 'Control API requests by route pattern, method and status, from the request to the end of its answer',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'clawd_sessions',
      help: 'Task sessions open now, by where they run, how they are isolated, and state',
      labelNames: ['place', 'isolation', 'state'],
      registers,
      collect() {
        this.reset();
        for (const session of sources.sessions()) this.inc({ place: session.place, isolation: session.isolation ?? 'none', state: 'open' });
      },
    });
    new Gauge({
      name: 'clawd_session_capacity',
      help: 'Task sessions this server admits at once (config maxSessions)',
      registers,
      collect() {
        this.set(sources.queue().capacity);
      },
    });
    new Gauge({
      name: 'clawd_session_queue_depth',
      help: 'Session requests waiting for a slot',
      registers,
      collect() {
        this.set(sources.queue().waiting);
      },
    });
    new Gauge({
      name: 'clawd_session_spares',
      help: 'Spare session browsers, ready or starting',
      labelNames: ['state'],
      registers,
      collect() {
        const { ready, starting } = sources.spares();
        this.set({ state: 'ready' }, ready);
        this.set({ state: 'starting' }, starting);
      },
    });
    new Gauge({
      name: 'clawd_cdp_clients',
      help: 'CDP clients connected now (the relay and /cdp?profile=)',
      registers,
      collect() {
        this.set(sources.cdpClients());
      },
    });
    new Gauge({
      name: 'clawd_handoffs_waiting',
      help: 'Hand-offs waiting for a person',
      registers,
      collect() {
        this.set(sources.handoffsWaiting());
      },
    });
    new Counter({
      name: 'clawd_policy_refusals_total',
      help: "Requests the URL policy refused, by where: the browser (CDP Fetch) or a jail's way out (egress)",
      labelNames: ['where'],
      registers,
      collect() {
        const { browser, egress } = sources.policyRefusals();
        this.reset();
        this.inc({ where: 'browser' }, browser);
        this.inc({ where: 'egress' }, egress);
      },
    });
    new Counter({
      name: 'clawd_egress_bytes_total',
      help: "Bytes through task sessions' ways out, by direction (in: from sites)",
      labelNames: ['direction'],
      registers,
      collect() {
        const bytes = sources.egressBytes();
        this.reset();
        this.inc({ direction: 'in' }, bytes.in);
        this.inc({ direction: 'out' }, bytes.out);
      },
    });
  }

  /** One answered request: its route's pattern (`POST /sessions/:id/extend`), its status, its time. */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe({ method, route, status: String(status) }, seconds);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
