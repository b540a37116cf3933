// New slots from a cluster's websocket (--cluster-ws): `slotSubscribe`, each notification handed
// to the block source so it looks for new blocks at once instead of at its next poll. Only a hint:
// the source polls as well, so a websocket that is down, slow or silent costs time, never blocks.
// It reconnects with backoff (1 s doubling to 30 s), logged once per episode.
import { WebSocket } from 'ws';
import type { Logger } from '../obs/log.js';
import { clusterOrigin } from './cluster-rpc.js';

export class SlotWatch {
  private ws: WebSocket | undefined;
  private stopped = false;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The newest slot notified. */
  slot: bigint | undefined;

  constructor(
    private readonly url: string,
    private readonly onSlot: (slot: bigint) => void,
    private readonly log: Logger,
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.url, { maxPayload: 64 * 1024 });
    this.ws = ws;
    ws.on('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' })));
    ws.on('message', (raw) => {
      let m: { method?: unknown; params?: { result?: { slot?: unknown } } };
      try {
        m = JSON.parse(String(raw)) as typeof m;
      } catch {
        return;
      }
      const slot = m.params?.result?.slot;
      if (m.method !== 'slotNotification' || typeof slot !== 'number' || !Number.isSafeInteger(slot)) return;
      if (this.failures > 0) {
        this.log.info('cluster websocket: slot notifications again', { cluster: clusterOrigin(this.url) });
        this.failures = 0;
      }
      this.slot = BigInt(slot);
      this.onSlot(this.slot);
    });
    ws.on('error', () => undefined); // 'close' follows
    ws.on('close', () => {
      if (this.stopped) return;
      if (this.failures++ === 0)
        this.log.warn('cluster websocket closed: polling alone until it is back', {
          cluster: clusterOrigin(this.url),
        });
      this.timer = setTimeout(() => this.connect(), Math.min(30_000, 1000 * 2 ** Math.min(this.failures - 1, 5)));
    });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.terminate();
  }
}
