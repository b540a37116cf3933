// Sysvar accounts: all owned by the Sysvar program, told apart by their own address, each a
// bincode value followed by whatever slack the fixed account size leaves (bincode ignores it).
import { u64 } from '../../../wire/index.js';
import {
  SYSVAR_CLOCK,
  SYSVAR_EPOCH_REWARDS,
  SYSVAR_EPOCH_SCHEDULE,
  SYSVAR_FEES,
  SYSVAR_LAST_RESTART_SLOT,
  SYSVAR_RECENT_BLOCKHASHES,
  SYSVAR_RENT,
  SYSVAR_REWARDS,
  SYSVAR_SLOT_HASHES,
  SYSVAR_SLOT_HISTORY,
  SYSVAR_STAKE_HISTORY,
} from './ids.js';
import { Reader } from './reader.js';

const SLOT_HISTORY_MAX_ENTRIES = 1024 * 1024;

const feeCalculator = (r: Reader) => ({ lamportsPerSignature: r.u64().toString() });

function slotHistory(r: Reader): unknown {
  // bv::BitVec<u64>: Option<Box<[u64]>> of blocks, then the bit length; then next_slot.
  const blocks = r.option(() => {
    const n = r.seqLen(8);
    return r.bytes(n * 8);
  });
  const len = r.u64();
  const nextSlot = r.u64();
  // Agave prints the first MAX_ENTRIES bits with BitVec::get, which panics past the length or
  // the storage; such an account cannot be shown.
  if (blocks === null || len < SLOT_HISTORY_MAX_ENTRIES || blocks.length * 8 < SLOT_HISTORY_MAX_ENTRIES) {
    return undefined;
  }
  // Bit i lives in u64 block i/64 at position i%64, i.e. byte i/8 (little-endian) at bit i%8.
  const chars = new Uint8Array(SLOT_HISTORY_MAX_ENTRIES);
  for (let i = 0; i < SLOT_HISTORY_MAX_ENTRIES; i++) chars[i] = (blocks[i >>> 3]! >>> (i & 7)) & 1 ? 0x31 : 0x30;
  return { nextSlot: u64(nextSlot), bits: Buffer.from(chars.buffer).toString('latin1') };
}

type SysvarParser = (r: Reader) => { type: string; info: unknown } | undefined;

const withType =
  (type: string, read: (r: Reader) => unknown): SysvarParser =>
  (r) => {
    const info = read(r);
    return info === undefined ? undefined : { type, info };
  };

const SYSVARS: Record<string, SysvarParser> = {
  [SYSVAR_CLOCK]: withType('clock', (r) => {
    const slot = r.u64();
    const epochStartTimestamp = r.i64();
    const epoch = r.u64();
    const leaderScheduleEpoch = r.u64();
    const unixTimestamp = r.i64();
    return {
      slot: u64(slot),
      epoch: u64(epoch),
      epochStartTimestamp: u64(epochStartTimestamp),
      leaderScheduleEpoch: u64(leaderScheduleEpoch),
      unixTimestamp: u64(unixTimestamp),
    };
  }),
  [SYSVAR_EPOCH_SCHEDULE]: withType('epochSchedule', (r) => ({
    slotsPerEpoch: u64(r.u64()),
    leaderScheduleSlotOffset: u64(r.u64()),
    warmup: r.bool(),
    firstNormalEpoch: u64(r.u64()),
    firstNormalSlot: u64(r.u64()),
  })),
  [SYSVAR_FEES]: withType('fees', (r) => ({ feeCalculator: feeCalculator(r) })),
  [SYSVAR_RECENT_BLOCKHASHES]: withType('recentBlockhashes', (r) => {
    const n = r.seqLen(40);
    return Array.from({ length: n }, () => ({ blockhash: r.pubkey(), feeCalculator: feeCalculator(r) }));
  }),
  [SYSVAR_RENT]: withType('rent', (r) => ({
    lamportsPerByteYear: r.u64().toString(),
    exemptionThreshold: r.f64(),
    burnPercent: r.u8(),
  })),
  [SYSVAR_REWARDS]: withType('rewards', (r) => {
    const validatorPointValue = r.f64();
    r.f64(); // `unused`, still part of the bincode value
    return { validatorPointValue };
  }),
  [SYSVAR_SLOT_HASHES]: withType('slotHashes', (r) => {
    const n = r.seqLen(40);
    return Array.from({ length: n }, () => ({ slot: u64(r.u64()), hash: r.pubkey() }));
  }),
  [SYSVAR_SLOT_HISTORY]: withType('slotHistory', slotHistory),
  [SYSVAR_STAKE_HISTORY]: withType('stakeHistory', (r) => {
    const n = r.seqLen(32);
    return Array.from({ length: n }, () => ({
      epoch: u64(r.u64()),
      stakeHistory: { effective: u64(r.u64()), activating: u64(r.u64()), deactivating: u64(r.u64()) },
    }));
  }),
  [SYSVAR_LAST_RESTART_SLOT]: withType('lastRestartSlot', (r) => ({ lastRestartSlot: u64(r.u64()) })),
  [SYSVAR_EPOCH_REWARDS]: withType('epochRewards', (r) => ({
    distributionStartingBlockHeight: u64(r.u64()),
    numPartitions: u64(r.u64()),
    parentBlockhash: r.pubkey(),
    totalPoints: r.u128().toString(),
    totalRewards: r.u64().toString(),
    distributedRewards: r.u64().toString(),
    active: r.bool(),
  })),
};

/** parse_sysvar: the account's address picks the layout; unknown sysvars are not parsable. */
export function parseSysvar(pubkey: string, data: Uint8Array): unknown {
  const parse = SYSVARS[pubkey];
  return parse ? parse(new Reader(data)) : undefined;
}
