// A raw websocket JSON-RPC client for tests that check the wire itself: it keeps every message it
// receives, in order, and waits on predicates over them.
import WebSocket from 'ws';

/** A websocket client that keeps every message it receives, in order. */
export class WsClient {
  readonly messages: unknown[] = [];
  private waiters: (() => void)[] = [];
  closed?: number;
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.messages.push(JSON.parse(d.toString()));
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code) => {
      this.closed = code;
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static async open(url: string, opts: WebSocket.ClientOptions = {}): Promise<WsClient> {
    const ws = new WebSocket(url, opts);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new WsClient(ws);
  }
  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }
  /** Waits until `pred` holds for the messages so far (or the socket closed). */
  async until(pred: (m: unknown[]) => boolean, ms = 5000): Promise<unknown[]> {
    const end = Date.now() + ms;
    while (!pred(this.messages)) {
      if (this.closed !== undefined) throw new Error(`socket closed (${this.closed})`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`timed out; got ${JSON.stringify(this.messages).slice(0, 500)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return this.messages;
  }
  /** Sends a request and returns its answer (by id). */
  async call(id: number, method: string, params?: unknown): Promise<unknown> {
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    const has = (m: unknown[]) => m.some((x) => (x as { id?: unknown }).id === id);
    return (await this.until(has)).find((x) => (x as { id?: unknown }).id === id);
  }
  close(): void {
    this.ws.terminate();
  }
}
