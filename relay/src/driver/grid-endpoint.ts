import { GoneError } from '../errors.js';
import type { BrowserMux } from '../bridge/browser-mux.js';
import { type CdpChannel, type GridPlacement, GridSession, type GridSettings, gridName } from '../profiles/grid-session.js';
import { type MuxedEndpoint, muxOver } from './browser-endpoint.js';

/**
 * A task session's browser on a Selenium Grid (profiles/grid-session.ts).
 * The same as a launched browser for everything above it: its one CDP
 * connection (the Grid's se:cdp) is multiplexed and served at the relay's
 * `/cdp?profile=session-<id>`. What differs is how it ends badly: when the
 * Grid drops the connection (its node died, or the Grid timed the session
 * out), the browser is gone for good; the endpoint never places another in
 * its stead, and says why (410) to whoever asks after.
 */
export class GridEndpoint implements MuxedEndpoint {
  private current: { session: GridSession; channel: CdpChannel; mux: BrowserMux } | undefined;
  private placing: Promise<BrowserMux> | undefined;
  private stopped = false;
  /** Set when another server of the fleet holds the session now: stopping leaves the browser running on the Grid. */
  private lettingGo = false;
  /** Why the browser is gone, once it is. */
  private lost: string | undefined;
  /** Told once when the Grid loses the browser (task-sessions.ts reaps the session). */
  onLost: (why: string) => void = () => {};

  constructor(
    private readonly grid: GridSettings,
    private readonly served: { url: string; driverKey: string },
    /** A session another server placed, taken over here: attached to, never asked for anew. */
    private readonly existing?: GridPlacement,
  ) {}

  get node(): string | undefined {
    return this.current?.session.nodeUri;
  }

  /** The Grid's id for the session, once placed. */
  get sessionId(): string | undefined {
    return this.current?.session.id;
  }

  /** What another server of the fleet needs to take the session over, once placed. */
  get placement(): GridPlacement | undefined {
    return this.current?.session.placement();
  }

  async connect() {
    await this.mux();
    return { url: this.served.url, headers: { authorization: `Bearer ${this.served.driverKey}` } };
  }

  mux(): Promise<BrowserMux> {
    if (this.lost) return Promise.reject(new GoneError(`This task session's browser was ${this.lost}`));
    if (this.current) return Promise.resolve(this.current.mux);
    this.placing ??= this.place().finally(() => (this.placing = undefined));
    return this.placing;
  }

  private async place(): Promise<BrowserMux> {
    const session = this.existing ? await GridSession.attach(this.grid, this.existing) : await GridSession.create(this.grid);
    let channel: CdpChannel;
    try {
      channel = await session.connect();
    } catch (error) {
      await session.end();
      throw error;
    }
    if (this.stopped) {
      channel.close();
      await session.end();
      throw new GoneError('The task session ended while its browser was being placed');
    }
    const mux = muxOver(channel, session.version);
    const closeMux = channel.onclose;
    channel.onclose = (reason) => {
      closeMux(reason);
      if (this.current?.channel !== channel || this.stopped) return;
      this.current = undefined;
      // Said at once, refined when the Grid has told why: nothing may place a new browser meanwhile.
      this.lost = `lost on the Grid at ${gridName(this.grid)}`;
      void session.lostBecause().then((why) => {
        this.lost = why;
        void session.end();
        this.onLost(why);
      });
    };
    // The Grid ended the session but kept the CDP connection open: drop it, which says the rest.
    session.onGone = () => channel.close();
    this.current = { session, channel, mux };
    return mux;
  }

  /** The next stop leaves the browser running on the Grid, for the server of the fleet that holds it now. */
  letGo(): void {
    this.lettingGo = true;
  }

  async stop() {
    this.stopped = true;
    const current = this.current;
    this.current = undefined;
    current?.mux.close(this.lettingGo ? 'another server of the fleet holds this task session now' : 'the task session ended');
    current?.channel.close();
    if (this.lettingGo) current?.session.letGo();
    else await current?.session.end();
  }

  async describe() {
    return { running: this.current !== undefined, ...(this.current?.session.nodeUri ? { node: this.current.session.nodeUri } : {}) };
  }
}
