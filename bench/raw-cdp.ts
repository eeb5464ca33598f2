import WebSocket from 'ws';

/**
 * A bare CDP client for measuring: no domain bookkeeping, so what is timed
 * is the transport (direct to Chromium, or through the relay) and nothing else.
 */
export class RawCdp {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: any): void; reject(error: Error): void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = message.id !== undefined ? this.waiting.get(message.id) : undefined;
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.error) waiter.reject(new Error(`${message.error.message}`));
      else waiter.resolve(message.result);
    });
  }

  static connect(url: string, headers: Record<string, string> = {}): Promise<RawCdp> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1024 * 1024 * 1024, headers });
      socket.once('open', () => resolve(new RawCdp(socket)));
      socket.once('error', reject);
    });
  }

  send<T = any>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.send(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }));
    });
  }

  /** Attaches to a page target and returns the flat session id. */
  async attach(targetId: string): Promise<string> {
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    return sessionId;
  }

  close(): void {
    this.socket.close();
  }
}
