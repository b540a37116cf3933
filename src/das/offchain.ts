// Off-chain metadata JSON (the asset's `uri`): downloaded in the background with a timeout, a size
// cap, bounded redirects, bounded retries with backoff and a cache in the ledger's store, never on
// a getAsset's path. Until it arrives an asset answers with chain data only (files [], links {}); a
// URI that does not parse as an http(s) URL is recorded as invalid and never fetched. Whoever
// writes a metadata account chooses the URI, so it is fetched from public addresses only
// (util/public-fetch.ts), unless a dev chain allows private ones.
import type { Database, RootDatabase } from 'lmdb';
import type { MetricsRegistry } from '../obs/metrics.js';
import { FetchRefused, fetchPublic } from '../util/public-fetch.js';

export interface JsonRecord {
  status: 'pending' | 'ok' | 'invalid' | 'failed';
  json?: Record<string, unknown>;
  attempts: number;
  error?: string;
  updatedAt: number;
}

export interface FetcherOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Attempts before giving up (the reference's max_attempts). */
  maxAttempts?: number;
  /** First retry delay; doubles each attempt. */
  backoffMs?: number;
  concurrency?: number;
  /** Redirects followed per download (default 5). */
  maxRedirects?: number;
  /** Downloads waiting at most (default 10,000); more stay pending in the store until a restart. */
  maxQueue?: number;
  /** Loopback and private addresses allowed (default: public only). */
  allowPrivate?: boolean;
  metrics?: MetricsRegistry;
}

type Outcome = 'ok' | 'failed' | 'private_address' | 'too_large' | 'redirects' | 'bad_url' | 'queue_full';

export class MetadataFetcher {
  private readonly db: Database<JsonRecord, string>;
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private active = 0;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly controllers = new Set<AbortController>();
  private readonly outcomes?: ReturnType<MetricsRegistry['counter']>;

  constructor(
    root: RootDatabase,
    private readonly o: FetcherOptions,
  ) {
    this.db = root.openDB<JsonRecord, string>({ name: 'das-json', encoding: 'json', cache: true });
    const m = o.metrics;
    if (m) {
      m.gauge('zkgate_offchain_queue_depth', 'Off-chain metadata downloads waiting', [], () => this.queue.length);
      this.outcomes = m.counter('zkgate_offchain_fetches_total', 'Off-chain metadata downloads by outcome', [
        'outcome',
      ]);
    }
  }

  private count(outcome: Outcome): void {
    this.outcomes?.inc([outcome]);
  }

  /** Re-queues downloads a previous run left pending. */
  resume(): void {
    for (const { key, value } of this.db.getRange()) if (value.status === 'pending') this.want(key);
  }

  get(uri: string): JsonRecord | undefined {
    return this.db.get(uri);
  }

  /** Asks for a URI's JSON unless it is known (fetched, invalid or given up on) or on its way. */
  want(uri: string): void {
    if (!uri || this.closed || this.queued.has(uri)) return;
    const rec = this.db.get(uri);
    if (rec && rec.status !== 'pending') return;
    let url: URL | undefined;
    try {
      url = new URL(uri);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      void this.db.put(uri, { status: 'invalid', attempts: 0, error: 'Invalid Uri', updatedAt: Date.now() });
      return;
    }
    if (this.queue.length >= (this.o.maxQueue ?? 10_000)) {
      // Left pending in the store: resume() queues it at the next start.
      if (!rec) void this.db.put(uri, { status: 'pending', attempts: 0, updatedAt: Date.now() });
      this.count('queue_full');
      return;
    }
    this.queued.add(uri);
    this.queue.push(uri);
    setImmediate(() => this.pump());
  }

  private pump(): void {
    while (!this.closed && this.active < (this.o.concurrency ?? 8) && this.queue.length > 0) {
      const uri = this.queue.shift()!;
      this.active++;
      void this.attempt(uri).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async attempt(uri: string): Promise<void> {
    const prev = this.db.get(uri);
    const attempts = (prev?.attempts ?? 0) + 1;
    try {
      const json = await this.download(uri);
      await this.db.put(uri, { status: 'ok', json, attempts, updatedAt: Date.now() });
      this.queued.delete(uri);
      this.count('ok');
    } catch (e) {
      if (this.closed) return;
      const error = (e as Error).message;
      const max = this.o.maxAttempts ?? 3;
      const done = (e instanceof FetchRefused && e.permanent) || attempts >= max;
      this.count(e instanceof FetchRefused ? e.kind : 'failed');
      await this.db.put(uri, { status: done ? 'failed' : 'pending', attempts, error, updatedAt: Date.now() });
      if (done) {
        this.queued.delete(uri);
        return;
      }
      const t = setTimeout(
        () => {
          this.timers.delete(t);
          this.queue.push(uri);
          this.pump();
        },
        (this.o.backoffMs ?? 1000) * 2 ** (attempts - 1),
      );
      t.unref();
      this.timers.add(t);
    }
  }

  private async download(uri: string): Promise<Record<string, unknown>> {
    const ac = new AbortController();
    this.controllers.add(ac);
    const timer = setTimeout(() => ac.abort(new Error(`timed out after ${this.o.timeoutMs} ms`)), this.o.timeoutMs);
    try {
      const res = await fetchPublic(uri, {
        signal: ac.signal,
        maxBytes: this.o.maxBytes,
        maxRedirects: this.o.maxRedirects ?? 5,
        ...(this.o.allowPrivate ? { allowed: () => true } : {}),
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      const parsed = JSON.parse(res.body.toString('utf8')) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      return parsed as Record<string, unknown>;
    } catch (e) {
      if (ac.signal.aborted && !(e instanceof FetchRefused))
        throw new Error(String((ac.signal.reason as Error)?.message ?? 'aborted'));
      throw e;
    } finally {
      clearTimeout(timer);
      this.controllers.delete(ac);
    }
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const c of this.controllers) c.abort(new Error('closing'));
  }
}

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  html: 'text/html',
  json: 'application/json',
};

/** By the URL path's extension, falling back to image/png as the reference does. */
export function guessMime(uri: string): string {
  let path = uri;
  try {
    path = new URL(uri).pathname;
  } catch {
    // not a URL: use the text as is
  }
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) || 'image/png';
}

export interface ContentFromJson {
  files: Record<string, unknown>[];
  links: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/**
 * content.files / links / metadata from an off-chain JSON (get-asset.md §2.3, with decision 8:
 * no quoted-uri quirk; `links.image` first, then properties.files in order, then animation_url).
 */
export function contentFromJson(json: Record<string, unknown>, cdnPrefix: string): ContentFromJson {
  const links: Record<string, unknown> = {};
  for (const k of ['image', 'animation_url', 'external_url']) if (json[k] !== undefined) links[k] = json[k];
  const metadata: Record<string, unknown> = {};
  if (json.description !== undefined) metadata.description = json.description;
  if (json.attributes !== undefined) metadata.attributes = json.attributes;
  const files: { uri: string; mime: string }[] = [];
  const add = (uri: unknown, mime?: unknown) => {
    if (typeof uri !== 'string' || files.some((f) => f.uri === uri)) return;
    files.push({ uri, mime: typeof mime === 'string' ? mime : guessMime(uri) });
  };
  const props = json.properties as { files?: unknown } | undefined;
  if (Array.isArray(props?.files)) {
    for (const f of props.files) {
      if (typeof f === 'string') add(f);
      else if (f && typeof f === 'object') {
        const o = f as { uri?: unknown; url?: unknown; type?: unknown };
        add(typeof o.uri === 'string' ? o.uri : o.url, o.type);
      }
    }
  }
  add(json.image);
  add(json.animation_url);
  const image = typeof links.image === 'string' ? links.image : undefined;
  const i = image === undefined ? -1 : files.findIndex((f) => f.uri === image);
  if (i > 0) files.unshift(...files.splice(i, 1));
  return {
    files: files.map((f) => ({ uri: f.uri, ...(cdnPrefix ? { cdn_uri: cdnPrefix + f.uri } : {}), mime: f.mime })),
    links,
    metadata,
  };
}
