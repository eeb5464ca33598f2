import type { Pressure } from '../api/fleet-schemas.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { MachineLoadGauge, pressureState } from '../runtime/machine-load.js';
import { browserRefusalCount } from '../runtime/url-policy.js';
import type { Credentials } from '../service/credential-service.js';
import type { RequestObserver, RouteBinder } from './route-binder.js';
import { ServerMetrics } from './server-metrics.js';

/**
 * What a load balancer and an autoscaler read of this server (spec §18):
 * `GET /metrics` for Prometheus (server-metrics.ts) and `GET /pressure`, a
 * health check without the token (the guard lets it through: it says only
 * how loaded the server is). Request latency reaches the metrics through
 * `observe`, which the route binder calls as each route answers.
 */
export class FleetSignals {
  private readonly metrics: ServerMetrics;
  private readonly machineLoad = new MachineLoadGauge();
  readonly observe: RequestObserver;

  constructor(
    private readonly deps: {
      manager: ProfileManager;
      sessions: Credentials['sessions'];
      handoffsWaiting: () => number;
      cdpClients: () => number;
    },
  ) {
    const { sessions } = deps;
    this.metrics = new ServerMetrics({
      sessions: () => sessions.list().map((session) => ({ place: session.place, isolation: session.isolation })),
      spares: () => sessions.spareCounts(),
      queue: () => ({ inUse: sessions.admission.inUse, waiting: sessions.admission.waiting, capacity: deps.manager.registry.config().maxSessions }),
      cdpClients: deps.cdpClients,
      handoffsWaiting: deps.handoffsWaiting,
      policyRefusals: () => ({ browser: browserRefusalCount(), egress: sessions.egressTotals().refused }),
      egressBytes: () => {
        const totals = sessions.egressTotals();
        return { in: totals.bytesIn, out: totals.bytesOut };
      },
    });
    this.observe = (method, route, status, seconds) => this.metrics.observeRequest(method, route, status, seconds);
  }

  bind(routes: RouteBinder): void {
    routes.media('GET /metrics', async (_input, response) => {
      response.set('content-type', this.metrics.contentType).send(await this.metrics.text());
    });
    routes.media('GET /pressure', async (_input, response) => {
      const answer = await this.pressure();
      response
        .set('cache-control', 'no-store')
        .status(answer.state === 'ok' ? 200 : 503)
        .json(answer);
    });
  }

  private async pressure(): Promise<Pressure> {
    const config = this.deps.manager.registry.config();
    const { admission } = this.deps.sessions;
    const load = await this.machineLoad.read();
    const state = pressureState(load, config.pressure, { inUse: admission.inUse, capacity: config.maxSessions });
    return {
      state,
      sessions: { open: admission.inUse, capacity: config.maxSessions, waiting: admission.waiting },
      cpu: load.cpu,
      memory: load.memory,
      thresholds: config.pressure,
    };
  }
}
