// Vote accounts (bincode VoteStateVersions). Every version is shown in the one UiVoteState shape;
// epoch credits are strings, slots and epochs numbers.
import { u64 } from '../../../wire/index.js';
import { DecodeError, Reader } from './reader.js';

const V1_14_11 = 1;
const V3 = 2;
const V4 = 3;
const PRIOR_VOTERS = 32;
const DEFAULT_PUBKEY = '11111111111111111111111111111111';

function votes(r: Reader, landed: boolean) {
  // V1_14_11 stores Lockouts; later versions LandedVotes, which prefix a latency byte.
  const n = r.seqLen(landed ? 13 : 12);
  return Array.from({ length: n }, () => {
    if (landed) r.u8();
    return { slot: u64(r.u64()), confirmationCount: r.u32() };
  });
}

/** AuthorizedVoters is a BTreeMap: shown in epoch order, a repeated epoch keeping its last voter. */
function authorizedVoters(r: Reader) {
  const n = r.seqLen(40);
  const byEpoch = new Map<bigint, string>();
  for (let i = 0; i < n; i++) {
    const epoch = r.u64();
    byEpoch.set(epoch, r.pubkey());
  }
  return [...byEpoch.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((epoch) => ({ epoch: u64(epoch), authorizedVoter: byEpoch.get(epoch)! }));
}

/** CircBuf<(Pubkey, Epoch, Epoch)>: the raw ring in storage order, empty slots left out. */
function priorVoters(r: Reader) {
  const out: {
    authorizedPubkey: string;
    epochOfLastAuthorizedSwitch: number | bigint;
    targetEpoch: number | bigint;
  }[] = [];
  for (let i = 0; i < PRIOR_VOTERS; i++) {
    const authorizedPubkey = r.pubkey();
    const epochOfLastAuthorizedSwitch = u64(r.u64());
    const targetEpoch = u64(r.u64());
    if (authorizedPubkey !== DEFAULT_PUBKEY) out.push({ authorizedPubkey, epochOfLastAuthorizedSwitch, targetEpoch });
  }
  r.u64(); // idx
  r.bool(); // is_empty
  return out;
}

function epochCredits(r: Reader) {
  const n = r.seqLen(24);
  return Array.from({ length: n }, () => ({
    epoch: u64(r.u64()),
    credits: r.u64().toString(),
    previousCredits: r.u64().toString(),
  }));
}

const lastTimestamp = (r: Reader) => ({ slot: u64(r.u64()), timestamp: u64(r.i64()) });
const rootSlot = (r: Reader) => {
  const slot = r.option(() => r.u64());
  return slot === null ? null : u64(slot);
};

export function parseVote(data: Uint8Array): unknown {
  const r = new Reader(data);
  const version = r.u32();
  let info: Record<string, unknown>;
  if (version === V1_14_11 || version === V3) {
    const nodePubkey = r.pubkey();
    const authorizedWithdrawer = r.pubkey();
    const commission = r.u8();
    const v = votes(r, version === V3);
    const root = rootSlot(r);
    const voters = authorizedVoters(r);
    const prior = priorVoters(r);
    info = {
      nodePubkey,
      authorizedWithdrawer,
      commission,
      votes: v,
      rootSlot: root,
      authorizedVoters: voters,
      priorVoters: prior,
      epochCredits: epochCredits(r),
      lastTimestamp: lastTimestamp(r),
    };
  } else if (version === V4) {
    const nodePubkey = r.pubkey();
    const authorizedWithdrawer = r.pubkey();
    r.pubkey(); // inflation_rewards_collector
    r.pubkey(); // block_revenue_collector
    const inflationRewardsCommissionBps = r.u16();
    r.u16(); // block_revenue_commission_bps
    r.u64(); // pending_delegator_rewards
    r.option(() => r.bytes(48)); // bls_pubkey_compressed
    const v = votes(r, true);
    const root = rootSlot(r);
    const voters = authorizedVoters(r);
    info = {
      nodePubkey,
      authorizedWithdrawer,
      // The legacy percentage field, from basis points; Rust's `as u8` wraps, and so does this.
      commission: Math.floor(inflationRewardsCommissionBps / 100) & 0xff,
      votes: v,
      rootSlot: root,
      authorizedVoters: voters,
      // V4 dropped the prior-voter history.
      priorVoters: [],
      epochCredits: epochCredits(r),
      lastTimestamp: lastTimestamp(r),
    };
  } else {
    // 0 is Uninitialized in current vote-interface (formerly the 0.23.5 layout, long gone).
    throw new DecodeError('vote account not initialized or of unknown version');
  }
  return { type: 'vote', info };
}
