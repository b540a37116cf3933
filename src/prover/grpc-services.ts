// The Prover and StateSync gRPC services: proto messages in, domain calls, proto messages out.
// Deadlines are honoured (the sooner of the caller's and the server's timeout) and a cancelled
// call leaves the proving queue.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../obs/log.js';
import { StateError, type TreeInfo, type TreeStore } from '../state/index.js';
import { FR } from '../zk/field.js';
import type { CircuitFamily } from '../zk/shapes.js';
import { decodeBuildRight } from './build-policy.js';
import { ProverError } from './errors.js';
import { toGrpcError } from './grpc-status.js';
import type { RunOptions } from './pool.js';
import type { ProverService } from './service.js';
import { treeType } from './types.js';
import {
  accountToMsg,
  addressToMsg,
  bytes32,
  compressedToMsg,
  proofPublicInputs,
  pubkey,
  pubkeyBytes,
  rawToMsg,
  treeTypeNumber,
  TREE_TYPE_NAMES,
  value32,
  type AppendLeavesRequestMsg,
  type Bytes,
  type GetTreeRequestMsg,
  type GetValidityProofRequestMsg,
  type InsertAddressesRequestMsg,
  type NullifyLeavesRequestMsg,
  type ProveRequestMsg,
  type RegisterTreeRequestMsg,
} from './wire.js';

/** gRPC metadata naming the client a proof is for (the JSON-RPC side's API key id). */
export const CALLER_METADATA = 'zkgate-caller';
/** The build right of the request a call carries (build-policy.ts); a call without one may build nothing. */
export const BUILD_METADATA = 'zkgate-build';

export const PROVER_PROTO = 'zkgate/prover/v1/prover.proto';
export const PROVER_SERVICE = 'zkgate.prover.v1.Prover';
export const STATE_SYNC_PROTO = 'zkgate/prover/v1/state_sync.proto';
export const STATE_SYNC_SERVICE = 'zkgate.prover.v1.StateSync';

type Call<Req> = grpc.ServerUnaryCall<Req, unknown>;

function unary<Req>(log: Logger, method: string, fn: (req: Req, call: Call<Req>) => Promise<unknown> | unknown) {
  return (call: Call<Req>, callback: grpc.sendUnaryData<unknown>) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => callback(null, res as object),
        (err: unknown) => {
          const e = toGrpcError(err);
          if (e.unexpected) log.error('grpc call failed', { method, error: String((err as Error)?.stack ?? err) });
          callback(e as grpc.ServiceError);
        },
      );
  };
}

/**
 * The run options of a call: its deadline capped by the server's timeout, aborted when cancelled;
 * a key being built is waited for up to `keyWaitMs`, within the call's own deadline.
 */
function runOptions(call: Call<unknown>, timeoutMs: number, keyWaitMs: number): RunOptions {
  const own = Date.now() + timeoutMs;
  const d = call.getDeadline();
  const theirs = d instanceof Date ? d.getTime() : Number.isFinite(d) ? Number(d) : Infinity;
  const ac = new AbortController();
  call.on('cancelled', () => ac.abort());
  const right = call.metadata.get(BUILD_METADATA)[0];
  const buildable = decodeBuildRight(typeof right === 'string' ? right : undefined);
  return {
    deadline: Math.min(own, theirs),
    signal: ac.signal,
    caller: callerOf(call),
    mayBuild: (shape) => buildable.has(shape.name),
    ...(keyWaitMs > 0 ? { keyWait: { ms: keyWaitMs, until: theirs } } : {}),
  };
}

/**
 * Who a call is for, for the queue's per-caller share: the API key id zkgate's own client sends
 * (`zkgate-caller`), else the peer's address.
 */
function callerOf(call: Call<unknown>): string {
  const named = call.metadata.get(CALLER_METADATA)[0];
  if (typeof named === 'string' && named.length > 0) return named.slice(0, 64);
  return call.getPeer().replace(/:\d+$/, '');
}

const num = (s: string | number | undefined, field: string, max = Number.MAX_SAFE_INTEGER): number => {
  const n = Number(s ?? 0);
  if (!Number.isSafeInteger(n) || n < 0 || n > max)
    throw new ProverError('invalid_argument', `${field} must be an integer 0 to ${max}, got ${s}`);
  return n;
};

const FAMILIES: Record<string, CircuitFamily> = {
  CIRCUIT_TYPE_INCLUSION: 'inclusion',
  CIRCUIT_TYPE_NON_INCLUSION: 'non-inclusion',
  CIRCUIT_TYPE_COMBINED: 'combined',
};

export function proverImplementation(service: ProverService, timeoutMs: number, log: Logger, keyWaitMs = 0) {
  return {
    GetValidityProof: unary<GetValidityProofRequestMsg>(log, 'GetValidityProof', async (req, call) => {
      const hashes = req.hashes.map((h, i) => value32(h, `hashes[${i}]`));
      const addresses = req.newAddresses.map((a, i) => ({
        address: value32(a.address, `new_addresses[${i}].address`),
        tree: pubkey(a.tree, `new_addresses[${i}].tree`),
      }));
      const api = req.apiVersion === 'API_VERSION_V2' ? 2 : 1;
      const r = await service.getValidityProof({ hashes, addresses, api }, runOptions(call, timeoutMs, keyWaitMs));
      return {
        compressedProof: r.proof ? compressedToMsg(r.proof.compressed) : null,
        accounts: r.accounts.map(accountToMsg),
        addresses: r.addresses.map(addressToMsg),
        slot: r.slot.toString(),
        circuit: r.circuit,
        publicInputs: proofPublicInputs(r.proof),
        keySha256: r.proof?.keySha256 ?? '',
      };
    }),
    Prove: unary<ProveRequestMsg>(log, 'Prove', async (req, call) => {
      const circuitType = Object.hasOwn(FAMILIES, req.circuitType) ? FAMILIES[req.circuitType] : undefined;
      if (!circuitType) throw new ProverError('invalid_argument', `circuit_type is required`);
      const accounts = req.inputCompressedAccounts.map((a, i) => ({
        root: value32(a.root, `input_compressed_accounts[${i}].root`),
        leaf: value32(a.leaf, `input_compressed_accounts[${i}].leaf`),
        pathIndex: num(a.pathIndex, `input_compressed_accounts[${i}].path_index`),
        pathElements: a.pathElements.map((e, k) => value32(e, `input_compressed_accounts[${i}].path_elements[${k}]`)),
      }));
      const addresses = req.newAddresses.map((a, i) => ({
        root: value32(a.root, `new_addresses[${i}].root`),
        value: value32(a.value, `new_addresses[${i}].value`),
        lowValue: value32(a.leafLowerRangeValue, `new_addresses[${i}].leaf_lower_range_value`),
        nextValue: value32(a.leafHigherRangeValue, `new_addresses[${i}].leaf_higher_range_value`),
        nextIndex: num(a.nextIndex, `new_addresses[${i}].next_index`),
        pathIndex: num(a.pathIndex, `new_addresses[${i}].path_index`),
        pathElements: a.pathElements.map((e, k) => value32(e, `new_addresses[${i}].path_elements[${k}]`)),
      }));
      const pih = req.publicInputHash;
      const r = await service.prove(
        {
          circuitType,
          stateTreeHeight: req.stateTreeHeight,
          addressTreeHeight: req.addressTreeHeight,
          ...(pih.length > 0 ? { publicInputHash: value32(pih, 'public_input_hash') } : {}),
          accounts,
          addresses,
        },
        runOptions(call, timeoutMs, keyWaitMs),
      );
      return {
        compressedProof: compressedToMsg(r.proof.compressed),
        rawProof: rawToMsg(r.proof.points),
        circuit: r.circuit,
        publicInputs: proofPublicInputs(r.proof),
        keySha256: r.proof.keySha256,
      };
    }),
    GetVerifyingKey: unary<{ circuit: string }>(log, 'GetVerifyingKey', async (req, call) => {
      const k = await service.verifyingKey(req.circuit, runOptions(call, timeoutMs, keyWaitMs));
      return { circuit: req.circuit, keySha256: k.keySha256, verificationKeyJson: JSON.stringify(k.vk) };
    }),
    ListCircuits: unary(log, 'ListCircuits', () => ({
      circuits: service.listCircuits().map((c) => ({
        name: c.name,
        status: c.status,
        keyKind: c.keyKind,
        ready: c.status === 'ready',
      })),
      backend: service.backendName,
    })),
  };
}

export function treeStateMsg(t: TreeInfo) {
  return {
    pubkey: pubkeyBytes(t.pubkey),
    treeType: TREE_TYPE_NAMES[treeType(t)],
    height: t.height,
    rootHistoryCapacity: t.rootHistoryCapacity,
    queue: t.queue ? pubkeyBytes(t.queue) : Buffer.alloc(0),
    root: bytes32(t.root),
    rootSeq: t.rootSeq.toString(),
    rootIndex: String(t.rootSeq % BigInt(t.rootHistoryCapacity)),
    nextIndex: String(t.nextIndex),
    slot: t.slot.toString(),
  };
}

function field(b: Bytes, name: string): bigint {
  const v = value32(b, name);
  if (v >= FR) throw new ProverError('invalid_argument', `${name} is not a BN254 field element (>= r)`);
  return v;
}

export function stateSyncImplementation(store: TreeStore, log: Logger) {
  /** Trees the embedded ledger feeds follow its transactions only: an outside write would fork them from the chain. */
  const writable = (tree: string) => {
    if (store.info(tree).ledger)
      throw new StateError(
        'tree_read_only',
        `tree ${tree} is fed by the embedded ledger's transactions; StateSync writes only to trees it registered`,
      );
    return tree;
  };
  const slotOf = (s: string): { slot?: bigint } => {
    const v = BigInt(s ?? '0');
    return v === 0n ? {} : { slot: v };
  };
  return {
    RegisterTree: unary<RegisterTreeRequestMsg>(log, 'RegisterTree', (req) =>
      store.exclusive(() => {
        const t = treeTypeNumber(req.treeType);
        if (!t) throw new ProverError('invalid_argument', 'tree_type is required');
        const queue = req.queue.length > 0 ? pubkey(req.queue, 'queue') : undefined;
        return treeStateMsg(
          store.registerTree({
            pubkey: pubkey(req.pubkey, 'pubkey'),
            kind: t === 1 || t === 3 ? 'state' : 'address',
            version: t <= 2 ? 1 : 2,
            ...(req.height ? { height: req.height } : {}),
            ...(req.rootHistoryCapacity ? { rootHistoryCapacity: req.rootHistoryCapacity } : {}),
            ...(queue ? { queue } : {}),
          }),
        );
      }),
    ),
    // Writes queue behind one another (a large one is applied in chunks over many event-loop
    // turns); their input is decoded and checked before they queue.
    AppendLeaves: unary<AppendLeavesRequestMsg>(log, 'AppendLeaves', (req) => {
      const tree = pubkey(req.tree, 'tree');
      const leaves = req.leaves.map((l, i) => field(l, `leaves[${i}]`));
      return store.exclusive(async () => {
        const r = await store.write({ op: 'append', tree: writable(tree), leaves, ...slotOf(req.slot) });
        return { tree: treeStateMsg(store.info(tree)), firstLeafIndex: String(r.firstIndex) };
      });
    }),
    NullifyLeaves: unary<NullifyLeavesRequestMsg>(log, 'NullifyLeaves', (req) =>
      store.exclusive(async () => {
        const tree = writable(pubkey(req.tree, 'tree'));
        const st = store.stateTree(tree);
        const entries = req.leaves.map((n, i) => {
          let leafIndex = num(n.leafIndex, `leaves[${i}].leaf_index`);
          if (n.hash.length > 0) {
            const h = value32(n.hash, `leaves[${i}].hash`);
            const found = st.findLeaf(h);
            if (found === undefined)
              throw new StateError('leaf_not_found', `leaves[${i}].hash is not a live leaf of state tree ${tree}`);
            leafIndex = found;
          }
          return n.txHash.length > 0 ? { leafIndex, txHash: field(n.txHash, `leaves[${i}].tx_hash`) } : { leafIndex };
        });
        await store.write({ op: 'nullify', tree, entries, ...slotOf(req.slot) });
        return treeStateMsg(store.info(tree));
      }),
    ),
    InsertAddresses: unary<InsertAddressesRequestMsg>(log, 'InsertAddresses', (req) => {
      const tree = pubkey(req.tree, 'tree');
      const addresses = req.addresses.map((a, i) => value32(a, `addresses[${i}]`));
      return store.exclusive(async () => {
        await store.write({ op: 'insert', tree: writable(tree), addresses, ...slotOf(req.slot) });
        return treeStateMsg(store.info(tree));
      });
    }),
    // After the writes queued before it: never a tree halfway through a large write.
    GetTree: unary<GetTreeRequestMsg>(log, 'GetTree', async (req) => {
      const tree = pubkey(req.tree, 'tree');
      await store.settled();
      return treeStateMsg(store.info(tree));
    }),
  };
}
