// The gRPC client of the prover role: what the JSON-RPC adapter (and `zkgate demo`) use, whether
// the prover runs in the same process or elsewhere. Failures come back as the typed errors the
// prover raised (their kind travels in a trailer), so the adapter maps them like local ones.
import * as grpc from '@grpc/grpc-js';
import { AppError } from '../errors.js';
import { clientConstructor } from '../grpc/protos.js';
import { callMetadata, type ChannelSecurity } from '../grpc/security.js';
import type { CompressedProof, ProofPoints } from '../zk/proof-format.js';
import type { SnarkjsVerificationKey } from '../zk/verify.js';
import { bytesToBigInt } from '../zk/field.js';
import { encodeBase58 } from '../zk/base58.js';
import type { FrontBuildRights } from './build-policy.js';
import { GRPC_STATUS, KIND_TRAILER } from './grpc-status.js';
import {
  BUILD_METADATA,
  CALLER_METADATA,
  PROVER_PROTO,
  PROVER_SERVICE,
  STATE_SYNC_PROTO,
  STATE_SYNC_SERVICE,
} from './grpc-services.js';
import type { AccountEntry, AddressEntry, ApiVersion, TreeTypeNumber } from './types.js';
import {
  accountFromMsg,
  addressFromMsg,
  bytes32,
  compressedFromMsg,
  pointsFromRawMsg,
  pubkeyBytes,
  TREE_TYPE_NAMES,
  treeTypeNumber,
  type GetValidityProofResponseMsg,
  type GetVerifyingKeyResponseMsg,
  type ProveResponseMsg,
  type TreeStateMsg,
} from './wire.js';

/** An error raised by the prover role, rebuilt on the client side with its kind. */
export class RemoteProverError extends AppError {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ClientValidityProof {
  compressedProof?: CompressedProof;
  accounts: AccountEntry[];
  addresses: AddressEntry[];
  slot: bigint;
  circuit: string;
  publicInputs: bigint[];
  /** SHA-256 of the proving key used; empty when nothing was proved. */
  keySha256: string;
}

export interface TreeStateView {
  pubkey: string;
  treeType: TreeTypeNumber;
  height: number;
  rootHistoryCapacity: number;
  root: bigint;
  rootSeq: bigint;
  rootIndex: number;
  nextIndex: number;
  slot: bigint;
}

export interface CircuitView {
  name: string;
  status: string;
  keyKind: string;
  ready: boolean;
}

function fromGrpcError(err: grpc.ServiceError, address: string): AppError {
  const kind = err.metadata?.get(KIND_TRAILER)[0];
  if (typeof kind === 'string' && Object.hasOwn(GRPC_STATUS, kind)) return new RemoteProverError(kind, err.details);
  if (err.code === grpc.status.DEADLINE_EXCEEDED)
    return new RemoteProverError('prover_timeout', 'Proof timed out: the prover did not answer before the deadline');
  if (err.code === grpc.status.UNAUTHENTICATED)
    return new RemoteProverError(
      'prover_unavailable',
      `Prover at ${address} refused this client's token (${err.details}): check --prover-token against its --grpc-token`,
    );
  if (err.code === grpc.status.UNAVAILABLE)
    return new RemoteProverError('prover_unavailable', `Prover at ${address} is unavailable: ${err.details}`);
  return new RemoteProverError('prover_internal', `Prover at ${address} failed: ${err.details || err.message}`);
}

type Unary = (
  req: object,
  meta: grpc.Metadata,
  opts: grpc.CallOptions,
  cb: (e: grpc.ServiceError | null, r: unknown) => void,
) => void;

export class ProverClient {
  private readonly prover: grpc.Client & Record<string, Unary>;
  private readonly sync: grpc.Client & Record<string, Unary>;

  private readonly token: string | undefined;
  private readonly rights: FrontBuildRights | undefined;

  constructor(
    readonly address: string,
    /** Deadline of proving calls, ms: the server's own timeout plus transport slack. */
    private readonly timeoutMs = 11_000,
    /** TLS and the token to send; default: plaintext, no token. */
    security?: ChannelSecurity,
    /**
     * What the requests this client makes may build (build-policy.ts: the front's own policy, one
     * for every caller or one each for its callers and its admin keys); none sent, the prover
     * builds nothing for them.
     */
    buildRight?: string | FrontBuildRights,
  ) {
    this.rights = typeof buildRight === 'string' ? { anyone: buildRight, admin: buildRight } : buildRight;
    const creds = security?.credentials ?? grpc.credentials.createInsecure();
    const opts = { 'grpc.max_receive_message_length': 16 * 1024 * 1024, ...security?.options };
    this.token = security?.token;
    const Prover = clientConstructor(PROVER_PROTO, PROVER_SERVICE);
    const Sync = clientConstructor(STATE_SYNC_PROTO, STATE_SYNC_SERVICE);
    this.prover = new Prover(address, creds, opts) as grpc.Client & Record<string, Unary>;
    const channelOverride = this.prover.getChannel();
    this.sync = new Sync(address, creds, { ...opts, channelOverride }) as grpc.Client & Record<string, Unary>;
  }

  private call<T>(
    client: Record<string, Unary>,
    method: string,
    req: object,
    timeoutMs: number,
    caller?: string,
    admin = false,
  ): Promise<T> {
    const meta = callMetadata(this.token);
    if (caller) meta.set(CALLER_METADATA, caller);
    const right = admin ? this.rights?.admin : this.rights?.anyone;
    if (right) meta.set(BUILD_METADATA, right);
    return new Promise<T>((resolve, reject) => {
      client[method]!.call(client, req, meta, { deadline: Date.now() + timeoutMs }, (err, res) =>
        err ? reject(fromGrpcError(err, this.address)) : resolve(res as T),
      );
    });
  }

  async getValidityProof(req: {
    hashes: bigint[];
    addresses: { address: bigint; tree: string }[];
    api: ApiVersion;
    /** Whom the proof is for (an API key id): the prover holds each caller to a share of its queue. */
    caller?: string;
    /** The caller holds an admin key: the front's admin build right goes with the call. */
    admin?: boolean;
  }): Promise<ClientValidityProof> {
    const res = await this.call<GetValidityProofResponseMsg>(
      this.prover,
      'GetValidityProof',
      {
        hashes: req.hashes.map(bytes32),
        newAddresses: req.addresses.map((a) => ({ address: bytes32(a.address), tree: pubkeyBytes(a.tree) })),
        apiVersion: req.api === 2 ? 'API_VERSION_V2' : 'API_VERSION_V1',
      },
      this.timeoutMs,
      req.caller,
      req.admin,
    );
    return {
      ...(res.compressedProof ? { compressedProof: compressedFromMsg(res.compressedProof) } : {}),
      accounts: res.accounts.map(accountFromMsg),
      addresses: res.addresses.map(addressFromMsg),
      slot: BigInt(res.slot),
      circuit: res.circuit,
      publicInputs: res.publicInputs.map(bytesToBigInt),
      keySha256: res.keySha256,
    };
  }

  /** Light-style explicit proving; the request is the proto message (camelCase fields). */
  async prove(
    req: object,
    caller?: string,
    admin?: boolean,
  ): Promise<{
    compressed: CompressedProof;
    points: ProofPoints;
    circuit: string;
    publicInputs: bigint[];
    keySha256: string;
  }> {
    const res = await this.call<ProveResponseMsg>(this.prover, 'Prove', req, this.timeoutMs, caller, admin);
    return {
      compressed: compressedFromMsg(res.compressedProof),
      points: pointsFromRawMsg(res.rawProof),
      circuit: res.circuit,
      publicInputs: res.publicInputs.map(bytesToBigInt),
      keySha256: res.keySha256,
    };
  }

  /** The verification key of the prover's key for a shape. */
  async verifyingKey(circuit: string): Promise<{ keySha256: string; vk: SnarkjsVerificationKey }> {
    const res = await this.call<GetVerifyingKeyResponseMsg>(
      this.prover,
      'GetVerifyingKey',
      { circuit },
      this.timeoutMs,
    );
    return { keySha256: res.keySha256, vk: JSON.parse(res.verificationKeyJson) as SnarkjsVerificationKey };
  }

  async listCircuits(): Promise<{ circuits: CircuitView[]; backend: string }> {
    return this.call(this.prover, 'ListCircuits', {}, 10_000);
  }

  private static tree(m: TreeStateMsg): TreeStateView {
    return {
      pubkey: encodeBase58(m.pubkey),
      treeType: treeTypeNumber(m.treeType) ?? 1,
      height: m.height,
      rootHistoryCapacity: m.rootHistoryCapacity,
      root: bytesToBigInt(m.root),
      rootSeq: BigInt(m.rootSeq),
      rootIndex: Number(m.rootIndex),
      nextIndex: Number(m.nextIndex),
      slot: BigInt(m.slot),
    };
  }

  async registerTree(t: {
    pubkey: string;
    treeType: TreeTypeNumber;
    height?: number;
    rootHistoryCapacity?: number;
    queue?: string;
  }): Promise<TreeStateView> {
    const res = await this.call<TreeStateMsg>(
      this.sync,
      'RegisterTree',
      {
        pubkey: pubkeyBytes(t.pubkey),
        treeType: TREE_TYPE_NAMES[t.treeType],
        height: t.height ?? 0,
        rootHistoryCapacity: t.rootHistoryCapacity ?? 0,
        queue: t.queue ? pubkeyBytes(t.queue) : Buffer.alloc(0),
      },
      30_000,
    );
    return ProverClient.tree(res);
  }

  async appendLeaves(
    tree: string,
    leaves: bigint[],
    slot = 0n,
  ): Promise<{ tree: TreeStateView; firstLeafIndex: number }> {
    const res = await this.call<{ tree: TreeStateMsg; firstLeafIndex: string }>(
      this.sync,
      'AppendLeaves',
      { tree: pubkeyBytes(tree), leaves: leaves.map(bytes32), slot: slot.toString() },
      60_000,
    );
    return { tree: ProverClient.tree(res.tree), firstLeafIndex: Number(res.firstLeafIndex) };
  }

  async nullifyLeaves(
    tree: string,
    leaves: { hash?: bigint; leafIndex?: number; txHash?: bigint }[],
    slot = 0n,
  ): Promise<TreeStateView> {
    const res = await this.call<TreeStateMsg>(
      this.sync,
      'NullifyLeaves',
      {
        tree: pubkeyBytes(tree),
        leaves: leaves.map((l) => ({
          hash: l.hash !== undefined ? bytes32(l.hash) : Buffer.alloc(0),
          leafIndex: String(l.leafIndex ?? 0),
          txHash: l.txHash !== undefined ? bytes32(l.txHash) : Buffer.alloc(0),
        })),
        slot: slot.toString(),
      },
      60_000,
    );
    return ProverClient.tree(res);
  }

  async insertAddresses(tree: string, addresses: bigint[], slot = 0n): Promise<TreeStateView> {
    const res = await this.call<TreeStateMsg>(
      this.sync,
      'InsertAddresses',
      { tree: pubkeyBytes(tree), addresses: addresses.map(bytes32), slot: slot.toString() },
      60_000,
    );
    return ProverClient.tree(res);
  }

  async getTree(tree: string): Promise<TreeStateView> {
    return ProverClient.tree(await this.call<TreeStateMsg>(this.sync, 'GetTree', { tree: pubkeyBytes(tree) }, 10_000));
  }

  /**
   * Connects the channel and makes one call, so that the first request does not pay for the
   * connection and for the first run of the call path (measured: about 30 ms of a first proof's
   * 180 after a restart). False, never a throw, when the prover is not reached in time: calls then
   * connect as they come, as they would without this.
   */
  async warm(timeoutMs = 5000): Promise<boolean> {
    const connected = await new Promise<boolean>((resolve) =>
      this.prover.waitForReady(Date.now() + timeoutMs, (err) => resolve(!err)),
    );
    if (!connected) return false;
    return this.listCircuits().then(
      () => true,
      () => false,
    );
  }

  close(): void {
    this.sync.close();
    this.prover.close();
  }
}
