// The cluster questions, answered as a single-node test validator answers them: one node (the
// ledger's identity) that leads every slot and holds the only vote account, no stake and no
// inflation rewards, no snapshots; supply and performance from what the ledger holds and did.
import type { Ledger, LedgerEvent } from '../../ledger/index.js';
import { encodeBase58 } from '../../zk/base58.js';
import { NoSnapshotError } from '../errors.js';
import { u64 } from '../../wire/index.js';
import { args, config, invalid, pubkey, raw } from './solana-params.js';
import { defineMethod, type MethodDef } from './types.js';
import { show, U64_MAX } from '../validate.js';

const SLOTS_PER_EPOCH = 432_000n;
const SLOT_SECONDS = 0.4;
const SAMPLE_SECONDS = 60;
const MAX_SAMPLES = 720;
const FEE_SLOTS = 150;
/** solana-program's Inflation::default(). */
const INFLATION = { initial: 0.08, terminal: 0.015, taper: 0.15, foundation: 0.05, foundationTerm: 7 };

/** What surfnet_setSupply set (Surfpool's cheatcode): each given figure replaces getSupply's own. */
export interface SupplyOverride {
  total?: bigint;
  circulating?: bigint;
  nonCirculating?: bigint;
  nonCirculatingAccounts?: string[];
}

/** Where clients reach this node (set once the servers listen). */
export interface NodeEndpoints {
  rpc?: string;
  pubsub?: string;
}

/** Per-minute transaction counts and per-slot compute-unit prices, from the ledger's events. */
class Activity {
  samples: { slot: bigint; numTransactions: number; numSlots: number }[] = [];
  private current = { startSlot: 0n, startMs: Date.now(), transactions: 0 };
  readonly fees: { slot: bigint; prices: { price: bigint; writable: Uint8Array[] }[] }[] = [];

  constructor(ledger: Ledger) {
    this.current.startSlot = ledger.slot;
    ledger.onEvent((e) => this.on(e));
  }

  private on(e: LedgerEvent): void {
    if (e.type === 'slot') {
      if (Date.now() - this.current.startMs >= SAMPLE_SECONDS * 1000) {
        this.samples.unshift({
          slot: e.slot,
          numTransactions: this.current.transactions,
          numSlots: Number(e.slot - this.current.startSlot),
        });
        if (this.samples.length > MAX_SAMPLES) this.samples.pop();
        this.current = { startSlot: e.slot, startMs: Date.now(), transactions: 0 };
      }
      this.fees.push({ slot: e.slot, prices: [] });
      if (this.fees.length > FEE_SLOTS) this.fees.shift();
      return;
    }
    if (e.type !== 'transaction') return;
    this.current.transactions++;
    let last = this.fees[this.fees.length - 1];
    if (!last || last.slot !== e.slot) this.fees.push((last = { slot: e.slot, prices: [] }));
    // Raw keys: compared only when someone asks (no encoding on every transaction).
    last.prices.push({ price: e.computeUnitPrice, writable: e.writableKeys });
  }
}

function epochOf(slot: bigint) {
  return { epoch: slot / SLOTS_PER_EPOCH, first: (slot / SLOTS_PER_EPOCH) * SLOTS_PER_EPOCH };
}

export function solanaClusterMethods(
  ledger: Ledger,
  version: string,
  endpoints: NodeEndpoints,
  supply: SupplyOverride = {},
): MethodDef[] {
  const m = (name: string, call: (p: unknown[]) => unknown) => defineMethod({ name, params: raw, call });
  const context = (c?: string) => ({ slot: ledger.slotAt((c as 'finalized') ?? 'finalized'), apiVersion: version });
  const { identity, vote } = ledger.node;
  const activity = new Activity(ledger);
  const slotNumber = (v: unknown, what: string): bigint => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw invalid(`${what}: expected a slot number (u64), got ${show(v)}`);
    return BigInt(v);
  };
  const inflationAt = (epoch: bigint) => {
    const year = (Number(epoch * SLOTS_PER_EPOCH) * SLOT_SECONDS) / (365.25 * 86_400);
    const total = Math.max(INFLATION.initial * (1 - INFLATION.taper) ** year, INFLATION.terminal);
    const foundation = year < INFLATION.foundationTerm ? total * INFLATION.foundation : 0;
    return { total, validator: total - foundation, foundation, epoch: Number(epoch) };
  };

  return [
    m('getIdentity', (p) => {
      args(p, 'params', 0, 0);
      return { identity };
    }),
    m('getClusterNodes', (p) => {
      args(p, 'params', 0, 0);
      return [
        {
          pubkey: identity,
          gossip: null,
          tvu: null,
          tpu: null,
          tpuQuic: null,
          tpuForwards: null,
          tpuForwardsQuic: null,
          tpuVote: null,
          serveRepair: null,
          rpc: endpoints.rpc ?? null,
          pubsub: endpoints.pubsub ?? null,
          version,
          featureSet: 0,
          shredVersion: 0,
        },
      ];
    }),
    m('getSlotLeader', (p) => {
      config(args(p, 'params', 0, 1)[0]);
      return identity;
    }),
    m('getSlotLeaders', (p) => {
      const [start, limit] = args(p, 'params', 2, 2);
      slotNumber(start, 'start slot');
      const n = slotNumber(limit, 'limit');
      if (n > 5000n) throw invalid('Invalid limit; max 5000');
      return Array<string>(Number(n)).fill(identity);
    }),
    m('getLeaderSchedule', (p) => {
      const [first, second] = args(p, 'params', 0, 2);
      const [slotArg, cfgArg] = typeof first === 'object' && first !== null ? [undefined, first] : [first, second];
      const c = config(cfgArg);
      const slot = slotArg === undefined || slotArg === null ? ledger.slot : slotNumber(slotArg, 'slot');
      // Known for the current epoch and the next (the leader-schedule offset), as a validator's.
      if (epochOf(slot).epoch > epochOf(ledger.slot).epoch + 1n) return null;
      if (c.identity !== undefined && c.identity !== identity) {
        pubkey(c.identity, 'identity');
        return {};
      }
      return { [identity]: Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, i) => i) };
    }),
    m('getVoteAccounts', (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      if (c.votePubkey !== undefined && c.votePubkey !== vote) {
        pubkey(c.votePubkey, 'votePubkey');
        return { current: [], delinquent: [] };
      }
      return {
        current: [
          {
            votePubkey: vote,
            nodePubkey: identity,
            activatedStake: 0,
            epochVoteAccount: true,
            commission: 0,
            lastVote: u64(ledger.slotAt('processed')),
            epochCredits: [],
            rootSlot: u64(ledger.slotAt('finalized')),
          },
        ],
        delinquent: [],
      };
    }),
    m('getEpochSchedule', (p) => {
      args(p, 'params', 0, 0);
      return {
        slotsPerEpoch: Number(SLOTS_PER_EPOCH),
        leaderScheduleSlotOffset: Number(SLOTS_PER_EPOCH),
        warmup: false,
        firstNormalEpoch: 0,
        firstNormalSlot: 0,
      };
    }),
    m('getInflationGovernor', (p) => {
      config(args(p, 'params', 0, 1)[0]);
      return INFLATION;
    }),
    m('getInflationRate', (p) => {
      args(p, 'params', 0, 0);
      return inflationAt(epochOf(ledger.slot).epoch);
    }),
    m('getInflationReward', (p) => {
      const [addresses, cfg] = args(p, 'params', 1, 2);
      config(cfg);
      if (!Array.isArray(addresses)) throw invalid('addresses: expected an array of base58 addresses');
      // No stake, no rewards: null for each address, as Agave answers for one without a reward.
      return addresses.map((a) => (pubkey(a, 'address'), null));
    }),
    m('getSupply', (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      let total = 0n;
      if (supply.total === undefined || supply.circulating === undefined)
        for (const { lamports } of ledger.balances()) total += lamports;
      // A u64, as a validator's capitalization is: cheatcodes can set balances whose sum is larger.
      if (total > U64_MAX) total = U64_MAX;
      const accounts = c.excludeNonCirculatingAccountsList === true ? [] : (supply.nonCirculatingAccounts ?? []);
      return {
        context: context(c.commitment),
        value: {
          total: supply.total ?? total,
          circulating: supply.circulating ?? total,
          nonCirculating: supply.nonCirculating ?? 0,
          nonCirculatingAccounts: accounts,
        },
      };
    }),
    m('getLargestAccounts', (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      if (c.filter !== undefined && c.filter !== 'circulating' && c.filter !== 'nonCirculating')
        throw invalid(`filter: expected circulating or nonCirculating, got ${show(c.filter)}`);
      const top: { pubkey: Uint8Array; lamports: bigint }[] = [];
      if (c.filter !== 'nonCirculating')
        for (const b of ledger.balances()) {
          if (top.length < 20 || b.lamports > top[top.length - 1]!.lamports) {
            top.push(b);
            top.sort((x, y) => (y.lamports > x.lamports ? 1 : y.lamports < x.lamports ? -1 : 0));
            if (top.length > 20) top.pop();
          }
        }
      return {
        context: context(c.commitment),
        value: top.map((b) => ({ lamports: u64(b.lamports), address: encodeBase58(b.pubkey) })),
      };
    }),
    m('getHighestSnapshotSlot', (p) => {
      args(p, 'params', 0, 0);
      throw new NoSnapshotError();
    }),
    m('getMaxRetransmitSlot', (p) => {
      args(p, 'params', 0, 0);
      return u64(ledger.slot);
    }),
    m('getMaxShredInsertSlot', (p) => {
      args(p, 'params', 0, 0);
      return u64(ledger.slot);
    }),
    m('getStakeMinimumDelegation', (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      return { context: context(c.commitment), value: 1 };
    }),
    m('getRecentPerformanceSamples', (p) => {
      const [limit] = args(p, 'params', 0, 1);
      const n = limit === undefined || limit === null ? MAX_SAMPLES : Number(slotNumber(limit, 'limit'));
      if (n > MAX_SAMPLES) throw invalid(`Invalid limit; max ${MAX_SAMPLES}`);
      return activity.samples.slice(0, n).map((s) => ({
        slot: u64(s.slot),
        numTransactions: s.numTransactions,
        numNonVoteTransactions: s.numTransactions,
        numSlots: s.numSlots,
        samplePeriodSecs: SAMPLE_SECONDS,
      }));
    }),
    m('getRecentPrioritizationFees', (p) => {
      const [list] = args(p, 'params', 0, 1);
      const addresses = list === undefined || list === null ? [] : list;
      if (!Array.isArray(addresses)) throw invalid('addresses: expected an array of base58 addresses');
      if (addresses.length > 128) throw invalid('Too many inputs provided; max 128');
      const wanted = addresses.map((a) => Buffer.from(pubkey(a, 'address')));
      // Per slot: with no addresses, the lowest price of any transaction; with addresses, the
      // highest over them of the lowest price of the transactions writing it (Agave's cache); 0 if none.
      return activity.fees.map(({ slot, prices }) => {
        const lowest = (txs: typeof prices) =>
          txs.reduce<bigint | undefined>((m, t) => (m === undefined || t.price < m ? t.price : m), undefined) ?? 0n;
        const fee =
          wanted.length === 0
            ? lowest(prices)
            : wanted.reduce((m, a) => {
                const f = lowest(prices.filter((t) => t.writable.some((k) => a.equals(k))));
                return f > m ? f : m;
              }, 0n);
        return { slot: u64(slot), prioritizationFee: u64(fee) };
      });
    }),
    m('getBlockProduction', (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      const range = c.range as { firstSlot?: unknown; lastSlot?: unknown } | undefined;
      const current = ledger.slotAt(c.commitment ?? 'finalized');
      const firstBlock = ledger.firstBlock() ?? current;
      const firstSlot = range
        ? slotNumber(range.firstSlot, 'range.firstSlot')
        : epochOf(current).first > firstBlock
          ? epochOf(current).first
          : firstBlock;
      const lastSlot = range?.lastSlot !== undefined ? slotNumber(range.lastSlot, 'range.lastSlot') : current;
      if (lastSlot < firstSlot) throw invalid(`lastSlot, ${lastSlot}, cannot be less than firstSlot, ${firstSlot}`);
      const produced =
        lastSlot < firstBlock ? 0 : ledger.blockSlots(firstSlot, lastSlot, Number(lastSlot - firstSlot + 1n)).length;
      const mine = c.identity === undefined || c.identity === identity;
      if (c.identity !== undefined) pubkey(c.identity, 'identity');
      return {
        context: context(c.commitment),
        value: {
          byIdentity: mine ? { [identity]: [Number(lastSlot - firstSlot + 1n), produced] } : {},
          range: { firstSlot: u64(firstSlot), lastSlot: u64(lastSlot) },
        },
      };
    }),
  ];
}
