import { encodeExtensionFrame, type RelayMessage, type TeachOp } from '../../protocol/wire';

/**
 * The person teaching their agent in a tab they shared (spec §23), asked
 * from the extension's Teach page (teach-page.ts, never a web page): a
 * demonstration started and stopped, elements marked for a note and the
 * note sent. Each request goes to the relay as a `teach` frame and waits
 * for its `taught` answer; the tab's badge says REC or NOTE meanwhile.
 */

type Taught = Extract<RelayMessage, { type: 'taught' }>;
export type TeachAnswer = { ok: boolean; answer?: unknown; error?: string };

/** How long a request waits for the server (a demonstration's stop writes its routine). */
const ANSWER_MS = 30_000;

export class Teaching {
  private lastId = 0;
  private readonly waiting = new Map<number, (answer: TeachAnswer) => void>();

  constructor(
    private readonly send: (frame: string) => void,
    private readonly linkOpen: () => boolean,
    private readonly badge: (tabId: number, what: 'recording' | 'marking' | undefined) => Promise<void>,
  ) {}

  async ask(tabId: number, op: TeachOp, fields: { name?: string; description?: string; text?: string } = {}): Promise<TeachAnswer> {
    if (!this.linkOpen()) return { ok: false, error: 'not connected to clawd-browser: is it running?' };
    const id = ++this.lastId;
    const answered = new Promise<TeachAnswer>((resolve) => {
      this.waiting.set(id, resolve);
      setTimeout(() => this.waiting.delete(id) && resolve({ ok: false, error: `no answer from clawd-browser within ${ANSWER_MS / 1000} s` }), ANSWER_MS);
    });
    this.send(encodeExtensionFrame({ type: 'teach', id, tabId, op, ...fields }));
    const result = await answered;
    if (result.ok) {
      if (op === 'demonstrate') await this.badge(tabId, 'recording');
      else if (op === 'mark') await this.badge(tabId, 'marking');
      else if (op !== 'state') await this.badge(tabId, undefined);
      else {
        // What the server says goes on: a worker that restarted since shows it again.
        const state = result.answer as { demonstration: unknown; marking: unknown } | undefined;
        await this.badge(tabId, state?.demonstration ? 'recording' : state?.marking ? 'marking' : undefined);
      }
    }
    return result;
  }

  answered(message: Taught): void {
    const resolve = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    resolve?.({ ok: message.ok, answer: message.answer, error: message.error });
  }
}
