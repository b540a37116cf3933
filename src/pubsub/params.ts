// The websocket methods' params, checked once into subscription specs, as Agave's rpc_pubsub takes
// them (defaults included: commitment finalized, account encoding binary).
import type { Commitment } from '../ledger/index.js';
import {
  parseEncodingAndSlice,
  parseFilters,
  type AccountEncoding,
  type AccountFilter,
  type DataSlice,
} from '../rpc/account-encoding.js';
import { base58Bytes, invalid } from '../rpc/methods/solana-params.js';
import { InvalidParamsError } from '../rpc/errors.js';
import { BLOCK_DETAILS, parseTxView, type BlockDetails, type TxView } from '../rpc/methods/transaction-json.js';
import { show } from '../rpc/validate.js';

export type SubscriptionSpec = { method: string; commitment: Commitment } & (
  | { kind: 'account'; pubkey: string; encoding: AccountEncoding; dataSlice?: DataSlice }
  | {
      kind: 'program';
      program: string;
      encoding: AccountEncoding;
      dataSlice?: DataSlice;
      filters: AccountFilter[];
    }
  | { kind: 'logs'; mentions?: string }
  | { kind: 'signature'; signature: string; enableReceivedNotification: boolean }
  | { kind: 'slot' }
  | { kind: 'root' }
  | { kind: 'slotsUpdates' }
  | { kind: 'block'; mentions?: string; details: BlockDetails; view: TxView }
);

const COMMITMENTS: readonly string[] = ['processed', 'confirmed', 'finalized'];

function list(params: unknown, min: number, max: number): unknown[] {
  const p = params === undefined || params === null ? [] : params;
  if (!Array.isArray(p)) throw invalid(`expected an array of params, got ${show(p)}`);
  if (p.length < min) throw invalid(`expected at least ${min} params, got ${p.length}`);
  if (p.length > max) throw invalid(`expected at most ${max} params, got ${p.length}`);
  return p;
}

function cfg(v: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`config: expected an object, got ${show(v)}`);
  for (const k of Object.keys(v))
    if (!allowed.includes(k))
      throw invalid(`unknown field \`${k}\`, expected one of ${allowed.map((a) => `\`${a}\``).join(', ')}`);
  return v as Record<string, unknown>;
}

function commitment(v: unknown): Commitment {
  if (v === undefined || v === null) return 'finalized';
  if (typeof v === 'string' && COMMITMENTS.includes(v)) return v as Commitment;
  throw invalid(`unknown commitment ${show(v)}, expected one of processed, confirmed, finalized`);
}

/** The base58 string itself, once checked to hold `len` bytes. */
function key(v: unknown, what: string, len = 32): string {
  base58Bytes(v, what, len);
  return v as string;
}

const ACCOUNT_CONFIG = ['commitment', 'encoding', 'dataSlice', 'minContextSlot'];

type Parser = (params: unknown) => SubscriptionSpec;

/** Every subscribe method by name; its unsubscribe is the same name with Unsubscribe. */
export const SUBSCRIBE_METHODS: Record<string, Parser> = {
  accountSubscribe: (params) => {
    const [k, c] = list(params, 1, 2);
    const o = cfg(c, ACCOUNT_CONFIG);
    const { encoding, dataSlice } = parseEncodingAndSlice(o.encoding, o.dataSlice);
    return {
      method: 'accountSubscribe',
      kind: 'account',
      pubkey: key(k, 'pubkey'),
      commitment: commitment(o.commitment),
      encoding,
      ...(dataSlice ? { dataSlice } : {}),
    };
  },
  programSubscribe: (params) => {
    const [k, c] = list(params, 1, 2);
    const o = cfg(c, [...ACCOUNT_CONFIG, 'filters', 'withContext']);
    const { encoding, dataSlice } = parseEncodingAndSlice(o.encoding, o.dataSlice);
    return {
      method: 'programSubscribe',
      kind: 'program',
      program: key(k, 'program id'),
      commitment: commitment(o.commitment),
      encoding,
      filters: parseFilters(o.filters),
      ...(dataSlice ? { dataSlice } : {}),
    };
  },
  logsSubscribe: (params) => {
    const [filter, c] = list(params, 1, 2);
    const o = cfg(c, ['commitment']);
    let mentions: string | undefined;
    if (filter === 'all' || filter === 'allWithVotes') mentions = undefined;
    else if (
      typeof filter === 'object' &&
      filter !== null &&
      Array.isArray((filter as { mentions?: unknown }).mentions)
    ) {
      const m = (filter as { mentions: unknown[] }).mentions;
      if (m.length !== 1) throw invalid(`Invalid Request: Only 1 address supported, got ${m.length}`);
      mentions = key(m[0], 'mentions address');
    } else throw invalid(`logs filter: expected "all", "allWithVotes" or {"mentions": [address]}, got ${show(filter)}`);
    return {
      method: 'logsSubscribe',
      kind: 'logs',
      commitment: commitment(o.commitment),
      ...(mentions ? { mentions } : {}),
    };
  },
  signatureSubscribe: (params) => {
    const [sig, c] = list(params, 1, 2);
    const o = cfg(c, ['commitment', 'enableReceivedNotification']);
    if (o.enableReceivedNotification !== undefined && typeof o.enableReceivedNotification !== 'boolean')
      throw invalid('enableReceivedNotification: expected a boolean');
    return {
      method: 'signatureSubscribe',
      kind: 'signature',
      signature: key(sig, 'signature', 64),
      commitment: commitment(o.commitment),
      enableReceivedNotification: o.enableReceivedNotification === true,
    };
  },
  slotSubscribe: (params) => {
    list(params, 0, 0);
    return { method: 'slotSubscribe', kind: 'slot', commitment: 'processed' };
  },
  rootSubscribe: (params) => {
    list(params, 0, 0);
    return { method: 'rootSubscribe', kind: 'root', commitment: 'processed' };
  },
  blockSubscribe: (params) => {
    const [filter, c] = list(params, 1, 2);
    const o = cfg(c, ['commitment', 'encoding', 'transactionDetails', 'showRewards', 'maxSupportedTransactionVersion']);
    let mentions: string | undefined;
    if (filter === 'all') mentions = undefined;
    else if (typeof filter === 'object' && filter !== null && 'mentionsAccountOrProgram' in filter)
      mentions = key(
        (filter as { mentionsAccountOrProgram: unknown }).mentionsAccountOrProgram,
        'mentionsAccountOrProgram',
      );
    else throw invalid(`block filter: expected "all" or {"mentionsAccountOrProgram": address}, got ${show(filter)}`);
    const at = commitment(o.commitment);
    if (at === 'processed') throw new InvalidParamsError('Method does not support commitment below `confirmed`');
    const details = o.transactionDetails ?? 'full';
    if (typeof details !== 'string' || !(BLOCK_DETAILS as readonly string[]).includes(details))
      throw invalid(`transactionDetails: expected one of ${BLOCK_DETAILS.join(', ')}, got ${show(details)}`);
    const showRewards = o.showRewards ?? false;
    if (typeof showRewards !== 'boolean') throw invalid('showRewards: expected a boolean');
    // Agave's defaults here: base64 transactions, no rewards.
    const view = parseTxView(
      {
        encoding: (o.encoding ?? 'base64') as string,
        maxSupportedTransactionVersion: o.maxSupportedTransactionVersion,
      },
      showRewards,
    );
    return {
      method: 'blockSubscribe',
      kind: 'block',
      commitment: at,
      ...(mentions ? { mentions } : {}),
      details: details as BlockDetails,
      view,
    };
  },
  slotsUpdatesSubscribe: (params) => {
    list(params, 0, 0);
    return { method: 'slotsUpdatesSubscribe', kind: 'slotsUpdates', commitment: 'processed' };
  },
};

/** The id an …Unsubscribe names. */
export function subscriptionId(params: unknown): number {
  const [id] = list(params, 1, 1);
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0)
    throw invalid(`subscription id: expected a non-negative integer, got ${show(id)}`);
  return id;
}
