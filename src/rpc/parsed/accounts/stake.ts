// Stake accounts (bincode StakeStateV2). Agave writes lamport amounts and the delegation epochs as
// strings, lockup values and creditsObserved as numbers.
import { u64 } from '../../../wire/index.js';
import { DecodeError, Reader } from './reader.js';

function meta(r: Reader) {
  const rentExemptReserve = r.u64();
  const staker = r.pubkey();
  const withdrawer = r.pubkey();
  const unixTimestamp = r.i64();
  const epoch = r.u64();
  const custodian = r.pubkey();
  return {
    rentExemptReserve: rentExemptReserve.toString(),
    authorized: { staker, withdrawer },
    lockup: { unixTimestamp: u64(unixTimestamp), epoch: u64(epoch), custodian },
  };
}

function stake(r: Reader) {
  const voter = r.pubkey();
  const amount = r.u64();
  const activationEpoch = r.u64();
  const deactivationEpoch = r.u64();
  // Formerly warmup_cooldown_rate (f64), now reserved; current Agave no longer shows it.
  r.bytes(8);
  const creditsObserved = r.u64();
  return {
    delegation: {
      voter,
      stake: amount.toString(),
      activationEpoch: activationEpoch.toString(),
      deactivationEpoch: deactivationEpoch.toString(),
    },
    creditsObserved: u64(creditsObserved),
  };
}

export function parseStake(data: Uint8Array): unknown {
  const r = new Reader(data);
  switch (r.u32()) {
    case 0:
      return { type: 'uninitialized' };
    case 1:
      return { type: 'initialized', info: { meta: meta(r), stake: null } };
    case 2: {
      const m = meta(r);
      const s = stake(r);
      r.u8(); // StakeFlags: must be present for bincode, not shown
      return { type: 'delegated', info: { meta: m, stake: s } };
    }
    case 3:
      return { type: 'rewardsPool' };
    default:
      throw new DecodeError('unknown stake state');
  }
}
