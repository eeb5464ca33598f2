import type { BrowserApi } from '../api/browser-api.js';
import type { Ask, AskResult, ComputerTool, FunctionTool, Picture } from './providers/provider.js';

/**
 * What a model acts with in a run: the tools it is shown, and how each ask
 * is carried out. clawd's page tools (page-toolset.ts), a computer-use
 * screen (computer-toolset.ts), or another MCP server's tools (the
 * evaluation runner's Playwright MCP) are each one.
 */
export interface Toolset {
  readonly functions: FunctionTool[];
  readonly computer?: ComputerTool;
  /** Carries out one ask; a failure is a result the model reads, never a throw (only an abort throws). */
  run(ask: Ask, signal: AbortSignal): Promise<ToolOutcome>;
  /** What the model sees before its first turn (a computer-use model: the screen). */
  firstLook?(signal: AbortSignal): Promise<Picture | undefined>;
}

export interface ToolOutcome extends AskResult {
  /** The tool, for the log and the progress events. */
  tool: string;
  /** What was asked, shortly: never what was typed. */
  summary: string;
  /** Screenshots this call sent the model. */
  screenshots: number;
}

/** A browser API bound to one step's signal: aborting it stops the act in flight (in process, or the HTTP call). */
export type ApiForSignal = (signal: AbortSignal) => BrowserApi;

/** A URL as the log and progress show it: origin and path, never the query (it may carry tokens). */
export function shownUrl(value: unknown): string {
  if (typeof value !== 'string') return '';
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`;
  } catch {
    return value.split(/[?#]/)[0].slice(0, 200);
  }
}
