import type { ProviderApi } from '../../config/browse-config.js';

/**
 * What the loop needs of a model provider, whatever API it speaks: a
 * conversation it can add to and ask for the next turn. Each API keeps its
 * own transcript in its own shapes (openai-chat.ts, anthropic-messages.ts,
 * openai-responses.ts), so a continued session goes on in the vendor's own
 * words, and nothing is translated back and forth.
 */

/** A tool the model may call by name: a JSON Schema for its input (the MCP tools' own). */
export interface FunctionTool {
  name: string;
  description: string;
  parameters: { type: 'object'; [key: string]: unknown };
}

/** The model's own computer tool, where its API has one: the screen it is told of. */
export interface ComputerTool {
  display: { width: number; height: number };
}

export interface Picture {
  mimeType: string;
  /** base64 */
  data: string;
}

/** A call of a function tool the model asked for. */
export interface FunctionAsk {
  kind: 'function';
  id: string;
  name: string;
  /** As the model sent it: parsed JSON, or the raw text when it was not JSON. */
  input: unknown;
}

/** A batch of computer actions, in the vendor's own shape (api/vision-schemas.ts takes both). */
export interface ComputerAsk {
  kind: 'computer';
  id: string;
  dialect: 'openai' | 'anthropic';
  actions: unknown[];
  /** OpenAI's pending safety checks: what the model wants a person to confirm first. */
  safetyChecks?: Array<{ id: string; code?: string | null; message?: string | null }>;
}

export type Ask = FunctionAsk | ComputerAsk;

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One answer of the model: its words, and the calls it asked for (none: it has answered). */
export interface Turn {
  text: string;
  asks: Ask[];
  usage: TurnUsage;
}

/** What a call did, for the model to read: text (the page's words fenced by the tools), a picture, and whether it failed. */
export interface AskResult {
  id: string;
  /** It answers a computer ask (the picture is the screen after its actions). */
  computer: boolean;
  text: string;
  picture?: Picture;
  failed: boolean;
}

export interface Conversation {
  /** A user's message: the goal (and, for a model that looks, the screen). */
  say(text: string, picture?: Picture): void;
  /** Asks the model for its next turn; aborting `signal` drops the request (the provider sees its socket close). */
  next(signal: AbortSignal): Promise<Turn>;
  /** The results of the last turn's asks, in their order. */
  answer(results: AskResult[]): void;
}

export interface ConversationSetup {
  system: string;
  tools: FunctionTool[];
  computer?: ComputerTool;
}

export interface ModelProvider {
  readonly name: string;
  readonly api: ProviderApi;
  readonly model: string;
  /** Whether this API has a computer tool (the computer runtime needs one). */
  readonly hasComputerTool: boolean;
  conversation(setup: ConversationSetup): Conversation;
}

/** An ask's input as an object (a model that sent a bad JSON string gets its tool's error back). */
export function parseInput(raw: string | undefined): unknown {
  if (!raw?.trim()) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
