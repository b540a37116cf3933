// Configuration: one table of options drives parsing, validation, --help and the README table.
// Precedence: defaults < --config FILE (JSON) < environment < command-line flags.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AppError } from './errors.js';
import { isLoopback } from './util/loopback.js';
import { DEFAULT_DEV_SEED } from './zk/dev-seed.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const ROLES = ['all', 'rpc', 'prover'] as const;
export const PROVER_BACKENDS = ['auto', 'snarkjs', 'native', 'cuda'] as const;
export type ProverBackendChoice = (typeof PROVER_BACKENDS)[number];
export type Role = (typeof ROLES)[number];
export const PROVING_KEYS = ['auto', 'light', 'dev'] as const;
export type ProvingKeysChoice = (typeof PROVING_KEYS)[number];

export interface Config {
  host: string;
  rpcPort: number;
  /** null: the JSON-RPC port + 1 (Solana's convention; any free port when that one is 0). */
  wsPort: number | null;
  wsMaxSubscriptionsPerConnection: number;
  wsMaxSubscriptionsPerKey: number;
  wsMaxConnectionsPerKey: number;
  wsMaxBufferedBytes: number;
  wsMaxMessageBytes: number;
  wsPingIntervalMs: number;
  grpcPort: number;
  proverHost: string;
  grpcToken: string;
  proverToken: string;
  grpcTlsCert: string;
  grpcTlsKey: string;
  grpcTlsCa: string;
  grpcInsecure: 'on' | 'off';
  dataDir: string;
  apiKeys: string[];
  rateLimit: number;
  rateLimitBurst: number;
  maxBodyBytes: number;
  maxBatchSize: number;
  requestTimeoutMs: number;
  maxJsonDepth: number;
  maxStringLength: number;
  proverUrl: string;
  queue: string;
  queueFormat: 'zkgate' | 'light';
  queueLeaseMs: number;
  queueAttempts: number;
  queueResultTtlS: number;
  queueMaxJobs: number;
  queueSlots: number;
  shutdownTimeoutMs: number;
  logLevel: LogLevel;
  devKeySeed: string;
  role: Role;
  provePort: number;
  proverApiKey: string;
  proveCorsOrigins: string[];
  proverThreads: number;
  proverCurveThreads: number;
  proverBackend: ProverBackendChoice;
  provingKeys: ProvingKeysChoice;
  lightKeys: string[];
  proverQueue: number;
  proverQueuePerKey: number;
  proofTimeoutMs: number;
  preloadCircuits: string[];
  proverMemoryMb: number;
  proverDevices: number[];
  proverDeviceMemoryMb: number;
  proverBatchMax: number;
  proverBatchWaitUs: number;
  accountDir: string[];
  program: string[];
  lightSystemProgram: string;
  lightPackage: string;
  adminKeys: string[];
  buildOnDemand: string[];
  buildMemoryMb: number;
  keyBuildWaitMs: number;
  buildConcurrency: number;
  buildAtStart: string[];
  forkUrl: string;
  clusterRpc: string;
  clusterWs: string;
  startSlot: number;
  clusterCommitment: 'finalized' | 'confirmed';
  clusterPollMs: number;
  clusterCheckMs: number;
  indexDb: string;
  indexDbTimeoutMs: number;
  simulateUpstream: string;
  upstreamTimeoutMs: number;
  dasUpstream: string;
  validityProofUpstream: string;
  cdnPrefix: string;
  priceSource: string;
  metadataTimeoutMs: number;
  metadataMaxBytes: number;
  offchainAllowPrivate: 'on' | 'off';
  forester: 'on' | 'off';
  slotTimeMs: number;
  foresterKeypair: string;
}

type Kind =
  'string' | 'port' | 'wsport' | 'count' | 'list' | 'indexes' | 'level' | 'role' | 'backend' | 'switch' | 'choice';

interface OptionSpec {
  key: keyof Config;
  kind: Kind;
  default: Config[keyof Config];
  help: string;
  /** kind 'choice': the values it takes. */
  choices?: readonly string[];
}

/** Every option; flag = kebab-case of the key, env = UPPER_SNAKE of the same words. */
export const OPTIONS: readonly OptionSpec[] = [
  { key: 'host', kind: 'string', default: '127.0.0.1', help: 'address the JSON-RPC and gRPC servers bind to' },
  { key: 'rpcPort', kind: 'port', default: 8899, help: 'JSON-RPC HTTP port (0 = any free port)' },
  {
    key: 'wsPort',
    kind: 'wsport',
    default: null,
    help: 'websocket PubSub port (default: the JSON-RPC port + 1, as validators; 0 = any free port)',
  },
  {
    key: 'wsMaxSubscriptionsPerConnection',
    kind: 'count',
    default: 1000,
    help: 'most websocket subscriptions one connection may hold',
  },
  {
    key: 'wsMaxSubscriptionsPerKey',
    kind: 'count',
    default: 10_000,
    help: 'most websocket subscriptions all connections of one API key may hold',
  },
  {
    key: 'wsMaxConnectionsPerKey',
    kind: 'count',
    default: 100,
    help: 'most websocket connections one API key may hold open (the upgrade is refused with 429 beyond)',
  },
  {
    key: 'wsMaxBufferedBytes',
    kind: 'count',
    default: 16 * 1024 * 1024,
    help: 'notifications a websocket client may leave unread (bytes) before it is disconnected as too slow',
  },
  {
    key: 'wsMaxMessageBytes',
    kind: 'count',
    default: 64 * 1024,
    help: 'largest websocket request message in bytes (a JSON-RPC error beyond)',
  },
  {
    key: 'wsPingIntervalMs',
    kind: 'count',
    default: 30_000,
    help: 'websocket keep-alive: ping every this often; a client that did not answer the last ping is dropped',
  },
  { key: 'grpcPort', kind: 'port', default: 50051, help: 'gRPC port of the prover service (0 = any free port)' },
  {
    key: 'proverHost',
    kind: 'string',
    default: '',
    help: "address the prover role's gRPC and Light /prove servers bind to (default: --host)",
  },
  {
    key: 'grpcToken',
    kind: 'string',
    default: '',
    help: 'bearer token every Prover and StateSync gRPC call must carry (authorization: Bearer …), at least 16 characters; default: generated at the first start into the data dir (grpc-token)',
  },
  {
    key: 'proverToken',
    kind: 'string',
    default: '',
    help: "--role rpc: the token sent to --prover-url's gRPC server (its --grpc-token)",
  },
  {
    key: 'grpcTlsCert',
    kind: 'string',
    default: '',
    help: 'PEM certificate (chain) the gRPC server serves TLS with; with --grpc-tls-key',
  },
  { key: 'grpcTlsKey', kind: 'string', default: '', help: 'PEM private key of --grpc-tls-cert' },
  {
    key: 'grpcTlsCa',
    kind: 'string',
    default: '',
    help: "PEM CA certificate(s) a client trusts for the prover's TLS: --role rpc connects to --prover-url with TLS when set",
  },
  {
    key: 'grpcInsecure',
    kind: 'switch',
    default: 'off',
    help: 'on: allow gRPC without TLS off loopback (the token then crosses the network in plaintext; a private network you trust)',
  },
  {
    key: 'dataDir',
    kind: 'string',
    default: './data',
    help: 'directory for keys, trees, ledger and circuit artifacts',
  },
  {
    key: 'apiKeys',
    kind: 'list',
    default: [],
    help: 'comma-separated API keys; none: a key is generated on first start and kept in the data dir',
  },
  {
    key: 'adminKeys',
    kind: 'list',
    default: [],
    help: 'keys that may call cheatcodes (surfnet_*) and requestAirdrop, accepted as API keys too (comma-separated); without them every key may on a loopback-bound gateway and none may on one bound elsewhere',
  },
  {
    key: 'rateLimit',
    kind: 'count',
    default: 1000,
    help: 'requests per second allowed per API key (0 = unlimited); a batch counts each request',
  },
  {
    key: 'rateLimitBurst',
    kind: 'count',
    default: 2000,
    help: 'token-bucket size per API key: requests allowed at once before the rate applies',
  },
  {
    key: 'maxBodyBytes',
    kind: 'count',
    default: 2 * 1024 * 1024,
    help: 'largest accepted request body in bytes (HTTP 413 beyond)',
  },
  { key: 'maxBatchSize', kind: 'count', default: 100, help: 'most requests in one JSON-RPC batch' },
  {
    key: 'requestTimeoutMs',
    kind: 'count',
    default: 120_000,
    help: 'longest a client may take to send a whole request (its headers within 30 s); HTTP 408 with a JSON-RPC error beyond',
  },
  {
    key: 'maxJsonDepth',
    kind: 'count',
    default: 64,
    help: 'deepest nesting of arrays and objects in JSON-RPC params (-32602 beyond)',
  },
  {
    key: 'maxStringLength',
    kind: 'count',
    default: 16 * 1024,
    help: "longest string in JSON-RPC params, in characters (-32602 beyond; surfnet_setAccount's data excepted)",
  },
  {
    key: 'proverUrl',
    kind: 'string',
    default: '',
    help: 'gRPC address host:port of the prover service (default: the one this process serves); --role rpc: several, comma-separated, balanced with failover',
  },
  {
    key: 'queue',
    kind: 'string',
    default: '',
    help: 'Redis job queue for a prover fleet, redis://[:password@]host:port[/db] or rediss:// (TLS): --role rpc queues its proofs there, --role prover (and all) hosts prove what is queued',
  },
  {
    key: 'queueFormat',
    kind: 'choice',
    choices: ['zkgate', 'light'],
    default: 'zkgate',
    help: "the queue's lists: zkgate (its own), or light (Light's prover lists: zk_update_queue, …, so zkgate hosts join a Light prover deployment)",
  },
  {
    key: 'queueLeaseMs',
    kind: 'count',
    default: 30_000,
    help: 'a claimed job returns to the queue when its host has not renewed it for this long (the host died)',
  },
  {
    key: 'queueAttempts',
    kind: 'count',
    default: 3,
    help: 'tries before a job fails for good and lands in the failed list',
  },
  {
    key: 'queueResultTtlS',
    kind: 'count',
    default: 3600,
    help: 'seconds results are kept in the queue (and identical inputs answered from them)',
  },
  {
    key: 'queueMaxJobs',
    kind: 'count',
    default: 10_000,
    help: 'most jobs waiting in one queue list; submissions beyond are refused as busy',
  },
  {
    key: 'queueSlots',
    kind: 'count',
    default: 0,
    help: 'jobs a prover host holds at once (0: its prover threads + 1; on GPU hosts raise it to the batch size wanted)',
  },
  {
    key: 'shutdownTimeoutMs',
    kind: 'count',
    default: 10_000,
    help: 'on SIGTERM/SIGINT, how long in-flight requests may take to finish',
  },
  { key: 'logLevel', kind: 'level', default: 'info', help: `log level: ${LOG_LEVELS.join(', ')}` },
  {
    key: 'devKeySeed',
    kind: 'string',
    default: DEFAULT_DEV_SEED,
    help: 'seed of the deterministic dev key setup (dev keys are insecure whatever the seed)',
  },
  {
    key: 'role',
    kind: 'role',
    default: 'all',
    help: `what this process runs: ${ROLES.join(', ')} (rpc needs --prover-url)`,
  },
  {
    key: 'provePort',
    kind: 'port',
    default: 3001,
    help: 'port of the Light-compatible prover HTTP API (POST /prove, GET /health) of the prover role',
  },
  {
    key: 'proverApiKey',
    kind: 'string',
    default: '',
    help: 'when set, POST /prove needs it as X-API-Key or Authorization: Bearer (as Light does)',
  },
  {
    key: 'proveCorsOrigins',
    kind: 'list',
    default: [],
    help: "web page origins (e.g. http://localhost:3000) whose scripts may call Light's /prove API; a request from any other page (an Origin header) is refused, so that no page in a browser can drive a local prover",
  },
  { key: 'proverThreads', kind: 'count', default: 0, help: 'prover worker threads (0 = one per core)' },
  {
    key: 'proverCurveThreads',
    kind: 'count',
    default: 0,
    help: 'threads one proof may use inside a worker (0 = 2 × cores / workers, at least 2, at most the cores)',
  },
  {
    key: 'proverBackend',
    kind: 'backend',
    default: 'auto',
    help: `proving backend: ${PROVER_BACKENDS.join(', ')} (auto: cuda when a GPU is present and its self-check passes, else native when built and its self-check passes, else snarkjs)`,
  },
  {
    key: 'provingKeys',
    kind: 'choice',
    choices: PROVING_KEYS,
    default: 'auto',
    help: "whose keys prove the validity shapes: light (Light's own, imported with --light-keys or `zkgate keys import-light`; a shape without one is refused), dev (zkgate's dev keys), auto (Light's where imported, else the dev key)",
  },
  {
    key: 'lightKeys',
    kind: 'list',
    default: [],
    help: "directories or files of Light's proving-system files (*.key of Light's prover 0.27): imported into the data dir at start (a file imported before is not imported again)",
  },
  {
    key: 'proverQueue',
    kind: 'count',
    default: 64,
    help: 'proofs that may wait for a worker; beyond, or when the proofs ahead would take a request past its deadline, it fails at once with "prover busy"',
  },
  {
    key: 'proverQueuePerKey',
    kind: 'count',
    default: 0,
    help: 'most proofs one API key (or other prover client) may have waiting (0 = half of --prover-queue)',
  },
  {
    key: 'proofTimeoutMs',
    kind: 'count',
    default: 10_000,
    help: 'per-proof deadline (queue wait, key warm-up and proving)',
  },
  {
    key: 'buildOnDemand',
    kind: 'list',
    default: ['auto'],
    help: 'shapes whose proving key a request may have built: auto (on a loopback-bound gateway the V1 shapes and V2 up to 8 accounts and 8 addresses; elsewhere none), none, all, v1, v2 or shape names; other shapes answer at once naming the shape (build them with `zkgate keys build`, or --preload-circuits)',
  },
  {
    key: 'keyBuildWaitMs',
    kind: 'count',
    default: 120_000,
    help: 'longest a request waits for the build of the proving key it needs (one it may build, or one being built), its proof then getting --proof-timeout-ms; a build expected to take longer answers -32013 at once with the time left',
  },
  {
    key: 'buildConcurrency',
    kind: 'count',
    default: 0,
    help: 'proving-key builds run at once, for keys clients wait for and as many for the others (0 = one per 4 cores, at least 1)',
  },
  {
    key: 'buildAtStart',
    kind: 'list',
    default: ['auto'],
    help: "shapes whose missing keys are built in the background at start, after the preloads and before the forester's: auto (where requests may build keys, the shapes of stateless.js and compressed-token's common flows, V1 and V2), none, v1, v2 or shape names",
  },
  {
    key: 'buildMemoryMb',
    kind: 'count',
    default: 0,
    help: 'memory a proving-key build may use, MB; a build that would need more (or more disk than is free) is refused before it starts (0: the memory available when it would start)',
  },
  {
    key: 'preloadCircuits',
    kind: 'list',
    // The shapes of a one-account transfer (V1 and V2), in the background: a newcomer's first
    // compressed transfer then rarely waits for a key build (≈ 8 s each on 2 cores).
    default: ['v1_inclusion_26_1', 'v2_inclusion_32_1'],
    help: 'circuit shapes whose keys are built and loaded in the background at start ("v1" = all V1 shapes, "" = none)',
  },
  {
    key: 'proverMemoryMb',
    kind: 'count',
    default: 2048,
    help: 'MiB of proving keys and fixed-base tables kept loaded, for the whole process (its workers share them; least recently used evicted)',
  },
  {
    key: 'proverDevices',
    kind: 'indexes',
    default: [],
    help: 'cuda: the GPUs to prove on, as comma-separated device indexes (default: every visible one)',
  },
  {
    key: 'proverDeviceMemoryMb',
    kind: 'count',
    default: 0,
    help: "cuda: per GPU, MiB of proving keys kept resident (least recently used evicted; 0 = 90 % of the device's free memory)",
  },
  {
    key: 'proverBatchMax',
    kind: 'count',
    default: 64,
    help: 'cuda: the most concurrent proofs of one shape proved in one device pass',
  },
  {
    key: 'proverBatchWaitUs',
    kind: 'count',
    default: 2000,
    help: 'cuda: how long (µs) the first proof of a batch waits for others to join it',
  },
  {
    key: 'forester',
    kind: 'switch',
    default: 'on',
    help: "with the embedded ledger: drain Light's queues into their trees with batch proofs (on, off)",
  },
  {
    key: 'foresterKeypair',
    kind: 'string',
    default: '',
    help: "the forester's signing key (solana-keygen JSON); default: one made on first start in the data dir and registered in the ledger's genesis",
  },
  {
    key: 'accountDir',
    kind: 'list',
    default: [],
    help: 'directories of account JSON files (solana-test-validator --account format) loaded into the ledger',
  },
  {
    key: 'program',
    kind: 'list',
    default: [],
    help: 'programs to load into the ledger, as PROGRAM_ID=FILE.so (comma-separated)',
  },
  {
    key: 'lightSystemProgram',
    kind: 'string',
    default: '',
    help: "Light's system program file to run as shipped, unpatched (e.g. bin/light_system_program_pinocchio.so of Light's CLI 0.27.0): it verifies only proofs of the Light keys it holds (import that release's key files with --light-keys)",
  },
  {
    key: 'lightPackage',
    kind: 'string',
    default: '',
    help: "another release of Light's CLI package (a directory with its bin/ and accounts/, e.g. @lightprotocol/zk-compression-cli 0.27.0 unpacked) whose programs and genesis accounts the ledger runs as shipped, unpatched, proving with its bin/proving-keys (unless --light-keys says otherwise); no forester. A data dir keeps the package it was made with",
  },
  {
    key: 'slotTimeMs',
    kind: 'count',
    default: 400,
    help: "the embedded ledger's slot time in milliseconds: a new slot and blockhash each (at least 10)",
  },
  {
    key: 'forkUrl',
    kind: 'string',
    default: '',
    help: 'Solana RPC URL to fetch accounts the ledger does not hold from (fork mode)',
  },
  {
    key: 'clusterRpc',
    kind: 'string',
    default: '',
    help: "Solana RPC URL of a cluster to follow instead of the embedded ledger: zkgate indexes its Light state itself, through that RPC's standard methods, and serves the Photon API and proofs from that index",
  },
  {
    key: 'clusterWs',
    kind: 'string',
    default: '',
    help: "with --cluster-rpc, the cluster's websocket: clients' subscriptions are relayed to it, and its slot notifications tell the follower of new blocks (default: as web3.js derives it from the RPC URL: ws(s), port + 1)",
  },
  {
    key: 'startSlot',
    kind: 'count',
    default: 0,
    help: "with --cluster-rpc, the slot an empty index starts from (0: the cluster's first available block); a restart resumes from the index's checkpoint",
  },
  {
    key: 'clusterCommitment',
    kind: 'choice',
    choices: ['finalized', 'confirmed'],
    default: 'finalized',
    help: 'with --cluster-rpc, the blocks indexed: finalized, or confirmed (about 13 s sooner; what a block wrote is taken back if it does not end up on the finalized chain)',
  },
  {
    key: 'clusterPollMs',
    kind: 'count',
    default: 400,
    help: "with --cluster-rpc, how often the cluster is asked for new blocks once caught up (its websocket's slot notifications ask at once)",
  },
  {
    key: 'clusterCheckMs',
    kind: 'count',
    default: 30_000,
    help: "with --cluster-rpc, how often, once caught up, the index's trees are compared with the cluster's tree accounts (a difference is logged and shown by /health)",
  },
  {
    key: 'indexDb',
    kind: 'string',
    default: '',
    help: "with --cluster-rpc, keep the cluster's index in Postgres (postgres:// or postgresql:// URL, sslmode in its query) instead of the data dir: every process with the same --index-db serves it, and one of them (elected with a Postgres advisory lock, replaced within seconds when it dies) writes it",
  },
  {
    key: 'indexDbTimeoutMs',
    kind: 'count',
    default: 5000,
    help: "with --index-db, Postgres's statement timeout and the longest wait for one answer, ms: past it a request fails with a clear error (-32000 index_db_unavailable) rather than hang",
  },
  {
    key: 'simulateUpstream',
    kind: 'string',
    default: '',
    help: 'Jito-enabled RPC URL to forward simulateBundle to instead of simulating locally',
  },
  {
    key: 'upstreamTimeoutMs',
    kind: 'count',
    default: 10_000,
    help: 'timeout of calls to --simulate-upstream, --das-upstream, --validity-proof-upstream and --fork-url',
  },
  {
    key: 'dasUpstream',
    kind: 'string',
    default: '',
    help: 'DAS provider URL to forward getAsset to instead of answering from the local index',
  },
  {
    key: 'validityProofUpstream',
    kind: 'string',
    default: '',
    help: "Photon/Helius URL to forward getValidityProof(V2) and the Photon indexer methods to (public clusters, where proofs must verify against Light's ceremony keys)",
  },
  {
    key: 'cdnPrefix',
    kind: 'string',
    default: '',
    help: 'prefix of content.files[].cdn_uri (e.g. https://cdn.example.com/img/); none: no cdn_uri',
  },
  {
    key: 'priceSource',
    kind: 'string',
    default: '',
    help: 'JSON file or URL of token prices (mint → price, 24h volume) for token_info.price_info',
  },
  {
    key: 'metadataTimeoutMs',
    kind: 'count',
    default: 3000,
    help: 'timeout of one off-chain metadata JSON download',
  },
  {
    key: 'metadataMaxBytes',
    kind: 'count',
    default: 1024 * 1024,
    help: 'largest off-chain metadata JSON accepted, in bytes',
  },
  {
    key: 'offchainAllowPrivate',
    kind: 'switch',
    default: 'off',
    help: 'off-chain metadata may be fetched from loopback and private addresses (on: a dev chain serving its own metadata; off: public addresses only, on every redirect)',
  },
];

/** Shortest --grpc-token / --prover-token accepted. */
export const MIN_TOKEN_LENGTH = 16;

export class ConfigError extends AppError {
  readonly kind = 'config';
}

export const flagName = (key: string): string => key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());
export const envName = (key: string): string => flagName(key).replace(/-/g, '_').toUpperCase();

export function defaultConfig(): Config {
  const cfg: Record<string, unknown> = {};
  for (const o of OPTIONS) cfg[o.key] = Array.isArray(o.default) ? [...o.default] : o.default;
  return cfg as unknown as Config;
}

function coerce(spec: OptionSpec, raw: unknown, source: string): Config[keyof Config] {
  const where = source;
  switch (spec.kind) {
    case 'string':
      if (typeof raw !== 'string') throw new ConfigError(`${where}: expected a string, got ${JSON.stringify(raw)}`);
      return raw;
    case 'list': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
      if (!items || items.some((k) => typeof k !== 'string')) {
        throw new ConfigError(`${where}: expected a comma-separated string or an array of strings`);
      }
      return (items as string[]).map((k) => k.trim()).filter((k) => k.length > 0);
    }
    case 'indexes': {
      const items = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : null;
      const out = items?.map((k) =>
        typeof k === 'number' ? k : typeof k === 'string' && /^\s*\d+\s*$/.test(k) ? Number(k) : NaN,
      );
      if (!out || out.some((n) => !Number.isSafeInteger(n) || n < 0)) {
        throw new ConfigError(
          `${where}: expected comma-separated device indexes (0, 1, …), got ${JSON.stringify(raw)}`,
        );
      }
      return [...new Set(out)];
    }
    case 'wsport':
      if (raw === null || raw === '' || raw === 'rpc+1') return null;
      return coerce({ ...spec, kind: 'port' }, raw, source);
    case 'port':
    case 'count': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
      const max = spec.kind === 'port' ? 65535 : Number.MAX_SAFE_INTEGER;
      if (!Number.isSafeInteger(n) || n < 0 || n > max) {
        throw new ConfigError(`${where}: expected an integer from 0 to ${max}, got ${JSON.stringify(raw)}`);
      }
      return n;
    }
    case 'level':
      if (typeof raw !== 'string' || !(LOG_LEVELS as readonly string[]).includes(raw)) {
        throw new ConfigError(`${where}: expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw as LogLevel;
    case 'role':
      if (typeof raw !== 'string' || !(ROLES as readonly string[]).includes(raw)) {
        throw new ConfigError(`${where}: expected one of ${ROLES.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw as Role;
    case 'switch':
      if (raw !== 'on' && raw !== 'off')
        throw new ConfigError(`${where}: expected on or off, got ${JSON.stringify(raw)}`);
      return raw;
    case 'choice':
      if (typeof raw !== 'string' || !spec.choices!.includes(raw)) {
        throw new ConfigError(`${where}: expected one of ${spec.choices!.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw;
    case 'backend':
      if (typeof raw !== 'string' || !(PROVER_BACKENDS as readonly string[]).includes(raw)) {
        throw new ConfigError(`${where}: expected one of ${PROVER_BACKENDS.join(', ')}, got ${JSON.stringify(raw)}`);
      }
      return raw as ProverBackendChoice;
  }
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

export interface ParsedCommandLine {
  command: string | undefined;
  help: boolean;
  version: boolean;
  configFile: string | undefined;
  flags: Record<string, unknown>;
}

export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    config: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  };
  for (const o of OPTIONS) options[flagName(o.key)] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new ConfigError((e as Error).message.split('\n')[0] ?? 'invalid command line');
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new ConfigError(`unexpected argument ${JSON.stringify(positionals[1])}`);
  const flags: Record<string, unknown> = {};
  for (const o of OPTIONS) {
    const v = values[flagName(o.key)];
    if (v !== undefined) flags[o.key] = v;
  }
  return {
    command: positionals[0],
    help: values.help === true,
    version: values.version === true,
    configFile: typeof values.config === 'string' ? values.config : undefined,
    flags,
  };
}

/** Resolves the configuration from the four layers; throws ConfigError naming the bad option and its source. */
export function resolveConfig(
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  configFile: string | undefined = env.CONFIG,
): Config {
  const cfg = defaultConfig() as unknown as Record<string, unknown>;
  const byName = new Map<string, OptionSpec>();
  for (const o of OPTIONS) {
    byName.set(o.key, o);
    byName.set(flagName(o.key), o);
  }
  if (configFile) {
    for (const [name, raw] of Object.entries(readConfigFile(configFile))) {
      const spec = byName.get(name);
      if (!spec) throw new ConfigError(`config file ${configFile}: unknown option ${JSON.stringify(name)}`);
      cfg[spec.key] = coerce(spec, raw, `config file ${configFile}, key ${JSON.stringify(name)}`);
    }
  }
  for (const o of OPTIONS) {
    const raw = env[envName(o.key)];
    if (raw !== undefined && raw !== '') cfg[o.key] = coerce(o, raw, `environment variable ${envName(o.key)}`);
  }
  for (const o of OPTIONS) {
    if (flags[o.key] !== undefined) cfg[o.key] = coerce(o, flags[o.key], `flag --${flagName(o.key)}`);
  }
  const config = cfg as unknown as Config;
  config.dataDir = resolve(config.dataDir);
  if (config.maxBatchSize < 1) throw new ConfigError('option maxBatchSize must be at least 1');
  if (config.lightPackage && config.lightSystemProgram)
    throw new ConfigError(
      '--light-package runs that package’s system program as shipped already: leave out --light-system-program',
    );
  if (config.requestTimeoutMs < 100) throw new ConfigError('option requestTimeoutMs must be at least 100');
  if (config.maxJsonDepth < 2) throw new ConfigError('option maxJsonDepth must be at least 2');
  if (config.maxStringLength < 128) throw new ConfigError('option maxStringLength must be at least 128');
  if (config.maxBodyBytes < 1024) throw new ConfigError('option maxBodyBytes must be at least 1024');
  if (config.rateLimit > 0 && config.rateLimitBurst < 1)
    throw new ConfigError('option rateLimitBurst must be at least 1');
  if (config.role === 'rpc' && !config.proverUrl && !config.queue)
    throw new ConfigError(
      'option role "rpc" needs proverUrl (--prover-url host:port of a prover) or queue (--queue redis://… of a prover fleet)',
    );
  checkQueue(config);
  checkCluster(config);
  if (config.proofTimeoutMs < 1) throw new ConfigError('option proofTimeoutMs must be at least 1');
  if (config.keyBuildWaitMs > 3_600_000)
    throw new ConfigError('option keyBuildWaitMs must be at most 3600000 (an hour)');
  checkProverExposure(config);
  return config;
}

/** --cluster-rpc: a follower has no embedded ledger, so nothing that configures one goes with it. */
function checkCluster(config: Config): void {
  if (!config.clusterRpc) {
    if (config.startSlot > 0) throw new ConfigError('--start-slot goes with --cluster-rpc (the cluster to follow)');
    if (config.clusterWs) throw new ConfigError('--cluster-ws goes with --cluster-rpc (the cluster to follow)');
    if (config.clusterCommitment !== 'finalized')
      throw new ConfigError('--cluster-commitment goes with --cluster-rpc (the cluster to follow)');
    if (config.indexDb) throw new ConfigError("--index-db goes with --cluster-rpc (it holds that cluster's index)");
    return;
  }
  if (config.indexDb) {
    let db: URL;
    try {
      db = new URL(config.indexDb);
    } catch {
      throw new ConfigError('--index-db: expected a postgres:// or postgresql:// URL, got one that does not parse');
    }
    if (db.protocol !== 'postgres:' && db.protocol !== 'postgresql:')
      throw new ConfigError(`--index-db: expected a postgres:// or postgresql:// URL, got a ${db.protocol} one`);
    if (config.indexDbTimeoutMs < 100 || config.indexDbTimeoutMs > 600_000)
      throw new ConfigError('--index-db-timeout-ms must be 100 to 600000');
  }
  if (config.clusterWs && !/^wss?:\/\//.test(config.clusterWs))
    throw new ConfigError(`--cluster-ws: expected a ws(s) URL, got ${JSON.stringify(config.clusterWs)}`);
  let url: URL;
  try {
    url = new URL(config.clusterRpc);
  } catch {
    throw new ConfigError(`--cluster-rpc: expected an http(s) URL, got ${JSON.stringify(config.clusterRpc)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`--cluster-rpc: expected an http(s) URL, got a ${url.protocol} one`);
  if (config.role === 'prover')
    throw new ConfigError('--cluster-rpc serves the index over JSON-RPC: it goes with --role all or rpc');
  const ledgerOnly = [
    ['forkUrl', config.forkUrl],
    ['lightPackage', config.lightPackage],
    ['lightSystemProgram', config.lightSystemProgram],
    ['accountDir', config.accountDir.length > 0],
    ['program', config.program.length > 0],
  ] as const;
  for (const [key, set] of ledgerOnly)
    if (set)
      throw new ConfigError(
        `--${flagName(key)} configures the embedded ledger, which a follower of --cluster-rpc does not run`,
      );
}

/**
 * The prover role's ports reachable from other hosts must authenticate their callers and keep the
 * token off the wire: refuses gRPC off loopback without --grpc-token and TLS (or --grpc-insecure),
 * Light's /prove without --prover-api-key, and a --prover-url elsewhere without --grpc-tls-ca.
 */
function checkProverExposure(config: Config): void {
  if (!!config.grpcTlsCert !== !!config.grpcTlsKey)
    throw new ConfigError('options grpcTlsCert and grpcTlsKey (--grpc-tls-cert, --grpc-tls-key) go together');
  for (const [key, value] of [
    ['grpcToken', config.grpcToken],
    ['proverToken', config.proverToken],
  ] as const)
    if (value && value.length < MIN_TOKEN_LENGTH)
      throw new ConfigError(`option ${key} (--${flagName(key)}) must be at least ${MIN_TOKEN_LENGTH} characters`);
  const insecure = config.grpcInsecure === 'on';
  const urls = proverUrls(config.proverUrl);
  if (urls.length > 1 && config.role !== 'rpc')
    throw new ConfigError(
      'several provers in --prover-url need --role rpc: the front builds the witnesses they prove from its ledger',
    );
  for (const url of urls) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(url))
      throw new ConfigError(`--prover-url: expected host:port (comma-separated for several provers), got "${url}"`);
    if (!config.grpcTlsCa && !insecure && !isLoopback(urlHost(url)))
      throw new ConfigError(
        `--prover-url ${url} is not on loopback: its token would cross the network in plaintext; set --grpc-tls-ca (the prover's CA), or --grpc-insecure on for a network you trust`,
      );
  }
  const host = config.proverHost || config.host;
  // A queue front serves Light's /prove (through the queue) on the prover's host and port.
  if (config.role === 'rpc' && config.queue && !isLoopback(host) && !config.proverApiKey)
    throw new ConfigError(
      `Light's /prove API of this queue front would listen on ${host} without authentication: set --prover-api-key (PROVER_API_KEY), or keep it on loopback with --prover-host 127.0.0.1`,
    );
  if (config.role === 'rpc') return;
  if (isLoopback(host)) return;
  const where = `${host} (${config.proverHost ? '--prover-host' : '--host'})`;
  if (!config.grpcToken)
    throw new ConfigError(
      `the prover's gRPC server would listen on ${where} without authentication: set --grpc-token (GRPC_TOKEN), or keep it on loopback with --prover-host 127.0.0.1`,
    );
  if (!config.proverApiKey)
    throw new ConfigError(
      `Light's /prove API would listen on ${where} without authentication: set --prover-api-key (PROVER_API_KEY), or keep it on loopback with --prover-host 127.0.0.1`,
    );
  if (!config.grpcTlsCert && !insecure)
    throw new ConfigError(
      `the prover's gRPC server would listen on ${where} without TLS, its token in plaintext: set --grpc-tls-cert and --grpc-tls-key, or --grpc-insecure on for a network you trust`,
    );
}

/** --queue: a Redis URL; a front proves through either the queue or --prover-url, not both. */
function checkQueue(config: Config): void {
  if (!config.queue) return;
  let url: URL;
  try {
    url = new URL(config.queue);
  } catch {
    throw new ConfigError(`--queue: expected redis://host:port[/db] or rediss://…, got "${config.queue}"`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ConfigError(`--queue: expected a redis:// or rediss:// URL, got "${url.protocol}"`);
  if (!/^\/?\d*$/.test(url.pathname))
    throw new ConfigError(`--queue: the database must be a number, got "${url.pathname}"`);
  if (config.role === 'rpc' && config.proverUrl)
    throw new ConfigError('--role rpc proves through --queue or --prover-url: set one of them');
  if (config.queueLeaseMs < 1000) throw new ConfigError('option queueLeaseMs must be at least 1000');
  if (config.queueAttempts < 1) throw new ConfigError('option queueAttempts must be at least 1');
  if (config.queueResultTtlS < 1) throw new ConfigError('option queueResultTtlS must be at least 1');
  if (config.queueMaxJobs < 1) throw new ConfigError('option queueMaxJobs must be at least 1');
}

/** The provers --prover-url names (a comma-separated list; empty entries ignored). */
export const proverUrls = (list: string): string[] =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The host of a `host:port` or `[v6]:port` address. */
function urlHost(address: string): string {
  const m = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (m) return m[1]!;
  const i = address.lastIndexOf(':');
  return i > 0 && address.indexOf(':') === i ? address.slice(0, i) : address;
}

/** What an option's value looks like, in --help. */
function placeholder(o: OptionSpec): string {
  switch (o.kind) {
    case 'port':
    case 'wsport':
      return '<port>';
    case 'count':
      return '<n>';
    case 'list':
      return '<a,b,…>';
    case 'indexes':
      return '<i,j,…>';
    case 'switch':
      return '<on|off>';
    case 'level':
      return `<${LOG_LEVELS.join('|')}>`;
    case 'role':
      return `<${ROLES.join('|')}>`;
    case 'backend':
      return `<${PROVER_BACKENDS.join('|')}>`;
    case 'choice':
      return `<${o.choices!.join('|')}>`;
    default:
      return '<value>';
  }
}

/** `text` in lines of at most `width` columns, each indented by `indent`. */
function wrap(text: string, indent: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(' '.repeat(indent) + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(' '.repeat(indent) + line);
  return lines;
}

/** Columns of --help: each option is its flag and environment variable, then what it does below. */
export const HELP_WIDTH = 100;

export function helpText(version: string): string {
  const entry = (flag: string, env: string, help: string) => [`  ${flag}  (${env})`, ...wrap(help, 6, HELP_WIDTH)];
  const rows = OPTIONS.flatMap((o) => {
    const def =
      o.default === null || o.default === '' || (Array.isArray(o.default) && o.default.length === 0)
        ? ''
        : ` (default: ${Array.isArray(o.default) ? o.default.join(',') : JSON.stringify(o.default)})`;
    return entry(`--${flagName(o.key)} ${placeholder(o)}`, envName(o.key), o.help + def);
  });
  return [
    `zkgate ${version}: self-hostable Solana RPC gateway (getValidityProof, simulateBundle, getAsset)`,
    '',
    'Usage:',
    '  zkgate start [options]     start the gateway (JSON-RPC adapter + gRPC prover service)',
    '  zkgate keys --help         list, build, import and export proving keys',
    '  zkgate demo --accounts N   ingest N demo accounts into a running gateway, print curl commands',
    "  zkgate forester status     queue fill, batches and proof times of a running gateway's forester",
    '  zkgate --help | --version',
    '',
    'Options: the flag, its environment variable in brackets, then what it sets.',
    'Precedence: defaults < --config FILE < environment < flags.',
    '',
    ...entry('--config <file>', 'CONFIG', 'JSON file of options (camelCase or kebab-case keys)'),
    ...rows,
    '',
  ].join('\n');
}
