/**
 * The ports this server listens on (its control API, its relay, every egress
 * proxy it runs), which no browser it drives may reach: a task session's
 * through its proxy, a shared or lent tab of the person's own Chrome by the
 * relay's network conditions (bridge/own-origins.ts). Proxies come and go with
 * their browsers, so whoever holds a rule on these ports hears each change.
 */
export class OwnPorts extends Set<number> {
  private listeners: Array<() => void> | undefined;

  /** `listener` runs after each port that joins or leaves. */
  onChange(listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  override add(port: number): this {
    const known = this.has(port);
    super.add(port);
    if (!known) this.changed();
    return this;
  }

  override delete(port: number): boolean {
    const removed = super.delete(port);
    if (removed) this.changed();
    return removed;
  }

  private changed(): void {
    // Set's constructor adds before the fields are set: nobody listens yet then.
    for (const listener of this.listeners ?? []) listener();
  }
}
