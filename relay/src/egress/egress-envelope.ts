import type { EgressFailureReason, LaunchEnvelope, PreparedLaunch } from '../profiles/launch-envelope.js';
import { type EgressCounters, EgressProxy, type EgressOptions, sumCounters } from './egress-proxy.js';

/**
 * A browser's way out when it runs on this machine's own network (a managed
 * profile, or a task session where the host cannot jail): an egress proxy on
 * a loopback port, started with the browser and closed with it. Its port
 * joins the ports no browser may reach (`ownPorts`): one browser's proxy is
 * not another's way out.
 */
export class EgressEnvelope implements LaunchEnvelope {
  private proxy: EgressProxy | undefined;
  private port: number | undefined;
  /** Bytes and connections of every launch so far (a restarted browser adds to them). */
  private total = sumCounters();

  constructor(
    private readonly options: EgressOptions,
    private readonly ownPorts: Set<number>,
  ) {}

  async prepare(): Promise<PreparedLaunch> {
    await this.release();
    this.proxy = new EgressProxy(this.options);
    this.port = await this.proxy.listen({ port: 0 });
    this.ownPorts.add(this.port);
    return { proxyServer: `http://127.0.0.1:${this.port}` };
  }

  async release(): Promise<void> {
    const proxy = this.proxy;
    this.proxy = undefined;
    if (this.port !== undefined) this.ownPorts.delete(this.port);
    this.port = undefined;
    if (!proxy) return;
    this.total = sumCounters(this.total, proxy.counters);
    await proxy.close();
  }

  egressFailure(host: string, since: number): EgressFailureReason | undefined {
    return this.proxy?.failures.latest(host, since);
  }

  counters(): EgressCounters {
    return sumCounters(this.total, this.proxy?.counters);
  }
}
