// Finds what a committed transaction did to compressed state (compression-e2e.md §3): each
// insert_into_queues made by the Light system program (accounts[1] = its registered-program PDA),
// paired with the Light system instruction that executed it (walking back over the System program's
// fee and compression transfers, as light-event does), within one top-level instruction and the
// instructions it invoked. Only what the two instructions say is used; bodies of outputs come from
// the system instruction (CPI-context outputs from insert_into_queues), hashes and positions from
// insert_into_queues.
import type { ChainTransaction } from '../ledger/index.js';
import { LIGHT_IDS } from '../ledger/index.js';
import { decodeBase58 } from '../zk/base58.js';
import {
  decodeInsertIntoQueues,
  decodeSystemInstruction,
  isInsertIntoQueues,
  systemInstructionKind,
  type InsertIntoQueues,
  type OutputAccount,
} from './instructions.js';

const KEY = {
  system: Buffer.from(decodeBase58(LIGHT_IDS.system)),
  accountCompression: Buffer.from(decodeBase58(LIGHT_IDS.accountCompression)),
  registeredPda: Buffer.from(decodeBase58(LIGHT_IDS.registeredProgramPda)),
  solanaSystem: Buffer.alloc(32),
};

/** One Light state change: insert_into_queues with the accounts its indices refer to, and the output bodies. */
export interface LightEvent {
  queues: InsertIntoQueues;
  /** insert_into_queues' accounts from index 2: what its account / tree / queue indices point at. */
  accounts: Uint8Array[];
  /** Bodies of the outputs, aligned with `queues.leaves` (CPI-context outputs first). */
  outputs: OutputAccount[];
}

/** Why part of a transaction could not be read: counted and logged by ingest, never fatal. */
export interface SkippedEvent {
  reason: string;
}

interface Flat {
  programIdIndex: number;
  accounts: ArrayLike<number>;
  data: Uint8Array;
}

/** Light events of a committed, successful transaction, in execution order. */
export function lightEvents(t: ChainTransaction): { events: LightEvent[]; skipped: SkippedEvent[] } {
  const events: LightEvent[] = [];
  const skipped: SkippedEvent[] = [];
  const keys = t.accountKeys;
  const indexOf = (k: Buffer) => keys.findIndex((x) => k.equals(x));
  // Cheap filter: no account-compression program among the keys, no Light state change.
  const compression = indexOf(KEY.accountCompression);
  if (compression < 0) return { events, skipped };
  const system = indexOf(KEY.system);
  const solanaSystem = indexOf(KEY.solanaSystem);
  const inner = t.innerInstructions();
  t.tx.instructions.forEach((top, i) => {
    const flat: Flat[] = [top, ...(inner[i] ?? [])];
    flat.forEach((ix, at) => {
      if (ix.programIdIndex !== compression || !isInsertIntoQueues(ix.data) || ix.accounts.length < 3) return;
      const accounts: Uint8Array[] = [];
      for (let k = 0; k < ix.accounts.length; k++) {
        const key = keys[ix.accounts[k]!];
        if (!key) return;
        accounts.push(key);
      }
      if (!KEY.registeredPda.equals(accounts[1]!)) return;
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
      try {
        outputs = [...queues.cpiContextOutputs, ...decodeSystemInstruction(exec.data)!.outputs];
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
      events.push({ queues, accounts: accounts.slice(2), outputs });
    });
  });
  return { events, skipped };
}
