/**
 * Each agent's own tabs on one profile (spec §21): the tabs it opened (or
 * was the first to use), and the one it used last, which is what its
 * requests without targetId mean. Another agent's tabs are reached only by
 * naming them; a request made for no agent keeps the profile's one "last
 * used tab" (tab-registry.ts). Pure bookkeeping by target id.
 */
export class AgentTabs {
  /** Each agent's tabs, oldest first. */
  private readonly owned = new Map<string, string[]>();
  private readonly lastUsed = new Map<string, string>();
  private readonly owner = new Map<string, string>();

  /**
   * `agent` used tab `targetId`: its own if nobody had used it, and then its
   * default. Another agent's tab, reached by its targetId, is used for that
   * call only: the agent's default moves there only when it focuses it.
   */
  used(agent: string, targetId: string, firstUse: boolean, focused = false): void {
    if (firstUse && !this.owner.has(targetId)) {
      this.owner.set(targetId, agent);
      this.owned.set(agent, [...(this.owned.get(agent) ?? []), targetId]);
    }
    if (focused || this.owner.get(targetId) === agent) this.lastUsed.set(agent, targetId);
  }

  /**
   * The tab `agent`'s request without targetId means, among those open: its
   * last used, else its newest own; with none of its own, `unowned` (a tab
   * no agent owns: one a person or a plain caller set up, a tab shared from
   * Chrome); undefined when there is none of those.
   */
  defaultFor(agent: string, open: string[], unowned?: string): string | undefined {
    const last = this.lastUsed.get(agent);
    if (last !== undefined && open.includes(last)) return last;
    const own = [...(this.owned.get(agent) ?? [])].reverse().find((targetId) => open.includes(targetId));
    if (own !== undefined) return own;
    return unowned;
  }

  /** Whose tab it is, if an agent's. */
  ownerOf(targetId: string): string | undefined {
    return this.owner.get(targetId);
  }

  /** A tab closed: it is nobody's now. */
  closed(targetId: string): void {
    const agent = this.owner.get(targetId);
    this.owner.delete(targetId);
    if (agent !== undefined)
      this.owned.set(
        agent,
        (this.owned.get(agent) ?? []).filter((id) => id !== targetId),
      );
    for (const [each, last] of this.lastUsed) if (last === targetId) this.lastUsed.delete(each);
  }
}
