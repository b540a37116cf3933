// Decoders of the Light instructions an indexer reads (layouts of the programs shipped with
// @lightprotocol/zk-compression-cli 0.28.3; compression-e2e.md §3): the Light system program's
// Invoke, InvokeCpi, InvokeCpiWithReadOnly and InvokeCpiWithAccountInfo (where the bodies of new
// compressed accounts are), and account-compression's insert_into_queues (which leaves, nullified
// accounts and addresses went into which tree or queue, at which positions). Light's V1 programs
// (mainnet from 2024-09 to the V2 upgrade in 2025) told indexers instead through an event, the
// Light system program's noop CPI with a PublicTransactionEvent, and put new addresses into their
// queues with account-compression's insert_addresses: both are decoded here too (decodeLegacyEvent,
// decodeInsertAddresses).
import { BorshReader } from '../util/borsh.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export const DISCRIMINATORS = {
  invoke: '1a10a90715caf219',
  invokeCpi: '31d4bf8127c22bc4',
  invokeCpiWithReadOnly: '562fa3a615df5c08',
  invokeCpiWithAccountInfo: 'e42280542f8b56f0',
  insertIntoQueues: 'b48f9f99232ef8a3',
} as const;

/** account-compression's V1 instructions (anchor discriminators): new addresses went in through insert_addresses. */
export const LEGACY_DISCRIMINATORS = {
  appendLeavesToMerkleTrees: 'c7900a52f78e8f07',
  insertIntoNullifierQueues: '5b65b71c231943dd',
  insertAddresses: 'f8e8b3c71b3e3814',
} as const;

export type SystemInstructionKind = Exclude<keyof typeof DISCRIMINATORS, 'insertIntoQueues'>;

const KIND_BY_DISCRIMINATOR = new Map<string, SystemInstructionKind>(
  (Object.entries(DISCRIMINATORS) as [keyof typeof DISCRIMINATORS, string][])
    .filter(([k]) => k !== 'insertIntoQueues')
    .map(([k, d]) => [d, k as SystemInstructionKind]),
);

/** The Light system instruction kind of `data`, or undefined (other instructions, or too short). */
export function systemInstructionKind(data: Uint8Array): SystemInstructionKind | undefined {
  return data.length >= 12 ? KIND_BY_DISCRIMINATOR.get(hex(data.subarray(0, 8))) : undefined;
}

export const isInsertIntoQueues = (data: Uint8Array): boolean =>
  data.length >= 12 && hex(data.subarray(0, 8)) === DISCRIMINATORS.insertIntoQueues;

export interface CompressedAccountData {
  discriminator: Uint8Array;
  data: Uint8Array;
  dataHash: Uint8Array;
}

/** A compressed account's body: what its hash commits to besides the tree and leaf index. */
export interface CompressedAccountBody {
  owner: Uint8Array;
  lamports: bigint;
  address: Uint8Array | null;
  data: CompressedAccountData | null;
}

export interface OutputAccount {
  account: CompressedAccountBody;
  /** Index into the instruction's remaining accounts: the V1 tree or V2 output queue. */
  treeIndex: number;
}

/** Where a spent account is (Invoke / InvokeCpi): indices into the instruction's remaining accounts. */
export interface InputContext {
  account: CompressedAccountBody;
  treeIndex: number;
  queueIndex: number;
  leafIndex: number;
  readOnly: boolean;
}

/** What ingest needs of an executing Light system instruction: its new accounts' bodies, in order. */
export interface SystemInstruction {
  kind: SystemInstructionKind;
  outputs: OutputAccount[];
  inputCount: number;
  /** Invoke / InvokeCpi only (empty for the others): each input's tree, queue and leaf index. */
  inputs: InputContext[];
  newAddressCount: number;
  compressOrDecompressLamports: bigint | null;
  isCompress: boolean;
}

function accountData(r: BorshReader): CompressedAccountData {
  return { discriminator: r.fixed(8, 'discriminator'), data: r.bytesVec('data'), dataHash: r.fixed(32, 'data_hash') };
}

function compressedAccount(r: BorshReader): CompressedAccountBody {
  const owner = r.fixed(32, 'owner');
  const lamports = r.u64('lamports');
  const address = r.option(() => r.fixed(32, 'address'), 'address');
  const data = r.option(() => accountData(r), 'data');
  return { owner, lamports, address, data };
}

const output = (r: BorshReader): OutputAccount => ({ account: compressedAccount(r), treeIndex: r.u8('tree index') });

function packedInput(r: BorshReader): InputContext {
  const account = compressedAccount(r);
  const treeIndex = r.u8('tree index');
  const queueIndex = r.u8('queue index');
  const leafIndex = r.u32('leaf index');
  r.u8('prove by index');
  r.u16('root index');
  return { account, treeIndex, queueIndex, leafIndex, readOnly: r.bool('read only') };
}

const proof = (r: BorshReader) => r.option(() => r.fixed(128, 'proof'), 'proof');

/** Invoke / InvokeCpi: discriminator, u32 length, borsh (field order differs between the two). */
function invoke(kind: 'invoke' | 'invokeCpi', r: BorshReader): SystemInstruction {
  r.u32('length');
  proof(r);
  let newAddressCount = 0;
  if (kind === 'invokeCpi') newAddressCount = r.vec(() => r.fixed(36, 'new address'), 36, 'new addresses').length;
  const inputs = r.vec(() => packedInput(r), 52, 'inputs');
  const inputCount = inputs.length;
  const outputs = r.vec(() => output(r), 43, 'outputs');
  r.option(() => r.u64('relay fee'), 'relay fee');
  if (kind === 'invoke') newAddressCount = r.vec(() => r.fixed(36, 'new address'), 36, 'new addresses').length;
  const compressOrDecompressLamports = r.option(() => r.u64('lamports'), 'compress lamports');
  const isCompress = r.bool('is compress');
  return { kind, outputs, inputCount, inputs, newAddressCount, compressOrDecompressLamports, isCompress };
}

/** InvokeCpiWithReadOnly / InvokeCpiWithAccountInfo: a 48-byte header, then borsh; no length prefix. */
function invokeV2(kind: 'invokeCpiWithReadOnly' | 'invokeCpiWithAccountInfo', r: BorshReader): SystemInstruction {
  r.u8('mode');
  r.u8('bump');
  const invokingProgram = r.fixed(32, 'invoking program');
  const lamports = r.u64('lamports');
  const isCompressFlag = r.u8('is compress') > 0;
  r.fixed(5, 'cpi context flags');
  proof(r);
  const newAddressCount = r.vec(() => r.fixed(38, 'new address'), 38, 'new addresses').length;
  const outputs: OutputAccount[] = [];
  let inputCount = 0;
  if (kind === 'invokeCpiWithReadOnly') {
    inputCount = r.vec(
      () => {
        r.fixed(8 + 32 + 7 + 2 + 8, 'input');
        r.option(() => r.fixed(32, 'address'), 'input address');
      },
      57,
      'inputs',
    ).length;
    outputs.push(...r.vec(() => output(r), 43, 'outputs'));
  } else {
    r.vec(
      () => {
        const address = r.option(() => r.fixed(32, 'address'), 'address');
        if (r.option(() => r.fixed(57, 'input'), 'input')) inputCount++;
        const out = r.option(() => {
          const discriminator = r.fixed(8, 'discriminator');
          const dataHash = r.fixed(32, 'data hash');
          const treeIndex = r.u8('tree index');
          const outLamports = r.u64('lamports');
          const data = r.bytesVec('data');
          return {
            treeIndex,
            account: {
              owner: invokingProgram,
              lamports: outLamports,
              address,
              data: { discriminator, data, dataHash },
            },
          };
        }, 'output');
        if (out) outputs.push(out);
      },
      3,
      'account infos',
    );
  }
  r.vec(() => r.fixed(35, 'read-only address'), 35, 'read-only addresses');
  r.vec(() => r.fixed(41, 'read-only account'), 41, 'read-only accounts');
  return {
    kind,
    outputs,
    inputCount,
    inputs: [],
    newAddressCount,
    compressOrDecompressLamports: lamports === 0n ? null : lamports,
    isCompress: isCompressFlag && lamports !== 0n,
  };
}

/** Decodes an executing Light system instruction; throws BorshError on malformed data. */
export function decodeSystemInstruction(data: Uint8Array): SystemInstruction | undefined {
  const kind = systemInstructionKind(data);
  if (!kind) return undefined;
  const r = new BorshReader(data, 8);
  return kind === 'invoke' || kind === 'invokeCpi' ? invoke(kind, r) : invokeV2(kind, r);
}

export interface QueueSequence {
  tree: Uint8Array;
  queue: Uint8Array;
  treeType: bigint;
  seq: bigint;
}

/** account-compression insert_into_queues: indices point into its accounts from index 2 on. */
export interface InsertIntoQueues {
  txHash: Uint8Array;
  leaves: { accountIndex: number; leaf: Uint8Array }[];
  nullifiers: {
    accountHash: Uint8Array;
    leafIndex: number;
    proveByIndex: boolean;
    treeIndex: number;
    queueIndex: number;
  }[];
  addresses: { address: Uint8Array; treeIndex: number; queueIndex: number }[];
  /** Entries for real trees only (the program zero-fills unused capacity). */
  outputSequences: QueueSequence[];
  inputSequences: QueueSequence[];
  addressSequences: QueueSequence[];
  outputLeafIndices: number[];
  /** Outputs stored in a CPI context by earlier instructions: they come first among the leaves. */
  cpiContextOutputs: OutputAccount[];
}

function sequences(r: BorshReader, what: string): QueueSequence[] {
  return r
    .slice8(
      () => ({ tree: r.fixed(32, what), queue: r.fixed(32, what), treeType: r.u64(what), seq: r.u64(what) }),
      80,
      what,
    )
    .filter((s) => s.tree.some((b) => b !== 0));
}

export function decodeInsertIntoQueues(data: Uint8Array): InsertIntoQueues {
  const r = new BorshReader(data, 8);
  r.u32('length');
  r.fixed(6, 'header');
  const txHash = r.fixed(32, 'tx hash');
  const leaves = r.slice8(() => ({ accountIndex: r.u8(), leaf: r.fixed(32, 'leaf') }), 33, 'leaves');
  const nullifiers = r.slice8(
    () => ({
      accountHash: r.fixed(32, 'account hash'),
      leafIndex: r.u32('leaf index'),
      proveByIndex: r.u8('prove by index') === 1,
      treeIndex: r.u8('tree index'),
      queueIndex: r.u8('queue index'),
    }),
    39,
    'nullifiers',
  );
  const addresses = r.slice8(
    () => ({ address: r.fixed(32, 'address'), treeIndex: r.u8('tree index'), queueIndex: r.u8('queue index') }),
    34,
    'addresses',
  );
  const outputSequences = sequences(r, 'output sequence numbers');
  const inputSequences = sequences(r, 'input sequence numbers');
  const addressSequences = sequences(r, 'address sequence numbers');
  const outputLeafIndices = r.slice8(() => r.u32('output leaf index'), 4, 'output leaf indices');
  const cpiContextOutputs = r.vec(() => output(r), 43, 'cpi context outputs');
  return {
    txHash,
    leaves,
    nullifiers,
    addresses,
    outputSequences,
    inputSequences,
    addressSequences,
    outputLeafIndices,
    cpiContextOutputs,
  };
}

/**
 * The V1 Light system program's PublicTransactionEvent, the data of its noop CPI (no tag): the
 * layout it had on chain (Photon's current one appends ata_owners, which no program emitted), read
 * to its last byte.
 */
export interface LegacyEvent {
  inputHashes: Uint8Array[];
  outputHashes: Uint8Array[];
  /** `treeIndex` points into `pubkeys`. */
  outputs: OutputAccount[];
  outputLeafIndices: number[];
  /** Per output tree: the sequence number of its first new leaf. */
  sequenceNumbers: { tree: Uint8Array; seq: bigint }[];
  isCompress: boolean;
  compressOrDecompressLamports: bigint | null;
  /** The Light system instruction's remaining accounts. */
  pubkeys: Uint8Array[];
}

export function decodeLegacyEvent(data: Uint8Array): LegacyEvent {
  const r = new BorshReader(data, 0);
  const inputHashes = r.vec(() => r.fixed(32, 'input hash'), 32, 'input hashes');
  const outputHashes = r.vec(() => r.fixed(32, 'output hash'), 32, 'output hashes');
  const outputs = r.vec(() => output(r), 43, 'outputs');
  const outputLeafIndices = r.vec(() => r.u32('output leaf index'), 4, 'output leaf indices');
  const sequenceNumbers = r.vec(() => ({ tree: r.fixed(32, 'tree'), seq: r.u64('seq') }), 40, 'sequence numbers');
  r.option(() => r.u64('relay fee'), 'relay fee');
  const isCompress = r.bool('is compress');
  const compressOrDecompressLamports = r.option(() => r.u64('lamports'), 'compress lamports');
  const pubkeys = r.vec(() => r.fixed(32, 'pubkey'), 32, 'pubkey array');
  r.option(() => r.bytesVec('message'), 'message');
  if (r.remaining !== 0) throw new RangeError(`${r.remaining} bytes after the event`);
  if (outputHashes.length !== outputs.length || outputLeafIndices.length !== outputs.length)
    throw new RangeError(
      `${outputHashes.length} output hashes, ${outputs.length} outputs and ${outputLeafIndices.length} leaf indices`,
    );
  return {
    inputHashes,
    outputHashes,
    outputs,
    outputLeafIndices,
    sequenceNumbers,
    isCompress,
    compressOrDecompressLamports,
    pubkeys,
  };
}

export const isInsertAddresses = (data: Uint8Array): boolean =>
  data.length >= 12 && hex(data.subarray(0, 8)) === LEGACY_DISCRIMINATORS.insertAddresses;

/** V1 account-compression insert_addresses: the addresses; its accounts from index 4 are [queue, tree] pairs. */
export function decodeInsertAddresses(data: Uint8Array): Uint8Array[] {
  const r = new BorshReader(data, 8);
  const addresses = r.vec(() => r.fixed(32, 'address'), 32, 'addresses');
  if (r.remaining !== 0) throw new RangeError(`${r.remaining} bytes after the addresses`);
  return addresses;
}
