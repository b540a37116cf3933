// Starts a real gateway in this process on ephemeral ports with its own temporary data dir.
import { credentials as grpcCredentials } from '@grpc/grpc-js';
import { Connection, type Signer, type Transaction } from '@solana/web3.js';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, type Config } from '../../src/config.js';
import { startGateway, type Gateway } from '../../src/gateway.js';
import { createLogger } from '../../src/obs/log.js';
import { ProverClient } from '../../src/prover/index.js';
import type { Backends } from '../../src/rpc/index.js';
import { KEY_CACHE } from './zk.js';

export const TEST_KEY = 'test-key-7f3a9c';

export interface TestGateway {
  gateway: Gateway;
  /** JSON-RPC URL with the test key. */
  url: string;
  base: string;
  dataDir: string;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * A gRPC client of a test gateway's prover, carrying the token the gateway requires and, where
 * given, a request's build right (build-policy.ts encodeBuildRight: what a front would send).
 */
export function proverClientOf(g: Gateway, timeoutMs = 11_000, buildRight?: string): ProverClient {
  return new ProverClient(
    g.grpcAddress,
    timeoutMs,
    {
      credentials: grpcCredentials.createInsecure(),
      options: {},
      ...(g.grpcToken ? { token: g.grpcToken } : {}),
    },
    buildRight,
  );
}

export function tempDir(prefix = 'zkgate-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Points a data dir's keys and compiled circuits at the suite's shared cache (built once); `parts`
 * ['circuits'] links the compiled circuits alone, for a test about building or importing keys.
 */
export function linkKeyCache(dataDir: string, parts: readonly ('keys' | 'circuits')[] = ['keys', 'circuits']): void {
  for (const sub of parts) {
    mkdirSync(join(KEY_CACHE, sub), { recursive: true });
    if (!existsSync(join(dataDir, sub))) symlinkSync(join(KEY_CACHE, sub), join(dataDir, sub), 'dir');
  }
}

/**
 * `prover: true` runs the embedded prover role (trees, worker pool, /prove) with the suite's
 * shared key cache linked into the data dir (unless `linkKeys: false`); by default the gateway is
 * the adapter alone. `keys` are built (or loaded) before this returns: a client flow that needs a
 * proof would otherwise meet "circuit warming up" on a fresh cache, as a user would within
 * proofTimeoutMs of a key's first use. A data dir the caller passes is the caller's: stop() leaves it.
 */
export async function startTestGateway(
  overrides: Partial<Config> = {},
  backends: Backends = {},
  opts: { prover?: boolean; ledger?: boolean; dataDir?: string; linkKeys?: boolean; keys?: readonly string[] } = {},
): Promise<TestGateway> {
  const { prover = false, linkKeys = prover } = opts;
  const dataDir = opts.dataDir ?? tempDir();
  if (linkKeys) linkKeyCache(dataDir);
  const logs: string[] = [];
  const config: Config = {
    ...defaultConfig(),
    rpcPort: 0,
    grpcPort: 0,
    provePort: 0,
    dataDir,
    apiKeys: [TEST_KEY],
    shutdownTimeoutMs: 2000,
    // Keys are built where a test needs them, not in the background of every gateway; so the
    // forester (which builds its batch keys at start) runs only where a test turns it on.
    preloadCircuits: [],
    buildAtStart: ['none'],
    forester: 'off',
    ...overrides,
  };
  const log = createLogger(config.logLevel, (chunk) => logs.push(...chunk.trimEnd().split('\n')));
  const gateway = await startGateway({
    config,
    log,
    version: '0.0.0-test',
    backends,
    embeddedProver: prover,
    embeddedLedger: opts.ledger ?? false,
  });
  if (opts.keys?.length) {
    try {
      await gateway.prover!.service.preload(opts.keys);
    } catch (e) {
      await gateway.stop();
      throw e;
    }
  }
  return {
    gateway,
    url: `${gateway.rpcUrl}?api-key=${TEST_KEY}`,
    base: gateway.rpcUrl,
    dataDir,
    logs,
    async stop() {
      await gateway.stop();
      log.flush();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request with full control over method, headers and body (fetch adds its own headers). */
export function httpRequest(
  url: string,
  opts: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    chunks?: (string | Buffer)[];
  } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.chunks) for (const c of opts.chunks) req.write(c);
    req.end(opts.body);
  });
}

/** POSTs a JSON body (already serialised) with the JSON content type. */
export function postJson(url: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return httpRequest(url, { body, headers: { 'content-type': 'application/json', ...headers } });
}

/** One JSON-RPC call over HTTP; the parsed response body. */
export async function rpcCall(url: string, method: string, params: unknown): Promise<any> {
  const res = await postJson(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  return JSON.parse(res.text);
}

/**
 * Closes a web3.js Connection's websocket (1000) and waits for it: web3.js keeps it while the
 * Connection lives (closing it 500 ms after the last subscription) and reconnects it forever when
 * the server goes away (1001), which would keep a test process alive. It has no public close.
 */
export async function closeWeb3Websocket(conn: object): Promise<void> {
  const rws = (conn as { _rpcWebSocket: { socket?: unknown; close(): void; once(e: string, f: () => void): void } })
    ._rpcWebSocket;
  if (!rws.socket) return;
  const closed = new Promise<void>((r) => rws.once('close', r));
  rws.close();
  await closed;
}

/** A web3.js Connection to a test gateway (commitment confirmed), its websocket at the gateway's PubSub port. */
export function web3Connection(gw: TestGateway): Connection {
  return new Connection(gw.url, { commitment: 'confirmed', wsEndpoint: `${gw.gateway.wsUrl}?api-key=${TEST_KEY}` });
}

/** Closes the Connection's websocket first (see closeWeb3Websocket), then stops the gateway. */
export async function stopWithConnection(gw: TestGateway | undefined, conn: Connection | undefined): Promise<void> {
  if (conn) await closeWeb3Websocket(conn);
  await gw?.stop();
}

/**
 * Sends a transaction and waits for its status by polling (getSignatureStatuses), not by a
 * blockhash's expiry: on a ledger with short slots under a loaded machine, web3.js's confirmation
 * can outlast the 150 slots a blockhash lives although the ledger took the transaction at once.
 */
export async function sendAndPoll(conn: Connection, tx: Transaction, signers: Signer[]): Promise<string> {
  tx.recentBlockhash = (await conn.getLatestBlockhash('confirmed')).blockhash;
  tx.feePayer ??= signers[0]!.publicKey;
  tx.sign(...signers);
  const signature = await conn.sendRawTransaction(tx.serialize());
  for (;;) {
    const s = (await conn.getSignatureStatuses([signature])).value[0];
    if (s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized') {
      if (s.err) throw new Error(`${signature} failed: ${JSON.stringify(s.err)}`);
      return signature;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
