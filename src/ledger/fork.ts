// Fork mode: an account the ledger does not hold is fetched from an upstream Solana RPC
// (getMultipleAccounts, base64, batches of 100) the first time a request needs it, and from then on
// lives locally. Accounts the upstream does not have either are remembered with the slot they were
// looked up at, so they are not asked for again (the last 100,000 of them: callers choose these keys).
import { parseJsonExact } from '../wire/index.js';
import { upstreamCall } from '../wire/index.js';
import { decodeBase58, encodeBase58 } from '../zk/base58.js';
import type { Ledger } from './ledger.js';

const BATCH = 100;
/** Keys remembered as missing upstream; the oldest are forgotten beyond (and asked for again). */
const MISSING_KEPT = 100_000;

/** An account as getMultipleAccounts / getAccountInfo answer it in base64 encoding. */
export interface UiAccount {
  lamports: number | bigint;
  data: [string, string];
  owner: string;
  executable: boolean;
  rentEpoch: number | bigint;
}

export class ForkSource {
  /** base58 → the upstream slot at which it was found missing. */
  private readonly missing = new Map<string, bigint>();

  constructor(
    private readonly ledger: Ledger,
    private readonly url: string,
    private readonly timeoutMs: number,
    private readonly missingKept = MISSING_KEPT,
  ) {}

  /** Fetches the keys the ledger does not hold yet. */
  async ensure(keys: readonly Uint8Array[]): Promise<void> {
    const want = new Map<string, Uint8Array>();
    for (const k of keys) {
      const id = encodeBase58(k);
      if (!this.missing.has(id) && !this.ledger.vm.getAccount(k)) want.set(id, k);
    }
    const ids = [...want.keys()];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const res = (await upstreamCall(
        this.url,
        'getMultipleAccounts',
        [batch, { encoding: 'base64', commitment: 'confirmed' }],
        this.timeoutMs,
        parseJsonExact,
      )) as { context: { slot: number | bigint }; value: (UiAccount | null)[] };
      const slot = BigInt(res.context.slot);
      this.ledger.importAccounts(
        batch.flatMap((id, j) => {
          const a = res.value[j];
          if (!a) {
            this.missing.set(id, slot);
            if (this.missing.size > this.missingKept) this.missing.delete(this.missing.keys().next().value!);
            return [];
          }
          return [
            {
              pubkey: want.get(id)!,
              account: {
                lamports: BigInt(a.lamports),
                data: new Uint8Array(Buffer.from(a.data[0], 'base64')),
                owner: decodeBase58(a.owner),
                executable: a.executable,
                rentEpoch: BigInt(a.rentEpoch),
              },
            },
          ];
        }),
      );
    }
  }
}
