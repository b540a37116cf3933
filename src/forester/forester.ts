// zkgate's forester (compression-e2e.md §6): it keeps Light's V2 queues on the embedded ledger
// moving. After every slot and transaction it reads the tree and queue accounts; when a zkp batch
// is full it builds the batch's circuit inputs from zkgate's own trees (the queue accounts zero
// spent values, so the leaves come from ingest), checks them against the hash chain the program
// keeps, proves them on the prover pool at background priority and sends the registry's batch
// instruction, signed with its registered key. Before sending it reads the accounts again: an
// update built on a root that has moved since is dropped and rebuilt. A failed transaction is
// logged with its reason and retried from fresh state after a backoff. Nothing is kept between
// runs: the queues are on chain, so a restart picks up where the chain is.
import type { Ledger, StoredAccount } from '../ledger/index.js';
import {
  BATCH_STATE,
  parseBatchOutputQueue,
  parseBatchTree,
  parseTransaction,
  parseTreeAccount,
  queuedEntries,
  readyZkpBatch,
  type BatchQueue,
} from '../ledger/index.js';
import { signTransaction, type Instruction, type Keypair } from '../ledger/tx-build.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { TreeInfo, TreeStore } from '../state/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { bigIntToBytes32 } from '../zk/field.js';
import type { CircuitInputs } from '../zk/inputs.js';
import type { CompressedProof } from '../zk/proof-format.js';
import { batchShape, type BatchFamily } from '../zk/shapes.js';
import { addressAppendInputs, appendInputs, updateInputs, type BatchInputs } from './batch-inputs.js';
import {
  batchAddressAppendIx,
  batchAppendIx,
  batchNullifyIx,
  finalizeRegistrationIx,
  registerEpochIx,
  registryPdas,
  v1AddressUpdateIx,
  v1NullifyIx,
} from './registry.js';

/** Which queue a batch drains. */
export type BatchKind = 'append' | 'nullify' | 'address';
const FAMILY: Record<BatchKind, BatchFamily> = {
  append: 'batch-append',
  nullify: 'batch-update',
  address: 'batch-address-append',
};

export interface ForesterOptions {
  ledger: Ledger;
  trees: TreeStore;
  /** Proves a batch circuit (background priority); its key must verify on the ledger once it returns. */
  prove(circuit: string, inputs: CircuitInputs): Promise<CompressedProof>;
  keypair: Keypair;
  log: Logger;
  metrics?: MetricsRegistry;
}

export interface QueueStatus {
  tree: string;
  queue: BatchKind;
  /** Entries waiting (not yet in the tree) and what the queue holds at most. */
  queued: number;
  capacity: number;
  /** Full zkp batches waiting for the forester. */
  readyBatches: number;
}

export interface ForesterStatus {
  authority: string;
  /** The epoch the forester works in (finalized registration), if any. */
  activeEpoch: string | null;
  queues: QueueStatus[];
  batches: { proved: number; sent: number; failed: number; stale: number };
  /** Batch proof times by circuit (milliseconds). */
  proofs: { circuit: string; count: number; lastMs: number; meanMs: number }[];
  /** The last failure, with its reason. */
  lastError: string | null;
}

const COMPUTE_BUDGET = decodeBase58('ComputeBudget111111111111111111111111111111');
const SYSTEM_PROGRAM = new Uint8Array(32);
/** Groth16 verification plus the tree update: Light's forester asks for 1M. */
const COMPUTE_UNITS = 1_000_000;
const MAX_BACKOFF_MS = 5_000;

/** Where a protocol config's epoch schedule sits (ProtocolConfigPda: 8 disc, 32 authority, 1 bump). */
const CONFIG = { genesisSlot: 41, registration: 65, active: 73 };
/** ForesterEpochPda: total_epoch_weight Option tag (finalized when Some). */
const FINALIZED_AT = 89;
/** network_fee in the rollover metadata: output queue / tree account. */
const NETWORK_FEE = { queue: 128, tree: 136 };
/** V1 concurrent tree account: network fee, header, the vectors' metadata and where their data starts. */
const V1_TREE = {
  networkFee: 128,
  height: 224,
  canopyDepth: 232,
  changelogCapacity: 304,
  changelogLast: 328,
  rootsCapacity: 336,
  data: 384,
};
/**
 * V1 queue account: its hash set's 48-byte cells start at 256 (after metadata, capacity, threshold
 * and a spare word). The value sits 16 bytes into a cell in address queues and 8 in nullifier
 * queues (observed on the ledger); either way the cell index is what the program takes.
 */
const V1_QUEUE = { buckets: 256, bucket: 48, valueAt: [8, 16] };

interface Ready {
  info: TreeInfo;
  kind: BatchKind;
  root: bigint;
  nextIndex: number;
  zkpBatchSize: number;
  firstPosition: number;
  hashChain: bigint;
}

export class Forester {
  private stopped = false;
  private running: Promise<void> | undefined;
  private busy = false;
  private registrationPending = false;
  private again = false;
  private unsubscribe: (() => void) | undefined;
  private readonly backoff = new Map<string, { until: number; ms: number }>();
  private readonly stats = { proved: 0, sent: 0, failed: 0, stale: 0 };
  private lastError: string | null = null;
  private readonly proofMs = new Map<string, { count: number; totalMs: number; lastMs: number }>();
  private activeEpoch: bigint | null = null;
  /** Callers waiting for the next update to land (sendTransaction waiting for queue room). */
  private readonly landedWaiters = new Set<(landed: boolean) => void>();
  private readonly authority: Uint8Array;
  private readonly metrics;

  constructor(private readonly o: ForesterOptions) {
    this.authority = o.keypair.publicKey;
    const m = o.metrics;
    this.metrics = m && {
      batches: m.counter('zkgate_forester_batches_total', 'Forester batches by queue and outcome', [
        'queue',
        'outcome',
      ]),
      seconds: m.histogram('zkgate_forester_proof_seconds', 'Time to prove one batch', ['circuit']),
    };
    if (m) {
      m.gauge('zkgate_forester_batches_pending', 'Full zkp batches waiting for the forester', [], () =>
        this.queues().reduce((n, q) => n + q.readyBatches, 0),
      );
      m.gauge('zkgate_forester_queue_fill_ratio', 'Fullest queue: entries waiting over its capacity', [], () =>
        Math.max(0, ...this.queues().map((q) => q.queued / q.capacity)),
      );
    }
  }

  start(): void {
    this.unsubscribe = this.o.ledger.onEvent((e) => {
      if (e.type === 'slot') this.registrationSoon();
      if (e.type === 'slot' || e.type === 'transaction') this.kick();
    });
    this.kick();
  }

  /**
   * Registration keeps up with the slots even while a batch is being proved (a proof can outlast
   * an epoch's registration phase): checked after each slot, outside the ledger's event dispatch.
   */
  private registrationSoon(): void {
    if (this.registrationPending || this.stopped) return;
    this.registrationPending = true;
    setImmediate(() => {
      this.registrationPending = false;
      if (!this.stopped) this.activeEpoch = this.ensureEpoch() ?? null;
    });
  }

  /** Stops after the batch in progress (its proof is abandoned: the queue keeps it for the next run). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const wake of [...this.landedWaiters]) wake(false);
    await this.running;
  }

  /** Resolves true when the forester's next update lands on the ledger, false after `ms` or at stop. */
  nextUpdate(ms: number): Promise<boolean> {
    if (this.stopped || ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const wake = (landed: boolean) => {
        clearTimeout(timer);
        this.landedWaiters.delete(wake);
        resolve(landed);
      };
      const timer = setTimeout(() => wake(false), ms);
      this.landedWaiters.add(wake);
    });
  }

  private landed(): void {
    this.stats.sent++;
    for (const wake of [...this.landedWaiters]) wake(true);
  }

  /** Runs a pass now (and another after it when asked again meanwhile). */
  kick(): void {
    if (this.stopped) return;
    // Set before the pass starts: a pass sends transactions, whose ledger events call kick()
    // synchronously, before `running` would be assigned.
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stopped);
      } catch (e) {
        this.fail('forester', `forester pass failed: ${String((e as Error)?.stack ?? e)}`);
      } finally {
        this.busy = false;
        this.running = undefined;
      }
    })();
  }

  /** Resolves when no pass is running (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  status(): ForesterStatus {
    return {
      authority: encodeBase58(this.authority),
      activeEpoch: this.activeEpoch === null ? null : this.activeEpoch.toString(),
      queues: this.queues(),
      batches: { ...this.stats },
      proofs: [...this.proofMs].map(([circuit, p]) => ({
        circuit,
        count: p.count,
        lastMs: Math.round(p.lastMs),
        meanMs: Math.round(p.totalMs / p.count),
      })),
      lastError: this.lastError,
    };
  }

  /** Fill levels of every V2 queue on the ledger. */
  queues(): QueueStatus[] {
    return queueStatuses(this.o.ledger, this.o.trees);
  }

  private account(key: Uint8Array | string): StoredAccount | undefined {
    return this.o.ledger.getAccount(typeof key === 'string' ? decodeBase58(key) : key);
  }

  private queueAccount(info: TreeInfo, kind: BatchKind): BatchQueue | undefined {
    return queueAccount(this.o.ledger, info, kind);
  }

  private async pass(): Promise<void> {
    const epoch = this.ensureEpoch();
    this.activeEpoch = epoch ?? null;
    if (epoch === undefined) return;
    // Fullest queue first; a queue whose batches are all full refuses inserts (clients wait on
    // it), so the pass ends after one of its batches and the next pass starts from it again.
    const v2 = this.o.trees
      .listTrees()
      .filter((info) => info.ledger && info.version === 2)
      .flatMap((info) => kindsOf(info).map((kind) => ({ info, kind, urgency: this.urgency(info, kind) })))
      .sort((a, b) => b.urgency - a.urgency);
    for (const { info, kind, urgency } of v2) {
      if (this.stopped) return;
      const key = `${info.pubkey}:${kind}`;
      const b = this.backoff.get(key);
      if (b && Date.now() < b.until) continue;
      // One zkp batch per queue per pass: each proof is a while, the other queues get their turn.
      const ready = this.ready(this.o.trees.info(info.pubkey), kind);
      if (!ready) continue;
      try {
        await this.drain(ready);
        this.backoff.delete(key);
        this.again = true;
        if (urgency > 1) break;
      } catch (e) {
        const ms = Math.min(MAX_BACKOFF_MS, (b?.ms ?? 250) * 2);
        this.backoff.set(key, { until: Date.now() + ms, ms });
        this.metrics?.batches.inc([kind, 'failed']);
        this.stats.failed++;
        this.fail(key, (e as Error).message);
      }
    }
    // V1 queues: one Merkle-proof instruction per entry (a spend to nullify, an address to insert).
    for (const info of this.o.trees.listTrees()) {
      if (!info.ledger || info.version !== 1 || this.stopped) continue;
      const key = `${info.pubkey}:v1`;
      if (this.backingOff(key)) continue;
      try {
        const fresh = this.o.trees.info(info.pubkey);
        if (info.kind === 'state') {
          const [entry] = this.o.trees.stateTree(info.pubkey).nullifierQueue(0, 1);
          if (!entry) continue;
          this.nullifyV1(fresh, entry.hash, entry.leafIndex, epoch);
        } else {
          const [entry] = this.o.trees.addressTree(info.pubkey).addressQueue(0, 1);
          if (!entry) continue;
          this.insertAddressV1(fresh, entry.address, epoch);
        }
        this.backoff.delete(key);
        this.again = true;
      } catch (e) {
        this.backOff(key);
        this.stats.failed++;
        this.metrics?.batches.inc([info.kind === 'state' ? 'v1-nullify' : 'v1-address', 'failed']);
        this.fail(key, (e as Error).message);
      }
    }
  }

  /** How urgently a queue needs draining: 2 when it refuses inserts (every batch full), else its fill. */
  private urgency(info: TreeInfo, kind: BatchKind): number {
    const q = this.queueAccount(info, kind);
    if (!q) return 0;
    if (q.batches.every((b) => b.state === BATCH_STATE.full)) return 2;
    return queuedEntries(q) / (q.batchSize * q.batches.length);
  }

  /** A V1 tree's account data (its root must be zkgate's) and its queue account. */
  private v1Accounts(info: TreeInfo): { d: Buffer; queueAccount: StoredAccount } {
    const treeAccount = this.account(info.pubkey);
    const queueAccount = this.account(info.queue);
    if (!treeAccount || !queueAccount) throw new Error(`${info.pubkey}: no tree or queue account on the ledger`);
    const d = Buffer.from(treeAccount.data);
    const chain = parseTreeAccount('', info.pubkey, d);
    if (!chain || chain.root !== info.root)
      throw new Error(`zkgate's ${info.pubkey} (root ${hex(info.root)}) differs from the tree account`);
    return { d, queueAccount };
  }

  /**
   * A V1 tree's queued spend nullified with a Merkle proof (one per transaction, as Light's
   * program takes them): the proof below the canopy against the tree's current root, the
   * changelog index naming that root, and the spend's bucket in the queue's hash set.
   */
  private nullifyV1(info: TreeInfo, hash: bigint, leafIndex: number, epoch: bigint): void {
    const { d, queueAccount } = this.v1Accounts(info);
    const canopy = Number(d.readBigUInt64LE(V1_TREE.canopyDepth));
    const p = this.o.trees.stateTree(info.pubkey).proofByIndex(leafIndex);
    if (p.leaf !== hash) throw new Error(`${info.pubkey}: leaf ${leafIndex} is not the queued account`);
    this.send(
      [
        ...this.topUp(info.pubkey, V1_TREE.networkFee, 1n),
        v1NullifyIx({
          authority: this.authority,
          epoch,
          tree: decodeBase58(info.pubkey),
          queue: decodeBase58(info.queue),
          changelogIndex: Number(d.readBigUInt64LE(V1_TREE.changelogLast)),
          queueIndex: queueBucket(queueAccount.data, hash, info.queue),
          leafIndex,
          proof: p.pathElements.slice(0, info.height - canopy).map(bigIntToBytes32),
        }),
      ],
      `V1 nullification of leaf ${leafIndex} of ${info.pubkey}`,
    );
    this.landed();
    this.metrics?.batches.inc(['v1-nullify', 'sent']);
  }

  /**
   * A V1 address tree's queued address inserted (one per transaction): its low element with the
   * path below the canopy against the tree's current root, the changelog indexes naming that root,
   * and the address's bucket in the queue's hash set. The queue pays the tree's network fee.
   */
  private insertAddressV1(info: TreeInfo, address: bigint, epoch: bigint): void {
    const { d, queueAccount } = this.v1Accounts(info);
    const u64 = (at: number) => Number(d.readBigUInt64LE(at));
    const height = u64(V1_TREE.height);
    const canopy = u64(V1_TREE.canopyDepth);
    // The indexed changelog follows the concurrent tree: filled subtrees, changelog, roots, canopy.
    const indexedChangelog =
      V1_TREE.data +
      32 * height +
      u64(V1_TREE.changelogCapacity) * (32 * (height + 1) + 8) +
      32 * u64(V1_TREE.rootsCapacity) +
      32 * (2 ** (canopy + 1) - 2);
    const p = this.o.trees.addressTree(info.pubkey).nonInclusionProof(address);
    const fee = d.readBigUInt64LE(V1_TREE.networkFee);
    const need = this.o.ledger.minimumBalanceForRentExemption(queueAccount.data.length) + fee - queueAccount.lamports;
    this.send(
      [
        ...(need > 0n ? [transferIx(this.authority, decodeBase58(info.queue), need)] : []),
        v1AddressUpdateIx({
          authority: this.authority,
          epoch,
          tree: decodeBase58(info.pubkey),
          queue: decodeBase58(info.queue),
          changelogIndex: u64(V1_TREE.changelogLast),
          indexedChangelogIndex: u64(indexedChangelog + 24),
          queueIndex: queueBucket(queueAccount.data, address, info.queue),
          low: {
            index: p.lowElement.index,
            value: bigIntToBytes32(p.lowElement.value),
            nextIndex: p.lowElement.nextIndex,
            nextValue: bigIntToBytes32(p.lowElement.nextValue),
          },
          proof: p.pathElements.slice(0, height - canopy).map(bigIntToBytes32),
        }),
      ],
      `V1 insertion of an address into ${info.pubkey}`,
    );
    this.landed();
    this.metrics?.batches.inc(['v1-address', 'sent']);
  }

  /** The next full zkp batch of a queue, with the tree figures the proof commits to. */
  private ready(info: TreeInfo, kind: BatchKind): Ready | undefined {
    const treeAccount = this.account(info.pubkey);
    const tree = treeAccount ? parseBatchTree(Buffer.from(treeAccount.data)) : undefined;
    const q = kind === 'append' ? this.queueAccount(info, kind) : tree?.queue;
    if (!tree || !q) return undefined;
    const r = readyZkpBatch(q);
    if (!r) return undefined;
    return {
      info,
      kind,
      root: tree.root,
      nextIndex: tree.nextIndex,
      zkpBatchSize: q.zkpBatchSize,
      firstPosition: r.firstPosition,
      hashChain: r.hashChain,
    };
  }

  /** Proves and sends one zkp batch. */
  private async drain(r: Ready): Promise<void> {
    const { info, kind } = r;
    if (info.root !== r.root || info.nextIndex !== r.nextIndex)
      throw new Error(
        `zkgate's ${info.pubkey} (root ${hex(info.root)}, next index ${info.nextIndex}) differs from the tree account (root ${hex(r.root)}, next index ${r.nextIndex})`,
      );
    const shape = batchShape(FAMILY[kind], r.zkpBatchSize);
    if (!shape) throw new Error(`${info.pubkey}: no ${FAMILY[kind]} circuit for zkp batches of ${r.zkpBatchSize}`);
    const inputs = this.inputs(r);
    if (inputs.hashChain !== r.hashChain)
      throw new Error(
        `${kind} batch of ${info.pubkey} from position ${r.firstPosition}: zkgate's entries hash to ${hex(inputs.hashChain)}, the queue account holds ${hex(r.hashChain)}`,
      );
    this.o.log.info('forester: proving a batch', { tree: info.pubkey, queue: kind, from: r.firstPosition });
    const started = performance.now();
    const proof = await this.o.prove(shape.name, inputs.inputs);
    const ms = performance.now() - started;
    this.metrics?.seconds.observe(ms / 1000, [shape.name]);
    const p = this.proofMs.get(shape.name) ?? { count: 0, totalMs: 0, lastMs: 0 };
    this.proofMs.set(shape.name, { count: p.count + 1, totalMs: p.totalMs + ms, lastMs: ms });
    this.stats.proved++;
    if (this.stopped) return;
    // The chain may have moved while proving (another forester, a restart's duplicate): never
    // send an update built on a root the tree no longer has.
    const now = this.ready(this.o.trees.info(info.pubkey), kind);
    if (!now || now.root !== inputs.oldRoot || now.firstPosition !== r.firstPosition || now.nextIndex !== r.nextIndex) {
      this.stats.stale++;
      this.metrics?.batches.inc([kind, 'stale']);
      this.o.log.info('forester: batch went stale while proving; rebuilding from fresh state', {
        tree: info.pubkey,
        queue: kind,
        provedFrom: { root: hex(inputs.oldRoot), position: r.firstPosition, nextIndex: r.nextIndex },
        now: now ? { root: hex(now.root), position: now.firstPosition, nextIndex: now.nextIndex } : null,
      });
      return;
    }
    // The epoch may have turned while proving: the update goes out under the forester's
    // registration for the epoch active now, or waits for it.
    const epochNow = this.ensureEpoch();
    if (epochNow === undefined) {
      this.stats.stale++;
      this.metrics?.batches.inc([kind, 'stale']);
      return;
    }
    const update = {
      authority: this.authority,
      epoch: epochNow,
      tree: decodeBase58(info.pubkey),
      newRoot: bigIntToBytes32(inputs.newRoot),
      proof,
    };
    const ixs: Instruction[] =
      kind === 'append'
        ? [
            ...this.topUp(info.queue, NETWORK_FEE.queue, 2n),
            batchAppendIx({ ...update, outputQueue: decodeBase58(info.queue) }),
          ]
        : kind === 'nullify'
          ? [batchNullifyIx(update)]
          : [...this.topUp(info.pubkey, NETWORK_FEE.tree, 1n), batchAddressAppendIx(update)];
    this.send(ixs, `${kind} batch of ${info.pubkey}`);
    this.landed();
    this.metrics?.batches.inc([kind, 'sent']);
    this.o.log.info('forester: batch in the tree', {
      tree: info.pubkey,
      queue: kind,
      from: r.firstPosition,
      size: r.zkpBatchSize,
      proveMs: Math.round(performance.now() - started),
    });
  }

  /**
   * The batch's circuit inputs. Output-queue positions are leaf indices (the batch starts at the
   * tree's next index); input and address queues are taken from the head of zkgate's queue (what
   * is not in the tree yet, in order; an address batch's start index in the account is a leaf
   * index, not a queue position). The hash chain check after this makes sure it is the same batch.
   */
  private inputs(r: Ready): BatchInputs {
    const { info, kind, zkpBatchSize: n } = r;
    const consecutive = (got: number[]) => {
      if (got.length !== n || got.some((p, i) => p !== got[0]! + i))
        throw new Error(`${info.pubkey}: zkgate's ${kind} queue holds ${got.length} of the ${n} entries of the batch`);
    };
    if (kind === 'address') {
      const t = this.o.trees.addressTree(info.pubkey);
      const entries = [...t.addressQueue(0, n)];
      consecutive(entries.map((e) => e.position));
      return addressAppendInputs(
        {
          height: info.height,
          node: (l, i) => t.node(l, i),
          lowElement: (v) => t.lowElement(v),
          element: (i) => t.element(i),
        },
        r.nextIndex,
        entries.map((e) => e.address),
      );
    }
    const t = this.o.trees.stateTree(info.pubkey);
    const nodes = { height: info.height, node: (l: number, i: number) => t.node(l, i) };
    if (kind === 'append') {
      const leaves: bigint[] = [];
      for (let p = r.firstPosition; p < r.firstPosition + n; p++) {
        const q = t.queuedOutput(p);
        if (!q) throw new Error(`${info.pubkey}: zkgate's output queue has no leaf ${p}`);
        leaves.push(q.hash);
      }
      return appendInputs(nodes, r.firstPosition, leaves);
    }
    const entries = [...t.nullifierQueue(0, n)];
    consecutive(entries.map((e) => e.position));
    return updateInputs(
      nodes,
      entries.map((e) => ({ leaf: e.hash, leafIndex: e.leafIndex, txHash: e.txHash! })),
    );
  }

  /** A transfer that keeps `account` rent-exempt after it pays `times` network fees back to the forester. */
  private topUp(account: string, feeAt: number, times: bigint): Instruction[] {
    const a = this.account(account);
    if (!a) return [];
    const fee = Buffer.from(a.data).readBigUInt64LE(feeAt);
    const need = this.o.ledger.minimumBalanceForRentExemption(a.data.length) + fee * times - a.lamports;
    return need > 0n ? [transferIx(this.authority, decodeBase58(account), need)] : [];
  }

  /** Registration for the epochs that need it now; the active epoch when the forester may work in it. */
  private ensureEpoch(): bigint | undefined {
    const cfg = this.account(registryPdas.protocolConfig);
    if (!cfg) return undefined;
    const d = Buffer.from(cfg.data);
    const genesis = d.readBigUInt64LE(CONFIG.genesisSlot);
    const registration = d.readBigUInt64LE(CONFIG.registration);
    const active = d.readBigUInt64LE(CONFIG.active);
    const slot = this.o.ledger.slot;
    if (slot < genesis || active === 0n) return undefined;
    const forester = registryPdas.forester(this.authority);
    // An epoch takes registrations during the first `registration` slots of its span (the epoch
    // before it is active meanwhile), and is active for `active` slots after that.
    const registering = (slot - genesis) / active;
    const open = (slot - genesis) % active < registration;
    if (open && !this.account(registryPdas.foresterEpoch(forester, registering)) && !this.backingOff('register')) {
      try {
        this.send([registerEpochIx(this.authority, registering)], `registration for epoch ${registering}`);
        this.o.log.info('forester: registered for an epoch', { epoch: registering.toString() });
        this.backoff.delete('register');
      } catch (e) {
        this.backOff('register');
        this.fail('register', (e as Error).message);
      }
    }
    if (slot < genesis + registration) return undefined;
    const epoch = (slot - genesis - registration) / active;
    const pda = this.account(registryPdas.foresterEpoch(forester, epoch));
    if (!pda) return undefined;
    if (pda.data[FINALIZED_AT] !== 1) {
      if (this.backingOff('finalize')) return undefined;
      try {
        this.send([finalizeRegistrationIx(this.authority, epoch)], `finalizing epoch ${epoch}`);
        this.backoff.delete('finalize');
      } catch (e) {
        this.backOff('finalize');
        this.fail('finalize', (e as Error).message);
        return undefined;
      }
    }
    return epoch;
  }

  private backingOff(key: string): boolean {
    const b = this.backoff.get(key);
    return b !== undefined && Date.now() < b.until;
  }

  private backOff(key: string): void {
    const ms = Math.min(MAX_BACKOFF_MS, (this.backoff.get(key)?.ms ?? 250) * 2);
    this.backoff.set(key, { until: Date.now() + ms, ms });
  }

  /** Signs and sends on the ledger; a failed transaction throws with its error and last log lines. */
  private send(ixs: Instruction[], what: string): void {
    const limit = Buffer.alloc(5);
    limit.writeUInt8(2, 0);
    limit.writeUInt32LE(COMPUTE_UNITS, 1);
    const bytes = signTransaction(
      [{ programId: COMPUTE_BUDGET, keys: [], data: limit }, ...ixs],
      [this.o.keypair],
      decodeBase58(this.o.ledger.latestBlockhash().blockhash),
    );
    const r = this.o.ledger.send(parseTransaction(bytes));
    if (r.err) {
      const logs = this.o.ledger.transaction(r.signature)?.logs ?? [];
      throw new Error(`${what} failed: ${r.err.display}${logs.length ? ` (${logs.slice(-3).join(' | ')})` : ''}`);
    }
  }

  private fail(key: string, message: string): void {
    this.lastError = message;
    this.o.log.warn('forester: update failed; retrying from fresh state', { key, error: message });
  }
}

function queueAccount(ledger: Ledger, info: TreeInfo, kind: BatchKind): BatchQueue | undefined {
  const a = ledger.getAccount(decodeBase58(kind === 'append' ? info.queue : info.pubkey));
  if (!a) return undefined;
  return kind === 'append' ? parseBatchOutputQueue(Buffer.from(a.data)) : parseBatchTree(Buffer.from(a.data))?.queue;
}

/** Fill levels of every V2 queue on the ledger (whether a forester runs or not). */
export function queueStatuses(ledger: Ledger, trees: TreeStore): QueueStatus[] {
  const out: QueueStatus[] = [];
  for (const info of trees.listTrees()) {
    if (!info.ledger || info.version !== 2) continue;
    for (const kind of kindsOf(info)) {
      let q: ReturnType<typeof queueAccount>;
      try {
        q = queueAccount(ledger, info, kind);
      } catch {
        // An account that no longer parses (written over): the compression self-check names the
        // tree as degraded; the other queues are still reported.
        continue;
      }
      if (!q) continue;
      out.push({
        tree: info.pubkey,
        queue: kind,
        queued: queuedEntries(q),
        capacity: q.batchSize * q.batches.length,
        readyBatches: q.batches.reduce(
          (n, x) => n + (x.state === BATCH_STATE.inserted ? 0 : x.numFullZkpBatches - x.numInsertedZkpBatches),
          0,
        ),
      });
    }
  }
  return out;
}

/** Where a value sits in a V1 queue account's hash set: its bucket index. */
function queueBucket(data: Uint8Array, value: bigint, queue: string): number {
  const q = Buffer.from(data);
  const v = Buffer.from(bigIntToBytes32(value));
  let at = q.indexOf(v, V1_QUEUE.buckets);
  while (at >= 0 && !V1_QUEUE.valueAt.includes((at - V1_QUEUE.buckets) % V1_QUEUE.bucket)) at = q.indexOf(v, at + 1);
  if (at < 0) throw new Error(`${queue}: ${hex(value)} is not in the queue account`);
  return Math.floor((at - V1_QUEUE.buckets) / V1_QUEUE.bucket);
}

/** A System program transfer. */
function transferIx(from: Uint8Array, to: Uint8Array, lamports: bigint): Instruction {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return {
    programId: SYSTEM_PROGRAM,
    keys: [
      { pubkey: from, isSigner: true, isWritable: true },
      { pubkey: to, isSigner: false, isWritable: true },
    ],
    data,
  };
}

function kindsOf(info: TreeInfo): BatchKind[] {
  return info.kind === 'state' ? ['append', 'nullify'] : ['address'];
}

const hex = (v: bigint) => encodeBase58(bigIntToBytes32(v));
