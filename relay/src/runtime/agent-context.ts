import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which agent a request is made for (spec §21, several agents): an MCP
 * connection, or a CLI or API caller that names itself (`x-clawd-agent`,
 * `--agent`). Two agents on one profile each mean their own tabs by
 * default: a request without targetId is never another agent's "last tab"
 * (driver/agent-tabs.ts). Carried with the request's own async work, so
 * nothing between the door and the tab registry passes it by hand.
 */

/** An agent's name: what a person or a client would write. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

const current = new AsyncLocalStorage<string>();

/** Runs `work` as `agent`'s (as it is, when there is none). */
export function asAgent<T>(agent: string | undefined, work: () => T): T {
  return agent === undefined ? work() : current.run(agent, work);
}

/** The agent the running request is for, if it named one. */
export function currentAgent(): string | undefined {
  return current.getStore();
}
