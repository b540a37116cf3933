// The websocket PubSub endpoint (Solana's RPC port + 1): JSON-RPC 2.0 over `ws`, the HTTP side's
// API-key rule at the upgrade, and bounds that keep one client from hurting the others: a message
// size limit, subscription limits (in the hub), an outgoing buffer limit (a client that reads too
// slowly is disconnected) and ping/pong keep-alive.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { ApiKeys } from '../rpc/api-keys.js';
import {
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  SubscriptionLimitError,
  mapError,
} from '../rpc/errors.js';
import { stringifyJson } from '../wire/index.js';
import type { Client, Hub } from './hub.js';
import { checkParamLimits } from '../rpc/limits.js';
import { SUBSCRIBE_METHODS, subscriptionId } from './params.js';

/** The HTTP edge's defaults: what subscribe params could need is far below them. */
const PARAM_LIMITS = { maxDepth: 64, maxStringLength: 16 * 1024 };
export interface PubSubOptions {
  /** The subscriptions this server answers (the embedded ledger's). */
  hub?: Hub;
  /**
   * Or a followed cluster's websocket, which this server relays each client to (--cluster-rpc):
   * the same key rule, message and connection limits and slow-reader cut-off; the cluster answers.
   */
  relayTo?: string;
  keys: ApiKeys;
  maxBufferedBytes: number;
  maxMessageBytes: number;
  /** Open connections one API key may hold; beyond, the upgrade is refused (429). */
  maxConnectionsPerKey: number;
  pingIntervalMs: number;
  registry?: MetricsRegistry;
  log: Logger;
}

/** Messages beyond the soft limit get a JSON-RPC error; this far beyond it the socket is closed (1009). */
const HARD_LIMIT_FACTOR = 16;
const MAX_BATCH = 100;

interface Connection extends Client {
  ws: WebSocket;
  alive: boolean;
  /** Relayed: the connection to the cluster's websocket, and what the client sent before it opened. */
  upstream?: WebSocket;
  pending?: Buffer[];
}

/** Messages a relayed client may send before the cluster's websocket is open. */
const MAX_PENDING = 64;

export class PubSubServer {
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly perKey = new Map<string, number>();
  private readonly ping: NodeJS.Timeout;
  private readonly m;

  constructor(private readonly o: PubSubOptions) {
    // One of the two: requests reach handle() (and the hub) only where nothing is relayed.
    if (!o.hub === !o.relayTo) throw new Error('PubSubServer: a hub or a websocket to relay to, one of them');
    const r = o.registry;
    this.m = r
      ? {
          connections: r.gauge('zkgate_ws_connections', 'open websocket connections', [], () => this.connections.size),
          notifications: r.counter('zkgate_ws_notifications_total', 'notifications sent, by subscription method', [
            'method',
          ]),
          drops: r.counter('zkgate_ws_disconnects_total', 'websocket clients disconnected by zkgate, by reason', [
            'reason',
          ]),
        }
      : undefined;
    this.http = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
      res.end('websocket endpoint: connect with a websocket client (JSON-RPC 2.0 PubSub)\n');
    });
    this.wss = new WebSocketServer({ noServer: true, maxPayload: o.maxMessageBytes * HARD_LIMIT_FACTOR });
    this.http.on('upgrade', (req, socket, head) => this.upgrade(req, socket as Socket, head));
    this.ping = setInterval(() => this.keepAlive(), o.pingIntervalMs);
    this.ping.unref();
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(port, host, () => {
        this.http.off('error', reject);
        resolve(this.http.address() as AddressInfo);
      });
    });
  }

  async close(): Promise<void> {
    clearInterval(this.ping);
    for (const c of this.connections) c.ws.close(1001, 'server shutting down');
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        for (const c of this.connections) c.ws.terminate();
        resolve();
      }, 1000);
      t.unref();
      this.wss.close(() => {
        clearTimeout(t);
        resolve();
      });
    });
    for (const c of this.connections) c.ws.terminate();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    let keyId: string;
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      keyId = this.o.keys.verify(url.searchParams.get('api-key'));
    } catch (e) {
      const body = JSON.stringify({ jsonrpc: '2.0', error: mapError(e).error, id: null });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    // Each connection may hold up to maxBufferedBytes of unread notifications: one key's share is bounded.
    const open = this.perKey.get(keyId) ?? 0;
    if (open >= this.o.maxConnectionsPerKey) {
      this.m?.drops.inc(['connection_limit']);
      const error = mapError(
        new SubscriptionLimitError(
          `Too many websocket connections: this API key holds ${open}, the most allowed (--ws-max-connections-per-key)`,
        ),
      ).error;
      const body = JSON.stringify({ jsonrpc: '2.0', error, id: null });
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, keyId));
  }

  private accept(ws: WebSocket, keyId: string): void {
    const conn: Connection = {
      ws,
      keyId,
      alive: true,
      notify: (method, subscription, result) => {
        this.m?.notifications.inc([method]);
        this.write(conn, { jsonrpc: '2.0', method, params: { result, subscription } });
      },
    };
    this.connections.add(conn);
    this.perKey.set(keyId, (this.perKey.get(keyId) ?? 0) + 1);
    if (this.o.relayTo) this.relay(conn, this.o.relayTo);
    ws.on('pong', () => (conn.alive = true));
    ws.on('message', (data, isBinary) => this.onMessage(conn, data as Buffer, isBinary));
    ws.on('close', () => this.gone(conn));
    ws.on('error', (e) => {
      this.o.log.debug('websocket client error', { error: String(e) });
      this.gone(conn);
    });
  }

  private gone(conn: Connection): void {
    if (!this.connections.delete(conn)) return;
    const left = (this.perKey.get(conn.keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(conn.keyId, left);
    else this.perKey.delete(conn.keyId);
    this.o.hub?.dropClient(conn);
    conn.upstream?.terminate();
  }

  /** Connects a client to the cluster's websocket: its messages go there as sent, the answers back. */
  private relay(conn: Connection, url: string): void {
    const up = new WebSocket(url, { maxPayload: this.o.maxMessageBytes * HARD_LIMIT_FACTOR * 64 });
    conn.upstream = up;
    conn.pending = [];
    up.on('open', () => {
      for (const m of conn.pending ?? []) up.send(m);
      conn.pending = undefined;
    });
    up.on('message', (data: Buffer) => this.writeRaw(conn, data.toString('utf8')));
    const lost = (why: string) => {
      if (conn.ws.readyState === conn.ws.OPEN) {
        this.o.log.warn('websocket relay: the cluster closed the connection', { keyId: conn.keyId, why });
        conn.ws.close(1011, 'the cluster websocket closed');
      }
      this.gone(conn);
    };
    up.on('close', (code) => lost(`close ${code}`));
    up.on('error', (e) => lost(String(e)));
  }

  /** Sends, unless the client has left too much unread: then it is cut off (its subscriptions end). */
  private write(conn: Connection, msg: unknown): void {
    if (conn.ws.readyState !== conn.ws.OPEN) return;
    if (conn.ws.bufferedAmount > this.o.maxBufferedBytes) {
      this.m?.drops.inc(['slow_consumer']);
      this.o.log.warn('websocket client disconnected: too slow reading notifications', {
        keyId: conn.keyId,
        buffered: conn.ws.bufferedAmount,
      });
      conn.ws.terminate();
      this.gone(conn);
      return;
    }
    conn.ws.send(stringifyJson(msg));
  }

  /** As write, for text already encoded (the cluster's answers, relayed). */
  private writeRaw(conn: Connection, text: string): void {
    if (conn.ws.readyState !== conn.ws.OPEN) return;
    if (conn.ws.bufferedAmount > this.o.maxBufferedBytes) {
      this.m?.drops.inc(['slow_consumer']);
      conn.ws.terminate();
      this.gone(conn);
      return;
    }
    conn.ws.send(text);
  }

  private keepAlive(): void {
    for (const conn of this.connections) {
      if (!conn.alive) {
        this.m?.drops.inc(['no_pong']);
        conn.ws.terminate();
        this.gone(conn);
        continue;
      }
      conn.alive = false;
      conn.ws.ping();
    }
  }

  private onMessage(conn: Connection, data: Buffer, isBinary: boolean): void {
    if (data.length > this.o.maxMessageBytes) {
      this.fail(
        conn,
        null,
        new InvalidRequestError(
          `Invalid Request: message of ${data.length} bytes, the most accepted is ${this.o.maxMessageBytes} (--ws-max-message-bytes)`,
        ),
      );
      return;
    }
    if (conn.upstream) {
      if (conn.pending) {
        if (conn.pending.length >= MAX_PENDING) {
          this.fail(conn, null, new InvalidRequestError('Invalid Request: the cluster websocket is not open yet'));
          return;
        }
        conn.pending.push(data);
      } else if (conn.upstream.readyState === conn.upstream.OPEN) conn.upstream.send(data);
      return;
    }
    let body: unknown;
    try {
      if (isBinary && data.includes(0)) throw new Error('binary frame');
      body = JSON.parse(data.toString('utf8'));
    } catch {
      this.fail(conn, null, new ParseError('Parse error'));
      return;
    }
    if (Array.isArray(body)) {
      if (body.length === 0 || body.length > MAX_BATCH) {
        this.fail(conn, null, new InvalidRequestError(`Invalid Request: a batch holds 1 to ${MAX_BATCH} requests`));
        return;
      }
      const afters: (() => void)[] = [];
      const answers = body.map((r) => this.handle(conn, r, afters)).filter((a) => a !== undefined);
      if (answers.length > 0) this.write(conn, answers);
      for (const a of afters) a();
      return;
    }
    const afters: (() => void)[] = [];
    const answer = this.handle(conn, body, afters);
    if (answer !== undefined) this.write(conn, answer);
    for (const a of afters) a();
  }

  private fail(conn: Connection, id: unknown, e: unknown): void {
    this.write(conn, { jsonrpc: '2.0', error: mapError(e).error, id });
  }

  /**
   * One request's answer (none for a notification: a request without an id, such as web3.js's
   * keep-alive `ping`); work that must follow the answer (an immediate notification) goes to `afters`.
   */
  private handle(conn: Connection, req: unknown, afters: (() => void)[]): unknown {
    const r = req as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    if (typeof r === 'object' && r !== null && !Array.isArray(r) && !('id' in r) && typeof r.method === 'string')
      return undefined;
    const id =
      typeof r === 'object' && r !== null && (typeof r.id === 'number' || typeof r.id === 'string') ? r.id : null;
    try {
      if (typeof r !== 'object' || r === null || r.jsonrpc !== '2.0' || typeof r.method !== 'string')
        throw new InvalidRequestError('Invalid Request');
      const method = r.method;
      // Own names only: a method named after an Object.prototype member ("constructor") is unknown.
      const parse = Object.hasOwn(SUBSCRIBE_METHODS, method) ? SUBSCRIBE_METHODS[method] : undefined;
      if (r.params !== undefined && r.params !== null) checkParamLimits(r.params, 'params', PARAM_LIMITS);
      if (parse) {
        const { id: sub, after } = this.o.hub!.subscribe(conn, parse(r.params));
        if (after) afters.push(after);
        return { jsonrpc: '2.0', result: sub, id };
      }
      if (
        method.endsWith('Unsubscribe') &&
        Object.hasOwn(SUBSCRIBE_METHODS, method.replace(/Unsubscribe$/, 'Subscribe'))
      ) {
        const sub = subscriptionId(r.params);
        if (!this.o.hub!.unsubscribe(conn, sub)) throw new InvalidParamsError('Invalid subscription id.');
        return { jsonrpc: '2.0', result: true, id };
      }
      throw new MethodNotFoundError(method);
    } catch (e) {
      const m = mapError(e);
      if (m.unexpected) this.o.log.error('websocket request failed', { error: String(m.unexpected) });
      return { jsonrpc: '2.0', error: m.error, id };
    }
  }
}
