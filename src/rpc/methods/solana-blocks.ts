// The blocks the embedded ledger produced (one per 400 ms slot, empty or not): getBlock and the
// slot-range methods, with Agave's params, defaults (commitment finalized), key order and errors.
import type { Ledger } from '../../ledger/index.js';
import { BlockNotAvailableError, InvalidParamsError } from '../errors.js';
import { u64 } from '../../wire/index.js';
import { args, config, invalid, raw, type CommonConfig } from './solana-params.js';
import { blockEntries, blockJson, BLOCK_DETAILS, parseTxView, type BlockDetails } from './transaction-json.js';
import { defineMethod, type MethodDef } from './types.js';
import { show } from '../validate.js';

/** Agave's MAX_GET_CONFIRMED_BLOCKS_RANGE. */
const MAX_RANGE = 500_000n;

function slotParam(v: unknown, what = 'slot'): bigint {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw invalid(`${what}: expected a slot number (u64), got ${show(v)}`);
  return BigInt(v);
}

/** The newest slot a call at this commitment sees blocks up to (blocks are written as their slot ends). */
function visibleSlot(ledger: Ledger, c: CommonConfig): bigint {
  if (c.commitment === 'processed')
    throw new InvalidParamsError('Method does not support commitment below `confirmed`');
  return ledger.slotAt(c.commitment ?? 'finalized');
}

export function solanaBlockMethods(ledger: Ledger): MethodDef[] {
  const m = <P>(name: string, call: (p: unknown[]) => P) =>
    defineMethod({ name, params: raw, call: (p: unknown[]) => call(p) });
  const blockAt = (slot: bigint, c: CommonConfig) => {
    const b = slot <= visibleSlot(ledger, c) ? ledger.block(slot) : undefined;
    if (!b) throw new BlockNotAvailableError(slot);
    return b;
  };
  const cfgOf = (v: unknown) => (typeof v === 'string' ? config({ encoding: v }) : config(v));

  return [
    m('getBlock', (p) => {
      const [s, cfg] = args(p, 'params', 1, 2);
      const slot = slotParam(s);
      const c = cfgOf(cfg);
      const details = c.transactionDetails ?? 'full';
      if (typeof details !== 'string' || !(BLOCK_DETAILS as readonly string[]).includes(details))
        throw invalid(`transactionDetails: expected one of ${BLOCK_DETAILS.join(', ')}, got ${show(details)}`);
      const rewards = c.rewards ?? true;
      if (typeof rewards !== 'boolean') throw invalid('rewards: expected a boolean');
      const view = parseTxView(c, rewards);
      const { header, signatures } = blockAt(slot, c);
      return blockJson(slot, header, blockEntries(ledger, signatures), details as BlockDetails, view);
    }),
    m('getBlockTime', (p) => {
      const [s] = args(p, 'params', 1, 1);
      return blockAt(slotParam(s), { commitment: 'confirmed' }).header.blockTime;
    }),
    m('getBlocks', (p) => {
      const [s, e, cfg] = args(p, 'params', 1, 3);
      // The end slot may be left out, or the config may take its place.
      const [endArg, cfgArg] = typeof e === 'object' && e !== null ? [undefined, e] : [e, cfg];
      const start = slotParam(s, 'start slot');
      const c = config(cfgArg);
      const visible = visibleSlot(ledger, c);
      const end = endArg === undefined || endArg === null ? visible : slotParam(endArg, 'end slot');
      if (end < start) return [];
      if (end - start > MAX_RANGE) throw invalid(`Slot range too large; max ${MAX_RANGE}`);
      const last = end < visible ? end : visible;
      return last < start ? [] : ledger.blockSlots(start, last, Number(last - start + 1n)).map(u64);
    }),
    m('getBlocksWithLimit', (p) => {
      const [s, l, cfg] = args(p, 'params', 2, 3);
      const start = slotParam(s, 'start slot');
      const limit = slotParam(l, 'limit');
      if (limit > MAX_RANGE) throw invalid(`Limit too large; max ${MAX_RANGE}`);
      const visible = visibleSlot(ledger, config(cfg));
      if (limit === 0n || visible < start) return [];
      return ledger.blockSlots(start, visible, Number(limit)).map(u64);
    }),
    m('getBlockCommitment', (p) => {
      const [s] = args(p, 'params', 1, 1);
      slotParam(s);
      // zkgate's ledger has no stake votes to tally: Agave's answer for a block without a commitment record.
      return { commitment: null, totalStake: 0 };
    }),
    m('getFirstAvailableBlock', (p) => {
      args(p, 'params', 0, 0);
      return u64(ledger.firstBlock() ?? ledger.slot);
    }),
    m('minimumLedgerSlot', (p) => {
      args(p, 'params', 0, 0);
      return u64(ledger.firstBlock() ?? ledger.slot);
    }),
  ];
}
