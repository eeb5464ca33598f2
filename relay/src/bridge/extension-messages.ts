import { z } from 'zod';
import { type ExtensionHeader, GROUP_NAME, TEACH_OPS, type TeachOp } from '../../../protocol/wire.js';
import { describeIssues } from '../validation.js';

/**
 * Schemas for the extension's control frames (hello, tab changes). Results and
 * events, the hot path, are checked by hand in CdpBridge instead.
 */

const SharedTab = z.object({
  tabId: z.number().int(),
  targetId: z.string().min(1),
  url: z.string(),
  title: z.string(),
  openerTargetId: z.string().optional(),
  group: z.string().regex(GROUP_NAME).optional(),
});

const ControlFrame = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    protocol: z.number().int(),
    browser: z.object({ userAgent: z.string(), product: z.string() }),
    tabs: z.array(SharedTab),
  }),
  z.object({ type: z.literal('tabShared'), tab: SharedTab }),
  z.object({ type: z.literal('tabUpdated'), tab: SharedTab }),
  z.object({ type: z.literal('tabUnshared'), tabId: z.number().int(), reason: z.string() }),
  z.object({
    type: z.literal('download'),
    tabId: z.number().int(),
    download: z.object({
      id: z.number().int(),
      url: z.string(),
      filename: z.string(),
      suggestedFilename: z.string().max(1024).optional(),
      state: z.enum(['in_progress', 'complete', 'interrupted']),
      bytesReceived: z.number(),
      totalBytes: z.number(),
      error: z.string().optional(),
    }),
  }),
  z.object({ type: z.literal('consentAnswer'), id: z.number().int(), allowed: z.boolean(), domains: z.array(z.string()).max(50) }),
  z.object({
    type: z.literal('teach'),
    id: z.number().int(),
    tabId: z.number().int(),
    op: z.enum(TEACH_OPS as [TeachOp, ...TeachOp[]]),
    name: z.string().max(200).optional(),
    description: z.string().max(4000).optional(),
    text: z.string().max(4000).optional(),
  }),
  z.object({ type: z.literal('ping') }),
]);

/** The handshake's frames (auth, and hello's proof) are checked by the server before the bridge sees anything. */
export type ExtensionControl =
  Exclude<ExtensionHeader, { type: 'result' | 'error' | 'event' | 'auth' | 'hello' }> | Omit<Extract<ExtensionHeader, { type: 'hello' }>, 'proof'>;

/** Returns the validated frame, or a message saying what is wrong with it. */
export function parseExtensionControl(header: unknown): ExtensionControl | string {
  const result = ControlFrame.safeParse(header);
  if (result.success) return result.data;
  const type = (header as { type?: unknown }).type;
  const detail = describeIssues(result.error, 'frame');
  return `bad extension frame (type ${JSON.stringify(type)}): ${detail}`;
}

const decoder = new TextDecoder();

/** A payload the extension sent was not the JSON it should be: the frame is dropped, never the process. */
export class BadPayload extends Error {}

/** Parses a payload the bridge must read (most are passed through as bytes, unread). */
export function parsePayload<T>(raw: Uint8Array): T {
  try {
    const value = JSON.parse(decoder.decode(raw)) as unknown;
    if (value === null || typeof value !== 'object') throw new BadPayload('payload is not a JSON object');
    return value as T;
  } catch (error) {
    throw error instanceof BadPayload ? error : new BadPayload(`payload is not JSON: ${(error as Error).message}`);
  }
}
