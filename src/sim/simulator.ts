// simulateBundle on the embedded ledger, as Jito's RPC does it (simulate-bundle.md): request
// checks in Jito's order with its messages, then the transactions one at a time on an overlay of
// the ledger's state (each sees the writes of the ones before), stopping at the first failure.
// Nothing is committed: the overlay lives in the VM only for the duration of one synchronous run
// and every account it touched is restored before the call returns, so concurrent simulations and
// the ledger never see each other's writes.
import { createHash } from 'node:crypto';
import { litesvm, type Account } from '../ledger/vm.js';
import {
  ClusterBank,
  ForkSource,
  Ledger,
  type ClusterView,
  MAX_PROCESSING_AGE,
  PACKET_DATA_SIZE,
  parseTransaction,
  txError,
  verifySignatures,
  withBlockhash,
  type ParsedTransaction,
  type SolanaTxError,
  type StoredAccount,
} from '../ledger/index.js';
import type { SimulateBundleParams } from './params.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import { u64 } from '../wire/index.js';
import { accountJson, EMPTY_ACCOUNT } from './account-json.js';
import { BundleRejectedError } from './errors.js';
import { truncateLogs } from './logs.js';

export const MAX_BUNDLE_TRANSACTIONS = 20;
const MAX_ENCODED = 1644;
const ACCOUNT_LOCK_LIMIT = 64;
/** Jito: MAX_PROCESSING_AGE − MAX_TRANSACTION_FORWARDING_DELAY. */
const BUNDLE_MAX_AGE = MAX_PROCESSING_AGE - 6;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const reject = (msg: string) => new BundleRejectedError(msg);

/** Rust base64's DecodeError Debug text for a string that is not valid base64. */
function base64Error(s: string): string {
  const body = s.replace(/=+$/, '');
  for (let i = 0; i < body.length; i++) {
    if (!/[A-Za-z0-9+/]/.test(body[i]!)) return `InvalidByte(${i}, ${body.charCodeAt(i)})`;
  }
  if (s.length % 4 !== 0 && body.length % 4 === 1) return 'InvalidLength';
  return 'InvalidPadding';
}

function decodeTransaction(s: string): ParsedTransaction {
  const ty = 'solana_transaction::versioned::VersionedTransaction';
  if (s.length > MAX_ENCODED)
    throw reject(
      `base64 encoded ${ty} too large: ${s.length} bytes (max: encoded/raw ${MAX_ENCODED}/${PACKET_DATA_SIZE})`,
    );
  if (!BASE64.test(s) || (s.length % 4 !== 0 && !/^[A-Za-z0-9+/]*$/.test(s)) || s.replace(/=+$/, '').length % 4 === 1)
    throw reject(`invalid base64 encoding: ${base64Error(s)}`);
  const bytes = new Uint8Array(Buffer.from(s, 'base64'));
  if (bytes.length > PACKET_DATA_SIZE)
    throw reject(`decoded ${ty} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`);
  try {
    return parseTransaction(bytes);
  } catch (e) {
    throw reject(`failed to deserialize ${ty}: ${(e as Error).message}`);
  }
}

interface Config {
  pre: ({ addresses: string[] } | null)[];
  post: ({ addresses: string[] } | null)[];
  bank: NonNullable<NonNullable<SimulateBundleParams['config']>['simulationBank']>;
  skipSigVerify: boolean;
  replaceRecentBlockhash: boolean;
}

export class BundleSimulator {
  private readonly on: Ledger | ClusterBank;
  private readonly fork: ForkSource | undefined;
  private get bank(): ClusterBank | undefined {
    return this.on instanceof ClusterBank ? this.on : undefined;
  }
  /** The ledger bundles run on (a ClusterBank's opens on the first). */
  private get ledger(): Ledger {
    return this.on instanceof ClusterBank ? this.on.ledger : this.on;
  }

  /**
   * On the embedded ledger (with accounts it lacks from `--fork-url`), or on a followed cluster's
   * state: a ClusterBank's scratch ledger, loaded from the cluster before each bundle.
   */
  constructor(
    on: Ledger | ClusterBank,
    private readonly apiVersion: string,
    fork?: ForkSource,
  ) {
    this.on = on;
    this.fork = fork;
  }

  async simulateBundle({ request, config }: SimulateBundleParams): Promise<unknown> {
    const encoded = request.encodedTransactions;
    // 1. size first
    if (encoded.length > MAX_BUNDLE_TRANSACTIONS)
      throw reject(`bundle size too large, max ${MAX_BUNDLE_TRANSACTIONS} transactions`);
    // 2. defaults
    const n = encoded.length;
    const cfg: Config = {
      pre: config?.preExecutionAccountsConfigs ?? Array<null>(n).fill(null),
      post: config?.postExecutionAccountsConfigs ?? Array<null>(n).fill(null),
      bank: config?.simulationBank ?? { commitment: { commitment: 'confirmed' } },
      skipSigVerify: config?.skipSigVerify ?? false,
      replaceRecentBlockhash: config?.replaceRecentBlockhash ?? false,
    };
    // 3-6. lengths and encodings
    if (cfg.pre.length !== n || cfg.post.length !== n)
      throw reject('pre/post_execution_accounts_configs must be equal in length to the number of transactions');
    if (config?.transactionEncoding !== undefined && config.transactionEncoding !== 'base64')
      throw reject('Base64 is the only supported encoding for transactions');
    const encodingOf = (c: unknown) => (c as { encoding?: string } | null)?.encoding;
    if (cfg.pre.some((c) => encodingOf(c) !== undefined && encodingOf(c) !== 'base64'))
      throw reject('Base64 is the only supported encoding for pre-execution accounts');
    if (cfg.post.some((c) => encodingOf(c) !== undefined && encodingOf(c) !== 'base64'))
      throw reject('Base64 is the only supported encoding for post-execution accounts');
    // 7. decode
    const txs = encoded.map(decodeTransaction);
    // 8. duplicates: identical message bytes
    const seen = new Set<string>();
    for (const tx of txs) {
      const h = createHash('sha256').update(tx.message).digest('hex');
      if (seen.has(h)) throw reject('duplicate transactions');
      seen.add(h);
    }
    // 9. the bank: zkgate holds one state, the current slot's; commitments label it (a followed
    // cluster's state: the slot it was read at, below).
    const bank = cfg.bank;
    const slot = this.bank
      ? undefined
      : this.atSlot(
          bank,
          bank !== 'tip' && 'commitment' in bank ? this.ledger.slotAt(bank.commitment.commitment) : this.ledger.slot,
        );
    // 10. account lists
    for (const c of [...cfg.pre, ...cfg.post])
      if (c && c.addresses.length > ACCOUNT_LOCK_LIMIT)
        throw reject(`Too many accounts provided; max ${ACCOUNT_LOCK_LIMIT}`);
    // 11. blockhash replacement needs skipped signature checks
    if (cfg.replaceRecentBlockhash && !cfg.skipSigVerify)
      throw reject('replace_recent_blockhash cannot be used with !skip_sig_verify');
    if (this.bank) {
      const commitment = bank !== 'tip' && 'commitment' in bank ? bank.commitment.commitment : 'processed';
      return this.bank.run(txs, requestedKeys([...cfg.pre, ...cfg.post]), commitment, (view) =>
        this.finish(txs, cfg, this.atSlot(bank, this.ledger.slot), view),
      );
    }
    if (this.fork) await this.prefetch(this.fork, txs, [...cfg.pre, ...cfg.post]);
    return this.finish(txs, cfg, slot!);
  }

  /** The bank's slot: `slot` unless the request names another, which zkgate does not hold. */
  private atSlot(bank: Config['bank'], slot: bigint): bigint {
    if (bank !== 'tip' && 'slot' in bank && BigInt(bank.slot) !== this.ledger.slot)
      throw reject(`bank not found for the provided slot: ${bank.slot}`);
    return slot;
  }

  /** Steps 12 on, once the bank holds what the bundle reads: nothing is awaited from here. */
  private finish(txs: ParsedTransaction[], cfg: Config, slot: bigint, view?: ClusterView) {
    // 12. sanitize against the bank: lookup tables must exist
    for (const tx of txs) {
      for (const l of tx.lookups) {
        if (!this.ledger.getAccount(l.table))
          throw reject("invalid transaction: Transaction loads an address table account that doesn't exist");
      }
    }
    // 13. signatures, all before any execution
    if (!cfg.skipSigVerify && !txs.every(verifySignatures))
      throw reject('transaction signature is invalid: Transaction did not pass signature verification');
    // 14. pre/post addresses
    const parse = (list: ({ addresses: string[] } | null)[]) =>
      list.map((c) =>
        c
          ? c.addresses.map((a) => {
              let b: Uint8Array | undefined;
              try {
                b = decodeBase58(a);
              } catch {
                b = undefined;
              }
              if (!b || b.length !== 32) throw reject(`invalid pubkey for pre/post accounts provided: ${a}`);
              return b;
            })
          : null,
      );
    const preKeys = parse(cfg.pre);
    const postKeys = parse(cfg.post);
    return {
      context: { slot: u64(slot), apiVersion: this.apiVersion },
      value: this.execute(txs, preKeys, postKeys, cfg.replaceRecentBlockhash, view),
    };
  }

  /** Fork mode: every account the bundle may read, fetched before anything runs. */
  private async prefetch(fork: ForkSource, txs: ParsedTransaction[], lists: ({ addresses: string[] } | null)[]) {
    await fork.ensure(txs.flatMap((tx) => tx.lookups.map((l) => l.table)));
    await fork.ensure([...txs.flatMap((tx) => this.ledger.accountKeys(tx).keys), ...requestedKeys(lists)]);
  }

  private execute(
    txs: ParsedTransaction[],
    preKeys: (Uint8Array[] | null)[],
    postKeys: (Uint8Array[] | null)[],
    replace: boolean,
    view?: ClusterView,
  ) {
    const vm = this.ledger.vm;
    // The overlay: transactions execute for real in the VM; every account they may write is
    // remembered (on first touch) and put back when the run ends.
    const originals = new Map<string, { key: Uint8Array; account: Account | null }>();
    const remember = (k: Uint8Array) => {
      const id = Buffer.from(k).toString('hex');
      if (!originals.has(id)) originals.set(id, { key: k, account: vm.getAccount(k) });
    };
    const json = (k: Uint8Array) => accountJson(this.ledger.getAccount(k) ?? EMPTY_ACCOUNT);
    const results: unknown[] = [];
    let summary: unknown = 'succeeded';
    const latest = this.ledger.latestBlockhash();
    const latestBytes = replace ? decodeBase58(latest.blockhash) : undefined;
    try {
      for (const [i, tx] of txs.entries()) {
        const bytes = latestBytes ? withBlockhash(tx, latestBytes) : tx.bytes;
        const { keys, writableLookups, readonlyLookups } = this.ledger.accountKeys(tx);
        // A null account config answers null for that transaction (simulate-bundle.md §4.1 rule 3), not [].
        const pre = preKeys[i]?.map(json) ?? null;
        const preBalances = keys.map((k) => vm.getBalance(k) ?? 0n);
        let err: SolanaTxError | null = null;
        let logs: string[] = [];
        let units = 0n;
        let returnData: unknown = null;
        let fee: bigint | null = null;
        const blockhashValid = view
          ? view.blockhashValid(tx.recentBlockhash)
          : this.ledger.isBlockhashBytesValid(tx.recentBlockhash, BUNDLE_MAX_AGE);
        if (!replace && !blockhashValid) {
          err = txError('BlockhashNotFound');
        } else if (view ? view.processed(tx.signatures[0]!) : this.ledger.isRecentSignature(tx.signatures[0]!)) {
          err = txError('AlreadyProcessed');
        } else {
          for (const k of this.ledger.writableKeys(tx, writableLookups)) remember(k);
          const r = this.ledger.executeInVm(tx, bytes);
          err = r.err;
          logs = r.logs;
          units = r.unitsConsumed;
          returnData = r.returnData
            ? {
                programId: encodeBase58(r.returnData.programId),
                data: [Buffer.from(r.returnData.data).toString('base64'), 'base64'],
              }
            : null;
          // A transaction that ran (succeeded or failed executing) paid its fee; one that never
          // loaded (unknown payer, bad blockhash, …) did not.
          if (!r.err || isExecutionError(r.err)) fee = r.fee;
        }
        const post = postKeys[i]?.map(json) ?? null;
        const postBalances = keys.map((k) => vm.getBalance(k) ?? 0n);
        results.push({
          err: err?.json ?? null,
          logs: truncateLogs(logs),
          preExecutionAccounts: pre,
          postExecutionAccounts: post,
          unitsConsumed: u64(units),
          returnData,
          replacementBlockhash: replace
            ? { blockhash: latest.blockhash, lastValidBlockHeight: u64(latest.lastValidBlockHeight) }
            : null,
          fee: fee === null ? null : u64(fee),
          preBalances: preBalances.map(u64),
          postBalances: postBalances.map(u64),
          loadedAddresses: { writable: writableLookups.map(encodeBase58), readonly: readonlyLookups.map(encodeBase58) },
        });
        if (err) {
          summary = {
            failed: {
              error: { TransactionFailure: [[...tx.signatures[0]!], err.display] },
              tx_signature: encodeBase58(tx.signatures[0]!),
            },
          };
          break;
        }
      }
    } finally {
      for (const { key, account } of originals.values()) vm.setAccount(key, account ?? toVmAccount(EMPTY_ACCOUNT));
    }
    return { summary, transactionResults: results };
  }
}

/** The pre/post addresses that read as keys (the others are refused later, naming them). */
function requestedKeys(lists: ({ addresses: string[] } | null)[]): Uint8Array[] {
  return lists.flatMap((c) =>
    (c?.addresses ?? []).flatMap((a) => {
      try {
        const b = decodeBase58(a);
        return b.length === 32 ? [b] : [];
      } catch {
        return [];
      }
    }),
  );
}

/** Errors of transactions that ran (and so paid their fee), as opposed to ones that never loaded. */
function isExecutionError(e: SolanaTxError): boolean {
  const j = e.json as object | string;
  return (
    typeof j === 'object' && ('InstructionError' in j || 'InsufficientFundsForRent' in j || 'DuplicateInstruction' in j)
  );
}

const toVmAccount = (a: StoredAccount) => new litesvm.Account(a.lamports, a.data, a.owner, a.executable, a.rentEpoch);
