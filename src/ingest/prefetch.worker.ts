// The thread of a Prefetcher (prefetch.ts): POSTs the request bodies it is given, in order, a few
// at a time, and posts each whole answer back with its body as a transferred buffer. It stops
// while the answers it has posted and the requests under way reach the window its owner allows,
// and goes on as the owner takes them, so it runs ahead while the owner's thread is busy but never
// holds more than the window. A failing upstream pauses it (its owner retries the calls itself,
// with its own backoff).
import { parentPort, workerData } from 'node:worker_threads';
import { PostFailure, postJson, type RawAnswer } from '../wire/upstream.js';
import type { PrefetchOptions, ToPrefetcher, FromPrefetcher } from './prefetch.js';

const init = workerData as PrefetchOptions;
const url = new URL(init.url);
const port = parentPort!;

const queue: { id: number; body: string }[] = [];
let head = 0;
let underWay = 0;
/** Answers posted and not yet taken by the owner: how many, and their bytes. */
let held = 0;
let heldBytes = 0;
let pausedUntil = 0;
let pauseMs = 0;
let timer: NodeJS.Timeout | undefined;

function pause(): void {
  pauseMs = Math.min(10_000, Math.max(500, pauseMs * 2));
  pausedUntil = Date.now() + pauseMs;
}

function pump(): void {
  while (
    head < queue.length &&
    underWay < init.concurrency &&
    underWay + held < init.maxAhead &&
    heldBytes < init.maxBytes
  ) {
    const wait = pausedUntil - Date.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        pump();
      }, wait);
      return;
    }
    const { id, body } = queue[head++]!;
    underWay++;
    postJson(url, body, init.timeoutMs).then(
      (a) => answered(id, a),
      (e: unknown) => {
        pause();
        answered(id, undefined, e instanceof PostFailure ? { stage: e.stage, message: e.message } : undefined);
      },
    );
  }
  if (head === queue.length) {
    queue.length = 0;
    head = 0;
  }
}

function answered(id: number, a: RawAnswer | undefined, failure?: FromPrefetcher['failure']): void {
  underWay--;
  if (!a) {
    const m: FromPrefetcher = failure ? { id, failure } : { id };
    port.postMessage(m);
  } else {
    if (a.status === 200) pauseMs = 0;
    else pause();
    let total = 0;
    for (const c of a.chunks) total += c.length;
    // A buffer of its own, so it can be handed over rather than copied.
    const body = new Uint8Array(new ArrayBuffer(total));
    let at = 0;
    for (const c of a.chunks) {
      body.set(c, at);
      at += c.length;
    }
    held++;
    heldBytes += total;
    const m: FromPrefetcher = { id, status: a.status, retryAfter: a.retryAfter, body: body.buffer };
    port.postMessage(m, [body.buffer]);
  }
  pump();
}

port.on('message', (m: ToPrefetcher) => {
  if (m.t === 'want') queue.push({ id: m.id, body: m.body });
  else if (m.t === 'took') {
    held--;
    heldBytes -= m.bytes;
  } else {
    // Each request dropped before it started is answered as none, so its owner stops waiting.
    for (let i = head; i < queue.length; i++) {
      const none: FromPrefetcher = { id: queue[i]!.id };
      port.postMessage(none);
    }
    queue.length = 0;
    head = 0;
  }
  pump();
});
