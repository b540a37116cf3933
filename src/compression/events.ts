// Finds what a committed transaction did to compressed state (compression-e2e.md §3): each
// insert_into_queues made by the Light system program (accounts[1] = its registered-program PDA),
// paired with the Light system instruction that executed it (walking back over the System program's
// fee and compression transfers, as light-event does), within one top-level instruction and the
// instructions it invoked. Only what the two instructions say is used; bodies of outputs come from
// the system instruction (CPI-context outputs from insert_into_queues), hashes and positions from
// insert_into_queues.
//
// Light's V1 programs (mainnet 2024-09 to the V2 upgrade in 2025) made no insert_into_queues: the
// Light system program emitted a PublicTransactionEvent as the data of a noop CPI (only a noop it
// invoked counts: anyone may call the noop). That event is read into the same LightEvent: its
// outputs, their hashes, leaf indices and sequence numbers; the spent accounts' trees and leaves
// from the Light system instruction itself (the event has only their hashes); new addresses from
// account-compression's insert_addresses, which the same instruction invoked.
import type { ChainTransaction } from '../ledger/index.js';
import { LIGHT_IDS } from '../ledger/index.js';
import { decodeBase58 } from '../zk/base58.js';
import {
  decodeInsertAddresses,
  decodeInsertIntoQueues,
  decodeLegacyEvent,
  decodeSystemInstruction,
  isInsertAddresses,
  isInsertIntoQueues,
  systemInstructionKind,
  type InsertIntoQueues,
  type OutputAccount,
} from './instructions.js';
import { sameBytes } from '../util/same-bytes.js';

const KEY = {
  system: Buffer.from(decodeBase58(LIGHT_IDS.system)),
  accountCompression: Buffer.from(decodeBase58(LIGHT_IDS.accountCompression)),
  registeredPda: Buffer.from(decodeBase58(LIGHT_IDS.registeredProgramPda)),
  noop: Buffer.from(decodeBase58(LIGHT_IDS.noop)),
  solanaSystem: Buffer.alloc(32),
};

/** A V1 event gives no transaction hash (V2 nullifiers need one; V1 queues take the account's hash). */
const NO_TX_HASH = new Uint8Array(32);

/** One Light state change: insert_into_queues with the accounts its indices refer to, and the output bodies. */
export interface LightEvent {
  queues: InsertIntoQueues;
  /** insert_into_queues' accounts from index 2: what its account / tree / queue indices point at. */
  accounts: Uint8Array[];
  /** Bodies of the outputs, aligned with `queues.leaves` (CPI-context outputs first). */
  outputs: OutputAccount[];
  /**
   * Where outputs stored in a CPI context join the executing instruction's: Light's programs put
   * them first from release 2.0.0 (2025-10-27), last before. Both orders, when both kinds are
   * there: ingest keeps the one whose first body hashes to the first leaf (cpiContextOrder).
   */
  executingFirst?: OutputAccount[];
}

/**
 * The event's output bodies in the order its leaves were made in: as given, or (a transaction of
 * Light's programs before 2.0.0) the executing instruction's before the CPI context's, if the
 * first body hashes to the first leaf only so. `hashOf` hashes a body as the leaf at `i`.
 */
export function cpiContextOrder(ev: LightEvent, hashOf: (body: OutputAccount, i: number) => bigint): OutputAccount[] {
  const other = ev.executingFirst;
  if (!other || ev.outputs.length === 0) return ev.outputs;
  const first = BigInt('0x' + Buffer.from(ev.queues.leaves[0]!.leaf).toString('hex'));
  if (hashOf(ev.outputs[0]!, 0) === first) return ev.outputs;
  return hashOf(other[0]!, 0) === first ? other : ev.outputs;
}

/** Why part of a transaction could not be read: counted and logged by ingest, never fatal. */
export interface SkippedEvent {
  reason: string;
}

interface Flat {
  programIdIndex: number;
  accounts: ArrayLike<number>;
  data: Uint8Array;
  /** Absent on the top-level instruction (height 1). */
  stackHeight?: number;
}

const heightOf = (ix: Flat) => ix.stackHeight ?? 1;

/** Light events of a committed, successful transaction, in execution order. */
export function lightEvents(t: ChainTransaction): { events: LightEvent[]; skipped: SkippedEvent[] } {
  const events: LightEvent[] = [];
  const skipped: SkippedEvent[] = [];
  const keys = t.accountKeys;
  const indexOf = (k: Buffer) => keys.findIndex((x) => sameBytes(k, x));
  // Cheap filter: no account-compression program among the keys, no Light state change.
  const compression = indexOf(KEY.accountCompression);
  if (compression < 0) return { events, skipped };
  const system = indexOf(KEY.system);
  const solanaSystem = indexOf(KEY.solanaSystem);
  const noop = indexOf(KEY.noop);
  const inner = t.innerInstructions();
  t.tx.instructions.forEach((top, i) => {
    const flat: Flat[] = [top, ...(inner[i] ?? [])];
    const keyOf = (ix: Flat, k: number) => keys[ix.accounts[k]!];
    flat.forEach((ix, at) => {
      if (ix.programIdIndex === noop && noop >= 0 && at > 0) {
        const ev = legacyEvent(flat, at, { system, compression, keyOf }, i);
        if (ev && 'reason' in ev) skipped.push(ev);
        else if (ev) events.push(ev);
        return;
      }
      if (ix.programIdIndex !== compression || !isInsertIntoQueues(ix.data) || ix.accounts.length < 3) return;
      const accounts: Uint8Array[] = [];
      for (let k = 0; k < ix.accounts.length; k++) {
        const key = keys[ix.accounts[k]!];
        if (!key) return;
        accounts.push(key);
      }
      if (!sameBytes(KEY.registeredPda, accounts[1]!)) return;
      let queues: InsertIntoQueues;
      try {
        queues = decodeInsertIntoQueues(ix.data);
      } catch (e) {
        skipped.push({ reason: `insert_into_queues in instruction ${i} is malformed: ${(e as Error).message}` });
        return;
      }
      // The executing Light system instruction: the nearest one before, past System transfers only.
      let j = at - 1;
      while (j >= 0 && flat[j]!.programIdIndex === solanaSystem) j--;
      const exec = j >= 0 ? flat[j] : undefined;
      if (!exec || exec.programIdIndex !== system || !systemInstructionKind(exec.data)) {
        skipped.push({ reason: `insert_into_queues in instruction ${i} follows no Light system instruction` });
        return;
      }
      let outputs: OutputAccount[];
      let executing: OutputAccount[];
      try {
        executing = decodeSystemInstruction(exec.data)!.outputs;
        outputs = [...queues.cpiContextOutputs, ...executing];
      } catch (e) {
        skipped.push({ reason: `Light system instruction in instruction ${i} is malformed: ${(e as Error).message}` });
        return;
      }
      if (outputs.length !== queues.leaves.length || queues.outputLeafIndices.length !== queues.leaves.length) {
        skipped.push({
          reason: `instruction ${i}: ${queues.leaves.length} leaves, ${queues.outputLeafIndices.length} leaf indices and ${outputs.length} output bodies`,
        });
        return;
      }
      const both = queues.cpiContextOutputs.length > 0 && executing.length > 0;
      events.push({
        queues,
        accounts: accounts.slice(2),
        outputs,
        ...(both ? { executingFirst: [...executing, ...queues.cpiContextOutputs] } : {}),
      });
    });
  });
  return { events, skipped };
}

/**
 * The V1 event of the noop instruction at `at`, when the Light system program invoked it; a reason
 * when it did but the event or its instruction does not read.
 */
function legacyEvent(
  flat: Flat[],
  at: number,
  ids: { system: number; compression: number; keyOf: (ix: Flat, k: number) => Uint8Array | undefined },
  i: number,
): LightEvent | SkippedEvent | undefined {
  const ix = flat[at]!;
  // The invoking instruction: the nearest one before at the stack height below.
  let p = at - 1;
  while (p >= 0 && heightOf(flat[p]!) >= heightOf(ix)) p--;
  const exec = p >= 0 ? flat[p]! : undefined;
  if (!exec || exec.programIdIndex !== ids.system || ids.system < 0) return undefined;
  const where = `the Light system program's event in instruction ${i}`;
  let ev: ReturnType<typeof decodeLegacyEvent>;
  let sys: ReturnType<typeof decodeSystemInstruction>;
  try {
    ev = decodeLegacyEvent(ix.data);
    sys = decodeSystemInstruction(exec.data);
  } catch (e) {
    return { reason: `${where} is malformed: ${(e as Error).message}` };
  }
  if (!sys) return { reason: `${where} follows no Light system instruction it can read` };
  const spent = sys.inputs.filter((x) => !x.readOnly);
  if (spent.length !== ev.inputHashes.length)
    return { reason: `${where}: ${ev.inputHashes.length} spent hashes, the instruction spends ${spent.length}` };
  // insert_addresses the same Light system instruction invoked: its [queue, tree] pairs go after the
  // event's accounts, which the indices of the addresses below point at.
  const accounts = [...ev.pubkeys];
  const addresses: InsertIntoQueues['addresses'] = [];
  for (let k = p + 1; k < at; k++) {
    const c = flat[k]!;
    if (c.programIdIndex !== ids.compression || heightOf(c) !== heightOf(ix) || !isInsertAddresses(c.data)) continue;
    let list: Uint8Array[];
    try {
      list = decodeInsertAddresses(c.data);
    } catch (e) {
      return { reason: `insert_addresses in instruction ${i} is malformed: ${(e as Error).message}` };
    }
    for (const [n, address] of list.entries()) {
      const queue = ids.keyOf(c, 4 + 2 * n);
      const tree = ids.keyOf(c, 5 + 2 * n);
      if (!queue || !tree) return { reason: `insert_addresses in instruction ${i}: no accounts for address ${n}` };
      accounts.push(queue, tree);
      addresses.push({ address, queueIndex: accounts.length - 2, treeIndex: accounts.length - 1 });
    }
  }
  const queues: InsertIntoQueues = {
    txHash: NO_TX_HASH,
    leaves: ev.outputs.map((o, n) => ({ accountIndex: o.treeIndex, leaf: ev.outputHashes[n]! })),
    nullifiers: ev.inputHashes.map((accountHash, n) => ({
      accountHash,
      leafIndex: spent[n]!.leafIndex,
      proveByIndex: false,
      treeIndex: spent[n]!.treeIndex,
      queueIndex: spent[n]!.queueIndex,
    })),
    addresses,
    outputSequences: ev.sequenceNumbers.map((s) => ({ tree: s.tree, queue: s.tree, treeType: 1n, seq: s.seq })),
    inputSequences: [],
    addressSequences: [],
    outputLeafIndices: ev.outputLeafIndices,
    cpiContextOutputs: [],
  };
  return { queues, accounts, outputs: ev.outputs };
}
