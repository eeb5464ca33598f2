/**
 * Debugger events Chrome kept for the service worker while it was stopped
 * reach it as it starts: before its shared tabs are restored from storage,
 * and before the relay link is open. The relay holds its clients' sessions
 * through a worker restart, so these events are still theirs: the worker
 * holds them and sends them after its first hello, in order.
 *
 * Dropped, they are lost for good. A command the old worker passed to Chrome
 * just before it stopped (Playwright's Page.createIsolatedWorld) runs, and
 * its Runtime.executionContextCreated arrives here; without it the client
 * never learns of its utility world and waits for it until it times out.
 *
 * Bounded: past `maxEvents` or `maxBytes`, later events are dropped.
 */
export class StartupHold<T> {
  private held: T[] | undefined = [];
  private bytes = 0;

  constructor(
    private readonly maxEvents = 5_000,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** True until release(): the worker is still starting. */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /**
   * While the worker is starting, keeps the event (or drops it past the
   * bounds) and returns true. Once started, returns false: handle it now.
   */
  hold(event: T, size: number): boolean {
    if (!this.held) return false;
    if (this.held.length < this.maxEvents && this.bytes + size <= this.maxBytes) {
      this.held.push(event);
      this.bytes += size;
    }
    return true;
  }

  /** The worker has started: what was held, in order. Nothing is held from now on. */
  release(): T[] {
    const held = this.held ?? [];
    this.held = undefined;
    this.bytes = 0;
    return held;
  }
}
