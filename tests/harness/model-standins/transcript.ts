import type { PastCall, Transcript } from './policy.js';

/** One call the model made earlier, and what came back for it. */
export interface Exchange {
  call: PastCall;
  result?: string;
  picture?: Buffer;
}

/** The policy's view of a conversation, from the goal and the calls in order (each API's server makes them from its own shapes). */
export function transcriptOf(goal: string, exchanges: Exchange[], firstPicture?: Buffer): Transcript {
  const last = exchanges.at(-1);
  const snapshots = exchanges.filter((exchange) => exchange.call.name === 'browser_snapshot' && exchange.result !== undefined);
  const pictures = exchanges.filter((exchange) => exchange.picture);
  return {
    goal,
    calls: exchanges.map((exchange) => exchange.call),
    lastResult: last?.result,
    lastPicture: pictures.at(-1)?.picture ?? firstPicture,
    lastSnapshot: snapshots.at(-1)?.result,
    snapshotIsStale: last !== undefined && last.call.name !== 'browser_snapshot',
  };
}

export function parseArgs(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object') return raw as Record<string, unknown>;
  try {
    return JSON.parse(String(raw ?? '{}')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** The index of the last element that matches (0 when none does: the conversation's start). */
export function lastIndexWhere<T>(list: T[], matches: (item: T) => boolean): number {
  for (let index = list.length - 1; index >= 0; index--) if (matches(list[index])) return index;
  return 0;
}
