// The standard Solana RPC subset served from the embedded ledger, so real clients (@solana/kit,
// web3.js) can create the state they then simulate against. Shapes are a validator's.
import type { ForkSource, Ledger, ParsedTransaction } from '../../ledger/index.js';
import {
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  tokenAccountKeys,
  parseMessage,
  parseTransaction,
  toStored,
  txError,
  verifySignatures,
  withBlockhash,
} from '../../ledger/index.js';
import { accountJson } from '../../sim/index.js';
import { matchesFilters, parseFilters, type AccountFilter } from '../account-encoding.js';
import type { Check } from '../validate.js';
import { decodeBase58, encodeBase58 } from '../../zk/base58.js';
import { InvalidParamsError, TransactionRefusedError } from '../errors.js';
import { defineMethod, type MethodDef } from './types.js';
import type { QueueRoom } from './backends.js';
import {
  accountView,
  args,
  base58Bytes,
  config,
  invalid,
  pubkey,
  raw,
  renderAccount,
  sameBytes,
  type Commitment,
} from './solana-params.js';
import { parseTxView, transactionJson } from './transaction-json.js';
import { show } from '../validate.js';

// The faucet's bounds: a call, and the balance an airdrop may reach (every balance stays far below
// u64, and getSupply's sum saturates rather than exceed it).
const MAX_AIRDROP_LAMPORTS = 1_000_000_000_000_000;
const MAX_AIRDROP_BALANCE = 100_000_000_000_000_000n;

/**
 * simulateTransaction's `accounts.addresses`: an array of at most the transaction's account
 * count (Agave's limit), or none.
 */
function simulatedAddresses(cfg: unknown, max: number): unknown[] | undefined {
  if (cfg === undefined || cfg === null) return undefined;
  if (typeof cfg !== 'object' || Array.isArray(cfg))
    throw invalid(`accounts: expected an object with addresses, got ${show(cfg)}`);
  const { addresses } = cfg as { addresses?: unknown };
  if (addresses === undefined || addresses === null) return undefined;
  if (!Array.isArray(addresses))
    throw invalid(`accounts.addresses: expected an array of base58 addresses, got ${show(addresses)}`);
  if (addresses.length > max) throw invalid(`Too many accounts provided; max ${max}`);
  return addresses;
}

function decodeWire(v: unknown, encoding: string | undefined): ParsedTransaction {
  if (typeof v !== 'string') throw invalid('transaction: expected an encoded string');
  let bytes: Uint8Array;
  if (encoding === undefined || encoding === 'base58') {
    try {
      bytes = decodeBase58(v);
    } catch {
      throw invalid('invalid base58 encoding');
    }
  } else if (encoding === 'base64') bytes = new Uint8Array(Buffer.from(v, 'base64'));
  else throw invalid(`unsupported encoding: ${encoding}. Supported encodings: base58, base64`);
  try {
    return parseTransaction(bytes);
  } catch (e) {
    throw invalid(`failed to deserialize transaction: ${(e as Error).message}`);
  }
}

const MEMO_PROGRAMS = new Set([
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
]);

/** Agave's `memo` of a transaction: each memo instruction as "[len] text", joined by "; "; null if none. */
function memoOf(wireBase64: string): string | null {
  if (!wireBase64) return null;
  let tx: ParsedTransaction;
  try {
    tx = parseTransaction(new Uint8Array(Buffer.from(wireBase64, 'base64')));
  } catch {
    return null;
  }
  const memos = tx.instructions
    .filter((ix) => {
      const program = tx.staticKeys[ix.programIdIndex];
      return program !== undefined && MEMO_PROGRAMS.has(encodeBase58(program));
    })
    .map((ix) => {
      const text = Buffer.from(ix.data).toString('utf8');
      return `[${ix.data.length}] ${text}`;
    });
  return memos.length > 0 ? memos.join('; ') : null;
}

/** Light's batched-merkle-tree error: the queue batch being filled is full (waits for the forester). */
const BATCH_NOT_READY = 14301;
/**
 * How long sendTransaction waits for the forester to make room in a full queue, at most (room comes
 * when a queue batch is wholly inserted: up to five zkp batches, each a proof of seconds). The wait
 * ends sooner when the transaction's blockhash expires (150 slots: 60 s at the default 400 ms).
 */
const QUEUE_WAIT_MS = 180_000;

const queueFull = (err: unknown): boolean => {
  const ie = (err as { InstructionError?: [number, { Custom?: number }] } | null)?.InstructionError;
  return ie?.[1]?.Custom === BATCH_NOT_READY;
};

export function solanaMethods(
  ledger: Ledger,
  apiVersion: string,
  fork?: ForkSource,
  queueRoom?: QueueRoom,
): MethodDef[] {
  /** Fork mode: fetch what the ledger does not hold before reading or executing. */
  const need = async (keys: Uint8Array[]) => fork?.ensure(keys);
  const needTx = async (tx: ParsedTransaction) => {
    await need(tx.lookups.map((l) => l.table));
    await need(ledger.accountKeys(tx).keys);
  };
  const context = (c?: Commitment) => ({ slot: ledger.slotAt(c ?? 'finalized'), apiVersion });
  const m = <P>(name: string, params: Check<P>, call: (p: P) => unknown) => defineMethod({ name, params, call });

  const simulateOne = (tx: ParsedTransaction, sigVerify: boolean, replace: boolean) => {
    if (sigVerify && !verifySignatures(tx))
      return { err: txError('SignatureFailure'), logs: [], units: 0n, ret: null, post: [] };
    const latest = ledger.latestBlockhash();
    if (!replace && !ledger.isBlockhashValid(encodeBase58(tx.recentBlockhash)))
      return { err: txError('BlockhashNotFound'), logs: [], units: 0n, ret: null, post: [] };
    const r = ledger.simulate(tx, replace ? withBlockhash(tx, decodeBase58(latest.blockhash)) : tx.bytes);
    return { err: r.err, logs: r.logs, units: r.unitsConsumed, ret: r.returnData, post: r.postAccounts };
  };
  const returnDataJson = (ret: { programId: Uint8Array; data: Uint8Array } | null) =>
    ret ? { programId: encodeBase58(ret.programId), data: [Buffer.from(ret.data).toString('base64'), 'base64'] } : null;

  /**
   * The accounts getProgramAccounts looks at: the program's, or, for the usual token query (165-byte
   * accounts with an owner memcmp at 32), the token-owner index's, which holds exactly the
   * initialized token accounts of that owner (every account still goes through the filters).
   */
  const programCandidates = (program: Uint8Array, filters: AccountFilter[]): Uint8Array[] => {
    const isToken = sameBytes(program, TOKEN_PROGRAM) || sameBytes(program, TOKEN_2022_PROGRAM);
    const owner = filters.find((f) => f.kind === 'memcmp' && f.offset === 32 && f.bytes.length === 32);
    const sized = filters.some((f) => f.kind === 'dataSize' && f.size === 165);
    if (isToken && sized && owner?.kind === 'memcmp' && owner.bytes.some((b) => b !== 0))
      return ledger.indexes.tokenAccountsByOwner(owner.bytes);
    return ledger.indexes.programAccounts(program);
  };

  /** getTokenAccountsByOwner / …ByDelegate: `{mint}` or `{programId}` picks which, as Agave. */
  const tokenAccountsBy = (by: 'owner' | 'delegate', p: unknown) => {
    const [key, filter, cfg] = args(p, 'params', 2, 3);
    const who = pubkey(key, by);
    const c = config(cfg);
    const view = accountView(c, ledger);
    const f = filter as { mint?: unknown; programId?: unknown } | null;
    if (typeof f !== 'object' || f === null || Object.keys(f).length !== 1 || (!('mint' in f) && !('programId' in f)))
      throw invalid('token accounts filter: expected {"mint": <address>} or {"programId": <address>}');
    let program: Uint8Array | undefined;
    let mint: Uint8Array | undefined;
    if ('programId' in f) {
      program = pubkey(f.programId, 'programId');
      if (!sameBytes(program, TOKEN_PROGRAM) && !sameBytes(program, TOKEN_2022_PROGRAM))
        throw new InvalidParamsError('Invalid param: unrecognized Token program id');
    } else {
      mint = pubkey(f.mint, 'mint');
      const m = ledger.getAccount(mint);
      if (!m) throw new InvalidParamsError('Invalid param: could not find mint');
      program = m.owner;
    }
    const keys =
      by === 'owner' ? ledger.indexes.tokenAccountsByOwner(who) : ledger.indexes.tokenAccountsByDelegate(who);
    const value = [];
    for (const k of keys) {
      const a = ledger.getAccount(k);
      const t = a && tokenAccountKeys(a);
      if (!a || !t || !sameBytes(a.owner, program) || (mint && !sameBytes(t.mint, mint))) continue;
      const account = renderAccount(k, a, view)!;
      // Agave lists only the token accounts it could parse when asked for jsonParsed.
      if (view.encoding === 'jsonParsed' && Array.isArray(account.data)) continue;
      value.push({ pubkey: encodeBase58(k), account });
    }
    return { context: context(c.commitment), value };
  };

  return [
    m('getSlot', raw, (p) => ledger.slotAt(config(args(p, 'params', 0, 1)[0]).commitment)),
    m('getLatestBlockhash', raw, (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      return { context: context(c.commitment), value: ledger.latestBlockhash() };
    }),
    m('isBlockhashValid', raw, (p) => {
      const [hash, cfg] = args(p, 'params', 1, 2);
      if (typeof hash !== 'string') throw invalid('blockhash: expected a base58 string');
      const c = config(cfg);
      return { context: context(c.commitment), value: ledger.isBlockhashValid(hash) };
    }),
    m('getAccountInfo', raw, async (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const view = accountView(c, ledger);
      const k = pubkey(key);
      await need([k]);
      return { context: context(c.commitment), value: renderAccount(k, ledger.getAccount(k), view) };
    }),
    m('getMultipleAccounts', raw, async (p) => {
      const [keys, cfg] = args(p, 'params', 1, 2);
      if (!Array.isArray(keys)) throw invalid('pubkeys: expected an array of base58 strings');
      if (keys.length > 100) throw invalid(`Too many inputs provided; max 100`);
      const c = config(cfg);
      const view = accountView(c, ledger);
      const ks = keys.map((k) => pubkey(k));
      await need(ks);
      return { context: context(c.commitment), value: ks.map((k) => renderAccount(k, ledger.getAccount(k), view)) };
    }),
    m('getProgramAccounts', raw, async (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const view = accountView(c, ledger);
      const filters = parseFilters(c.filters);
      const program = pubkey(key, 'program id');
      // As getTokenAccountsByOwner: a token program's accounts in jsonParsed are those that parse.
      const parsedTokensOnly =
        view.encoding === 'jsonParsed' && (sameBytes(program, TOKEN_PROGRAM) || sameBytes(program, TOKEN_2022_PROGRAM));
      const value = [];
      for (const k of programCandidates(program, filters)) {
        const a = ledger.storedAccount(k);
        if (!a || !matchesFilters(a, filters)) continue;
        const account = renderAccount(k, a, view)!;
        if (parsedTokensOnly && Array.isArray(account.data)) continue;
        value.push({ pubkey: encodeBase58(k), account });
      }
      return c.withContext === true ? { context: context(c.commitment), value } : value;
    }),
    m('getTokenAccountsByOwner', raw, (p) => tokenAccountsBy('owner', p)),
    m('getTokenAccountsByDelegate', raw, (p) => tokenAccountsBy('delegate', p)),
    m('getSignaturesForAddress', raw, (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const address = pubkey(key, 'address');
      const c = config(cfg);
      if (c.commitment === 'processed')
        throw new InvalidParamsError('Method does not support commitment below `confirmed`');
      const limit = c.limit ?? 1000;
      if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
        throw invalid(`Invalid limit; max 1000, got ${show(c.limit)}`);
      const sig = (v: unknown, what: string) => (v === undefined || v === null ? undefined : base58Bytes(v, what, 64));
      const until = sig(c.until, 'until');
      let before = sig(c.before, 'before');
      const visible = ledger.slotAt(c.commitment ?? 'finalized');
      const out = [];
      // Signatures newer than the commitment's slot are skipped: page on until `limit` are found.
      while (out.length < limit) {
        const page = ledger.signaturesForAddress(address, {
          limit,
          ...(before ? { before } : {}),
          ...(until ? { until } : {}),
        });
        for (const { signature, record } of page) {
          const slot = BigInt(record.slot);
          if (slot > visible || out.length >= limit) continue;
          const age = ledger.slot - slot;
          out.push({
            signature: encodeBase58(signature),
            slot,
            err: record.err,
            memo: memoOf(record.tx),
            blockTime: record.blockTime,
            confirmationStatus: age >= 32n ? 'finalized' : 'confirmed',
          });
        }
        if (page.length < limit) break;
        before = page[page.length - 1]!.signature;
      }
      return out;
    }),
    m('getBalance', raw, async (p) => {
      const [key, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const k = pubkey(key);
      await need([k]);
      return { context: context(c.commitment), value: ledger.getAccount(k)?.lamports ?? 0n };
    }),
    m('getMinimumBalanceForRentExemption', raw, (p) => {
      const [len] = args(p, 'params', 0, 2);
      const n = len ?? 0;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0 || n > 10 * 1024 * 1024)
        throw invalid(`data length: expected an integer from 0 to 10485760, got ${show(len)}`);
      return ledger.minimumBalanceForRentExemption(n);
    }),
    // A faucet for every caller's chain: admin only (src/rpc/admin.ts).
    {
      ...m('requestAirdrop', raw, (p) => {
        const [key, lamports] = args(p, 'params', 2, 3);
        if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0)
          throw invalid(`lamports: expected a positive integer, got ${show(lamports)}`);
        if (lamports > MAX_AIRDROP_LAMPORTS)
          throw invalid(`lamports: at most ${MAX_AIRDROP_LAMPORTS} (1,000,000 SOL) per airdrop, got ${lamports}`);
        const k = pubkey(key);
        const balance = ledger.getAccount(k)?.lamports ?? 0n;
        if (balance + BigInt(lamports) > MAX_AIRDROP_BALANCE)
          throw invalid(
            `an airdrop may not take an account above ${MAX_AIRDROP_BALANCE} lamports (100,000,000 SOL): ${encodeBase58(k)} holds ${balance}`,
          );
        return encodeBase58(ledger.airdrop(k, BigInt(lamports)));
      }),
      admin: true,
    },
    m('sendTransaction', raw, async (p) => {
      const [wire, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const tx = decodeWire(wire, c.encoding);
      await needTx(tx);
      if (!verifySignatures(tx))
        throw new TransactionRefusedError(
          'signature_verification_failure',
          'Transaction signature verification failure',
        );
      if (c.skipPreflight !== true) {
        let r = simulateOne(tx, false, false);
        // The localnet queues hold a few zkp batches, and a forester proving on a laptop's cores is
        // slower than a client sending back to back: with the forester on, a transaction refused
        // only because a queue is full waits for it to make room, instead of failing.
        for (const until = Date.now() + QUEUE_WAIT_MS; r.err && queueRoom && queueFull(r.err.json);) {
          if (!(await queueRoom(until - Date.now()))) break;
          const next = simulateOne(tx, false, false);
          // A blockhash that expired while waiting: the refusal's reason is still the full queue.
          if (next.err?.json === 'BlockhashNotFound') break;
          r = next;
        }
        if (r.err)
          throw new TransactionRefusedError('preflight_failure', `Transaction simulation failed: ${r.err.display}`, {
            accounts: null,
            err: r.err.json,
            innerInstructions: null,
            loadedAccountsDataSize: null,
            logs: r.logs,
            replacementBlockhash: null,
            returnData: returnDataJson(r.ret),
            unitsConsumed: r.units,
          });
      } else if (!ledger.isBlockhashValid(encodeBase58(tx.recentBlockhash))) {
        // A validator would drop it silently; answering the signature of a transaction that never
        // lands only makes clients wait: say why instead.
        throw new TransactionRefusedError('preflight_failure', 'Transaction simulation failed: Blockhash not found', {
          err: 'BlockhashNotFound',
          logs: [],
        });
      }
      return encodeBase58(ledger.send(tx).signature);
    }),
    m('simulateTransaction', raw, async (p) => {
      const [wire, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      const tx = decodeWire(wire, c.encoding);
      await needTx(tx);
      const sigVerify = c.sigVerify === true;
      const replace = c.replaceRecentBlockhash === true;
      if (sigVerify && replace) throw invalid('sigVerify may not be used with replaceRecentBlockhash');
      const addresses = simulatedAddresses(c.accounts, ledger.accountKeys(tx).keys.length);
      const r = simulateOne(tx, sigVerify, replace);
      let accounts: unknown = null;
      if (addresses) {
        const post = new Map(r.post.map((x) => [encodeBase58(x.pubkey), toStored(x.account)]));
        accounts = addresses.map((a) => {
          const k = pubkey(a, 'account address');
          const acc = post.get(encodeBase58(k)) ?? ledger.getAccount(k);
          return acc && acc.lamports > 0n ? accountJson(acc) : null;
        });
      }
      const latest = ledger.latestBlockhash();
      return {
        context: context(c.commitment),
        value: {
          err: r.err?.json ?? null,
          logs: r.logs,
          accounts,
          unitsConsumed: r.units,
          returnData: returnDataJson(r.ret),
          replacementBlockhash: replace ? latest : null,
        },
      };
    }),
    m('getSignatureStatuses', raw, (p) => {
      const [sigs] = args(p, 'params', 1, 2);
      if (!Array.isArray(sigs)) throw invalid('signatures: expected an array of base58 strings');
      if (sigs.length > 256) throw invalid('Too many inputs provided; max 256');
      return {
        context: context('processed'),
        value: sigs.map((s) => {
          const rec = ledger.transaction(base58Bytes(s, 'signature', 64));
          if (!rec) return null;
          const age = ledger.slot - BigInt(rec.slot);
          const finalized = age >= 32n;
          return {
            slot: BigInt(rec.slot),
            confirmations: finalized ? null : Number(age),
            err: rec.err,
            confirmationStatus: finalized ? 'finalized' : age >= 1n ? 'confirmed' : 'processed',
            status: rec.err === null ? { Ok: null } : { Err: rec.err },
          };
        }),
      };
    }),
    m('getTransaction', raw, (p) => {
      const [sig, cfg] = args(p, 'params', 1, 2);
      const c = typeof cfg === 'string' ? { encoding: cfg } : config(cfg);
      return transactionJson(ledger, base58Bytes(sig, 'signature', 64), parseTxView(c));
    }),
    m('getEpochInfo', raw, (p) => {
      const c = config(args(p, 'params', 0, 1)[0]);
      const slot = ledger.slotAt(c.commitment ?? 'finalized');
      const slotsInEpoch = 432_000n;
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: slot / slotsInEpoch,
        slotIndex: slot % slotsInEpoch,
        slotsInEpoch,
        transactionCount: ledger.transactionCount(),
      };
    }),
    // One block per slot: the block height is the slot (lastValidBlockHeight counts the same way).
    m('getBlockHeight', raw, (p) => ledger.slotAt(config(args(p, 'params', 0, 1)[0]).commitment ?? 'finalized')),
    m('getGenesisHash', raw, (p) => {
      args(p, 'params', 0, 0);
      return ledger.genesisHash;
    }),
    m('getTransactionCount', raw, (p) => {
      config(args(p, 'params', 0, 1)[0]);
      return ledger.transactionCount();
    }),
    m('getFeeForMessage', raw, (p) => {
      const [msg, cfg] = args(p, 'params', 1, 2);
      const c = config(cfg);
      if (typeof msg !== 'string') throw invalid('message: expected a base64 string');
      let tx: ParsedTransaction;
      try {
        tx = parseMessage(new Uint8Array(Buffer.from(msg, 'base64')));
      } catch (e) {
        throw invalid(`failed to deserialize message: ${(e as Error).message}`);
      }
      const valid = ledger.isBlockhashValid(encodeBase58(tx.recentBlockhash));
      return { context: context(c.commitment), value: valid ? ledger.fee(tx) : null };
    }),
  ];
}
