// Agave account-decoder jsonParsed forms: account bytes built by hand (or with @solana/spl-token's
// layouts), compared as whole objects and as serialized JSON, so key order is checked too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AccountLayout,
  InterestBearingMintConfigStateLayout,
  MintLayout,
  MultisigLayout,
  ScaledUiAmountConfigLayout,
  TransferFeeConfigLayout,
} from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { stringifyJson } from '../../src/wire/index.js';
import {
  isTokenProgram,
  parseAccountData,
  type AccountParseContext,
  type ParsedAccount,
} from '../../src/rpc/parsed/accounts/index.js';

// ---------------------------------------------------------------------------------------------
// Byte building

class Bytes {
  private readonly parts: number[] = [];
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    return this.raw(le(BigInt(v), 2));
  }
  u32(v: number): this {
    return this.raw(le(BigInt(v), 4));
  }
  u64(v: bigint | number): this {
    return this.raw(le(BigInt(v), 8));
  }
  i64(v: bigint | number): this {
    return this.raw(le(BigInt.asUintN(64, BigInt(v)), 8));
  }
  u128(v: bigint): this {
    return this.raw(le(v, 16));
  }
  f64(v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    return this.raw(b);
  }
  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }
  key(k: PublicKey): this {
    return this.raw(k.toBytes());
  }
  raw(b: Uint8Array | number[]): this {
    for (const x of b) this.parts.push(x);
    return this;
  }
  zeros(n: number): this {
    return this.raw(new Array<number>(n).fill(0));
  }
  /** bincode String / Vec<u8>. */
  bincodeString(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u64(b.length).raw(b);
  }
  borshString(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u32(b.length).raw(b);
  }
  get length(): number {
    return this.parts.length;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

function le(v: bigint, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
  return out;
}

const bytes = () => new Bytes();
const encode = (layout: { span: number; encode(v: unknown, b: Buffer): number }, value: unknown): Uint8Array => {
  const b = Buffer.alloc(layout.span);
  layout.encode(value, b);
  return Uint8Array.from(b);
};

/** A pubkey filled with `n` (0 is the default pubkey). */
const key = (n: number) => new PublicKey(new Uint8Array(32).fill(n));
const b58 = (n: number) => key(n).toBase58();
const b64 = (b: Uint8Array | number[]) => Buffer.from(Uint8Array.from(b)).toString('base64');

// ---------------------------------------------------------------------------------------------
// Programs and context

const SYSTEM = new PublicKey('11111111111111111111111111111111');
const VOTE = new PublicKey('Vote111111111111111111111111111111111111111');
const STAKE = new PublicKey('Stake11111111111111111111111111111111111111');
const CONFIG = new PublicKey('Config1111111111111111111111111111111111111');
const SYSVAR = new PublicKey('Sysvar1111111111111111111111111111111111111');
const LOADER = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
const ALT = new PublicKey('AddressLookupTab1e1111111111111111111111111');
const TOKEN = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const TOKEN_2022 = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
const NATIVE_MINT = new PublicKey('So11111111111111111111111111111111111111112');

const NOW = 1_700_000_000n;

function context(accounts: [PublicKey, PublicKey, Uint8Array][] = []): AccountParseContext & { clockReads: number } {
  const map = new Map(accounts.map(([k, owner, data]) => [k.toBase58(), { owner: owner.toBytes(), data }]));
  const ctx = {
    clockReads: 0,
    accountData: (pubkey: Uint8Array) => map.get(new PublicKey(pubkey).toBase58()),
    unixTimestamp: () => {
      ctx.clockReads++;
      return NOW;
    },
  };
  return ctx;
}

function parse(
  pubkey: PublicKey,
  owner: PublicKey,
  data: Uint8Array,
  ctx: AccountParseContext = context(),
): ParsedAccount | undefined {
  return parseAccountData(pubkey.toBytes(), owner.toBytes(), data, ctx);
}

/** Same value and same serialized JSON (key order included). */
/**
 * Expectations are written in the Rust structs' field order; on the wire Agave's `parsed` values are
 * serde_json Values (BTreeMaps), so their keys come out sorted at every depth (ParsedAccount itself
 * is a struct: program, parsed, space).
 */
function same(actual: unknown, expected: unknown): void {
  assert.deepStrictEqual(actual, expected);
  const e = expected as ParsedAccount | undefined;
  const wire =
    e && typeof e === 'object' && 'program' in e ? { ...e, parsed: sortedDeep(e.parsed) } : sortedDeep(expected);
  assert.equal(stringifyJson(actual), stringifyJson(wire));
}

/** The test's own deep key sort (kept apart from the code under test). */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedDeep((v as Record<string, unknown>)[k])]),
  );
}

/** Every proper prefix of a parsable account must come back undefined or parsed, never throw. */
function truncationsNeverThrow(pubkey: PublicKey, owner: PublicKey, data: Uint8Array, ctx?: AccountParseContext) {
  for (let n = 0; n < data.length; n++) {
    assert.doesNotThrow(() => parse(pubkey, owner, data.subarray(0, n), ctx), `prefix of ${n} bytes`);
  }
}

// ---------------------------------------------------------------------------------------------
// Nonce

describe('nonce (system program)', () => {
  const nonce = (state: number) => bytes().u32(1).u32(state).key(key(7)).key(key(8)).u64(5000).done();

  test('initialized nonce account', () => {
    const data = nonce(1);
    assert.equal(data.length, 80);
    same(parse(key(1), SYSTEM, data), {
      program: 'nonce',
      parsed: {
        type: 'initialized',
        info: { authority: b58(7), blockhash: b58(8), feeCalculator: { lamportsPerSignature: '5000' } },
      },
      space: 80,
    });
  });

  test('legacy version is shown the same way', () => {
    const data = bytes().u32(0).u32(1).key(key(7)).key(key(8)).u64(0).done();
    assert.equal((parse(key(1), SYSTEM, data)?.parsed as { type: string }).type, 'initialized');
  });

  test('uninitialized nonce, plain wallets and bad versions are not parsable', () => {
    assert.equal(parse(key(1), SYSTEM, new Uint8Array(80)), undefined);
    assert.equal(parse(key(1), SYSTEM, new Uint8Array(0)), undefined);
    assert.equal(parse(key(1), SYSTEM, bytes().u32(2).u32(1).key(key(7)).key(key(8)).u64(0).done()), undefined);
    truncationsNeverThrow(key(1), SYSTEM, nonce(1));
  });
});

// ---------------------------------------------------------------------------------------------
// SPL Token

const MINT_A = key(40);
const OWNER = key(41);
const DELEGATE = key(42);
const CLOSER = key(43);

function splMint(opts: { decimals: number; supply: bigint; mintAuthority?: PublicKey; freezeAuthority?: PublicKey }) {
  return encode(MintLayout, {
    mintAuthorityOption: opts.mintAuthority ? 1 : 0,
    mintAuthority: opts.mintAuthority ?? key(0),
    supply: opts.supply,
    decimals: opts.decimals,
    isInitialized: true,
    freezeAuthorityOption: opts.freezeAuthority ? 1 : 0,
    freezeAuthority: opts.freezeAuthority ?? key(0),
  });
}

function splAccount(opts: {
  mint: PublicKey;
  amount: bigint;
  state?: number;
  delegate?: PublicKey;
  delegatedAmount?: bigint;
  isNative?: bigint;
  closeAuthority?: PublicKey;
}) {
  return encode(AccountLayout, {
    mint: opts.mint,
    owner: OWNER,
    amount: opts.amount,
    delegateOption: opts.delegate ? 1 : 0,
    delegate: opts.delegate ?? key(0),
    state: opts.state ?? 1,
    isNativeOption: opts.isNative === undefined ? 0 : 1,
    isNative: opts.isNative ?? 0n,
    delegatedAmount: opts.delegatedAmount ?? 0n,
    closeAuthorityOption: opts.closeAuthority ? 1 : 0,
    closeAuthority: opts.closeAuthority ?? key(0),
  });
}

const mintA = splMint({ decimals: 6, supply: 1_000_000_000_000n, mintAuthority: key(44) });
const tokenCtx = () => context([[MINT_A, TOKEN, mintA]]);

describe('spl-token', () => {
  test('mint', () => {
    const data = splMint({
      decimals: 9,
      supply: 18_446_744_073_709_551_615n,
      mintAuthority: key(44),
      freezeAuthority: key(45),
    });
    same(parse(MINT_A, TOKEN, data), {
      program: 'spl-token',
      parsed: {
        type: 'mint',
        info: {
          mintAuthority: b58(44),
          supply: '18446744073709551615',
          decimals: 9,
          isInitialized: true,
          freezeAuthority: b58(45),
        },
      },
      space: 82,
    });
  });

  test('mint without authorities shows them as null', () => {
    same(parse(MINT_A, TOKEN, splMint({ decimals: 0, supply: 0n }))?.parsed, {
      type: 'mint',
      info: { mintAuthority: null, supply: '0', decimals: 0, isInitialized: true, freezeAuthority: null },
    });
  });

  test('token account without delegate', () => {
    const data = splAccount({ mint: MINT_A, amount: 1_500_000n });
    same(parse(key(50), TOKEN, data, tokenCtx()), {
      program: 'spl-token',
      parsed: {
        type: 'account',
        info: {
          mint: MINT_A.toBase58(),
          owner: OWNER.toBase58(),
          tokenAmount: { uiAmount: 1.5, decimals: 6, amount: '1500000', uiAmountString: '1.5' },
          state: 'initialized',
          isNative: false,
        },
      },
      space: 165,
    });
  });

  test('token account with delegate and close authority', () => {
    const data = splAccount({
      mint: MINT_A,
      amount: 10n,
      delegate: DELEGATE,
      delegatedAmount: 0n,
      closeAuthority: CLOSER,
    });
    same(parse(key(50), TOKEN, data, tokenCtx())?.parsed, {
      type: 'account',
      info: {
        mint: MINT_A.toBase58(),
        owner: OWNER.toBase58(),
        tokenAmount: { uiAmount: 0.00001, decimals: 6, amount: '10', uiAmountString: '0.00001' },
        delegate: DELEGATE.toBase58(),
        state: 'initialized',
        isNative: false,
        delegatedAmount: { uiAmount: 0, decimals: 6, amount: '0', uiAmountString: '0' },
        closeAuthority: CLOSER.toBase58(),
      },
    });
  });

  test('frozen account', () => {
    const data = splAccount({ mint: MINT_A, amount: 0n, state: 2 });
    same(parse(key(50), TOKEN, data, tokenCtx())?.parsed, {
      type: 'account',
      info: {
        mint: MINT_A.toBase58(),
        owner: OWNER.toBase58(),
        tokenAmount: { uiAmount: 0, decimals: 6, amount: '0', uiAmountString: '0' },
        state: 'frozen',
        isNative: false,
      },
    });
  });

  test('wrapped SOL: isNative and rentExemptReserve', () => {
    const nativeMint = splMint({ decimals: 9, supply: 0n });
    const data = splAccount({ mint: NATIVE_MINT, amount: 2_039_280n + 1_000_000_000n, isNative: 2_039_280n });
    const expected = {
      type: 'account',
      info: {
        mint: NATIVE_MINT.toBase58(),
        owner: OWNER.toBase58(),
        tokenAmount: { uiAmount: 1.00203928, decimals: 9, amount: '1002039280', uiAmountString: '1.00203928' },
        state: 'initialized',
        isNative: true,
        rentExemptReserve: { uiAmount: 0.00203928, decimals: 9, amount: '2039280', uiAmountString: '0.00203928' },
      },
    };
    same(parse(key(51), TOKEN, data, context([[NATIVE_MINT, TOKEN, nativeMint]]))?.parsed, expected);
    // Without the native mint account (a fresh local ledger), its 9 decimals are still known.
    same(parse(key(51), TOKEN, data, context())?.parsed, expected);
  });

  test('a token account whose mint is missing or not a mint is not parsable', () => {
    const data = splAccount({ mint: MINT_A, amount: 1n });
    assert.equal(parse(key(50), TOKEN, data, context()), undefined);
    assert.equal(parse(key(50), TOKEN, data, context([[MINT_A, TOKEN, new Uint8Array(82)]])), undefined);
  });

  test('uninitialized account bytes are not parsable', () => {
    assert.equal(parse(key(50), TOKEN, new Uint8Array(165), tokenCtx()), undefined);
    assert.equal(parse(key(50), TOKEN, new Uint8Array(82), tokenCtx()), undefined);
    // An invalid COption tag makes the base unreadable.
    const bad = splAccount({ mint: MINT_A, amount: 1n });
    bad[72] = 2;
    assert.equal(parse(key(50), TOKEN, bad, tokenCtx()), undefined);
  });

  test('multisig', () => {
    const data = encode(MultisigLayout, {
      m: 2,
      n: 3,
      isInitialized: true,
      ...Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`signer${i + 1}`, i < 3 ? key(60 + i) : key(0)])),
    });
    assert.equal(data.length, 355);
    same(parse(key(59), TOKEN, data), {
      program: 'spl-token',
      parsed: {
        type: 'multisig',
        info: { numRequiredSigners: 2, numValidSigners: 3, isInitialized: true, signers: [b58(60), b58(61), b58(62)] },
      },
      space: 355,
    });
    assert.equal(parse(key(59), TOKEN, new Uint8Array(355)), undefined);
  });

  test('truncated token data never throws', () => {
    truncationsNeverThrow(key(50), TOKEN, splAccount({ mint: MINT_A, amount: 5n, delegate: DELEGATE }), tokenCtx());
    truncationsNeverThrow(MINT_A, TOKEN, mintA);
  });
});

// ---------------------------------------------------------------------------------------------
// Token-2022

const tlv = (type: number, value: Uint8Array | number[]) => bytes().u16(type).u16(value.length).raw(value).done();

/** A Token-2022 mint: 82-byte base, zero padding to 165, account type 1, TLV entries. */
function mint2022(base: Uint8Array, ...entries: Uint8Array[]) {
  const b = bytes()
    .raw(base)
    .zeros(165 - 82)
    .u8(1);
  for (const e of entries) b.raw(e);
  return b.done();
}
function account2022(base: Uint8Array, ...entries: Uint8Array[]) {
  const b = bytes().raw(base).u8(2);
  for (const e of entries) b.raw(e);
  return b.done();
}

const MINT_B = key(70);
const YEAR = 31_556_736n;

describe('spl-token-2022', () => {
  const elgamal = new Array<number>(32).fill(9);
  const ciphertext = new Array<number>(64).fill(3);
  const metadata = bytes()
    .key(key(80))
    .key(MINT_B)
    .borshString('Token')
    .borshString('TKN')
    .borshString('https://example.com/t.json')
    .u32(2)
    .borshString('k1')
    .borshString('v1')
    .borshString('k2')
    .borshString('')
    .done();
  const mintData = mint2022(
    splMint({ decimals: 2, supply: 5000n, mintAuthority: key(44) }),
    tlv(
      1,
      encode(TransferFeeConfigLayout, {
        transferFeeConfigAuthority: key(71),
        withdrawWithheldAuthority: key(0),
        withheldAmount: 12n,
        olderTransferFee: { epoch: 1n, maximumFee: 100n, transferFeeBasisPoints: 10 },
        newerTransferFee: { epoch: 2n, maximumFee: 18_446_744_073_709_551_615n, transferFeeBasisPoints: 25 },
      }),
    ),
    tlv(3, key(72).toBytes()),
    tlv(4, bytes().key(key(0)).u8(1).raw(elgamal).done()),
    tlv(6, [2]),
    tlv(9, []),
    tlv(12, key(73).toBytes()),
    tlv(14, bytes().key(key(74)).key(key(75)).done()),
    tlv(16, bytes().key(key(76)).zeros(32).u8(0).raw(ciphertext).done()),
    tlv(18, bytes().key(key(0)).key(MINT_B).done()),
    tlv(19, metadata),
    tlv(20, bytes().key(key(77)).key(MINT_B).done()),
    tlv(21, bytes().key(key(0)).key(MINT_B).u64(3).u64(10).done()),
    tlv(22, bytes().key(key(77)).key(key(78)).done()),
    tlv(23, bytes().key(MINT_B).key(key(78)).u64(7).done()),
    tlv(26, bytes().key(key(79)).u8(1).done()),
    tlv(28, key(0).toBytes()),
    // A repeated type (lookups find its first entry), a value of the wrong size, and an account
    // extension misplaced on a mint.
    tlv(12, key(1).toBytes()),
    tlv(24, [1, 2, 3]),
    tlv(8, [1]),
  );

  test('mint with many extensions', () => {
    same(parse(MINT_B, TOKEN_2022, mintData), {
      program: 'spl-token-2022',
      parsed: {
        type: 'mint',
        info: {
          mintAuthority: b58(44),
          supply: '5000',
          decimals: 2,
          isInitialized: true,
          freezeAuthority: null,
          extensions: [
            {
              extension: 'transferFeeConfig',
              state: {
                transferFeeConfigAuthority: b58(71),
                withdrawWithheldAuthority: null,
                withheldAmount: 12,
                olderTransferFee: { epoch: 1, maximumFee: 100, transferFeeBasisPoints: 10 },
                newerTransferFee: { epoch: 2, maximumFee: 18_446_744_073_709_551_615n, transferFeeBasisPoints: 25 },
              },
            },
            { extension: 'mintCloseAuthority', state: { closeAuthority: b58(72) } },
            {
              extension: 'confidentialTransferMint',
              state: { authority: null, autoApproveNewAccounts: true, auditorElgamalPubkey: b64(elgamal) },
            },
            { extension: 'defaultAccountState', state: { accountState: 'frozen' } },
            { extension: 'nonTransferable' },
            { extension: 'permanentDelegate', state: { delegate: b58(73) } },
            { extension: 'transferHook', state: { authority: b58(74), programId: b58(75) } },
            {
              extension: 'confidentialTransferFeeConfig',
              state: {
                authority: b58(76),
                withdrawWithheldAuthorityElgamalPubkey: b64(new Array(32).fill(0)),
                harvestToMintEnabled: false,
                withheldAmount: b64(ciphertext),
              },
            },
            { extension: 'metadataPointer', state: { authority: null, metadataAddress: MINT_B.toBase58() } },
            {
              extension: 'tokenMetadata',
              state: {
                updateAuthority: b58(80),
                mint: MINT_B.toBase58(),
                name: 'Token',
                symbol: 'TKN',
                uri: 'https://example.com/t.json',
                additionalMetadata: [
                  ['k1', 'v1'],
                  ['k2', ''],
                ],
              },
            },
            { extension: 'groupPointer', state: { authority: b58(77), groupAddress: MINT_B.toBase58() } },
            {
              extension: 'tokenGroup',
              state: { updateAuthority: null, mint: MINT_B.toBase58(), size: 3, maxSize: 10 },
            },
            { extension: 'groupMemberPointer', state: { authority: b58(77), memberAddress: b58(78) } },
            { extension: 'tokenGroupMember', state: { mint: MINT_B.toBase58(), group: b58(78), memberNumber: 7 } },
            { extension: 'pausableConfig', state: { authority: b58(79), paused: true } },
            { extension: 'permissionedBurnConfig', state: { authority: null } },
            { extension: 'permanentDelegate', state: { delegate: b58(73) } },
            { extension: 'unparseableExtension' },
            { extension: 'unparseableExtension' },
          ],
        },
      },
      space: mintData.length,
    });
  });

  test('interest-bearing and scaled-ui-amount configs on a mint', () => {
    const data = mint2022(
      splMint({ decimals: 2, supply: 0n }),
      tlv(
        10,
        encode(InterestBearingMintConfigStateLayout, {
          rateAuthority: key(81),
          initializationTimestamp: 0,
          preUpdateAverageRate: 500,
          lastUpdateTimestamp: Number(YEAR),
          currentRate: -25,
        }),
      ),
      tlv(
        25,
        encode(ScaledUiAmountConfigLayout, {
          authority: key(0),
          multiplier: 1.5,
          newMultiplierEffectiveTimestamp: 1000n,
          newMultiplier: 1e21,
        }),
      ),
    );
    same((parse(MINT_B, TOKEN_2022, data)?.parsed as { info: { extensions: unknown } }).info.extensions, [
      {
        extension: 'interestBearingConfig',
        state: {
          rateAuthority: b58(81),
          initializationTimestamp: 0,
          preUpdateAverageRate: 500,
          lastUpdateTimestamp: 31_556_736,
          currentRate: -25,
        },
      },
      {
        extension: 'scaledUiAmountConfig',
        state: {
          authority: null,
          multiplier: '1.5',
          newMultiplierEffectiveTimestamp: 1000,
          newMultiplier: '1000000000000000000000',
        },
      },
    ]);
  });

  test('confidential mint-burn', () => {
    const data = mint2022(
      splMint({ decimals: 0, supply: 1n }),
      tlv(24, bytes().raw(ciphertext).raw(new Array(36).fill(4)).raw(elgamal).zeros(64).done()),
    );
    same((parse(MINT_B, TOKEN_2022, data)?.parsed as { info: { extensions: unknown } }).info.extensions, [
      {
        extension: 'confidentialMintBurn',
        state: {
          confidentialSupply: b64(ciphertext),
          decryptableSupply: b64(new Array(36).fill(4)),
          supplyElgamalPubkey: b64(elgamal),
          pendingBurn: b64(new Array(64).fill(0)),
        },
      },
    ]);
  });

  test('an unknown extension type hides the whole list', () => {
    const data = mint2022(splMint({ decimals: 0, supply: 1n }), tlv(3, key(72).toBytes()), tlv(999, [1, 2]));
    same(parse(MINT_B, TOKEN_2022, data)?.parsed, {
      type: 'mint',
      info: { mintAuthority: null, supply: '1', decimals: 0, isInitialized: true, freezeAuthority: null },
    });
  });

  test('non-zero padding or a wrong account type byte is not a mint', () => {
    const data = mint2022(splMint({ decimals: 0, supply: 1n }), tlv(3, key(72).toBytes()));
    const padded = data.slice();
    padded[100] = 1;
    assert.equal(parse(MINT_B, TOKEN_2022, padded), undefined);
    const wrongType = data.slice();
    wrongType[165] = 2;
    assert.equal(parse(MINT_B, TOKEN_2022, wrongType), undefined);
  });

  test('token account with extensions', () => {
    const mint = mint2022(splMint({ decimals: 3, supply: 0n }), tlv(9, []));
    const data = account2022(
      splAccount({ mint: MINT_B, amount: 123_456n }),
      tlv(7, []),
      tlv(2, bytes().u64(4).done()),
      tlv(8, [1]),
      tlv(11, [0]),
      tlv(15, [1]),
      tlv(13, []),
      tlv(27, []),
      tlv(
        5,
        bytes()
          .u8(1)
          .raw(elgamal)
          .raw(ciphertext)
          .raw(ciphertext)
          .raw(ciphertext)
          .raw(new Array(36).fill(5))
          .u8(1)
          .u8(0)
          .u64(1)
          .u64(65536)
          .u64(2)
          .u64(3)
          .done(),
      ),
      tlv(17, ciphertext),
      // Trailing slack after the last entry (kept for reallocs) is ignored.
      bytes().u8(0).done(),
    );
    same(parse(key(90), TOKEN_2022, data, context([[MINT_B, TOKEN_2022, mint]])), {
      program: 'spl-token-2022',
      parsed: {
        type: 'account',
        info: {
          mint: MINT_B.toBase58(),
          owner: OWNER.toBase58(),
          tokenAmount: { uiAmount: 123.456, decimals: 3, amount: '123456', uiAmountString: '123.456' },
          state: 'initialized',
          isNative: false,
          extensions: [
            { extension: 'immutableOwner' },
            { extension: 'transferFeeAmount', state: { withheldAmount: 4 } },
            { extension: 'memoTransfer', state: { requireIncomingTransferMemos: true } },
            { extension: 'cpiGuard', state: { lockCpi: false } },
            { extension: 'transferHookAccount', state: { transferring: true } },
            { extension: 'nonTransferableAccount' },
            { extension: 'pausableAccount' },
            {
              extension: 'confidentialTransferAccount',
              state: {
                approved: true,
                elgamalPubkey: b64(elgamal),
                pendingBalanceLo: b64(ciphertext),
                pendingBalanceHi: b64(ciphertext),
                availableBalance: b64(ciphertext),
                decryptableAvailableBalance: b64(new Array(36).fill(5)),
                allowConfidentialCredits: true,
                allowNonConfidentialCredits: false,
                pendingBalanceCreditCounter: 1,
                maximumPendingBalanceCreditCounter: 65536,
                expectedPendingBalanceCreditCounter: 2,
                actualPendingBalanceCreditCounter: 3,
              },
            },
            { extension: 'confidentialTransferFeeAmount', state: { withheldAmount: b64(ciphertext) } },
          ],
        },
      },
      space: data.length,
    });
  });

  test('interest-bearing mint changes a token account uiAmount', () => {
    // 5% a year, continuously compounded, for exactly one year: x e^0.05.
    const mint = mint2022(
      splMint({ decimals: 2, supply: 0n }),
      tlv(
        10,
        encode(InterestBearingMintConfigStateLayout, {
          rateAuthority: key(0),
          initializationTimestamp: Number(NOW - YEAR),
          preUpdateAverageRate: 500,
          lastUpdateTimestamp: Number(NOW),
          currentRate: 500,
        }),
      ),
    );
    const ctx = context([[MINT_B, TOKEN_2022, mint]]);
    const data = account2022(
      splAccount({ mint: MINT_B, amount: 1_000_000n, delegate: DELEGATE, delegatedAmount: 100n }),
    );
    same(parse(key(91), TOKEN_2022, data, ctx)?.parsed, {
      type: 'account',
      info: {
        mint: MINT_B.toBase58(),
        owner: OWNER.toBase58(),
        tokenAmount: { uiAmount: 10512.71, decimals: 2, amount: '1000000', uiAmountString: '10512.71' },
        delegate: DELEGATE.toBase58(),
        state: 'initialized',
        isNative: false,
        delegatedAmount: { uiAmount: 1.05, decimals: 2, amount: '100', uiAmountString: '1.05' },
      },
    });
    assert.ok(ctx.clockReads > 0, 'the clock is read for interest-bearing mints');
  });

  test('interest-bearing amounts match Token-2022 at full precision', () => {
    // Token-2022's own test vector: 1.0 at 18 decimals after one year at 5%.
    const mint = mint2022(
      splMint({ decimals: 18, supply: 0n }),
      tlv(
        10,
        encode(InterestBearingMintConfigStateLayout, {
          rateAuthority: key(0),
          initializationTimestamp: Number(NOW - YEAR),
          preUpdateAverageRate: 500,
          lastUpdateTimestamp: Number(NOW),
          currentRate: 500,
        }),
      ),
    );
    const data = splAccount({ mint: MINT_B, amount: 1_000_000_000_000_000_000n });
    const parsed = parse(key(91), TOKEN_2022, data, context([[MINT_B, TOKEN_2022, mint]]))?.parsed as {
      info: { tokenAmount: unknown };
    };
    same(parsed.info.tokenAmount, {
      uiAmount: 1.0512710963760241,
      decimals: 18,
      amount: '1000000000000000000',
      uiAmountString: '1.051271096376024117',
    });
  });

  test('scaled-ui-amount mint: the multiplier in force at the clock time applies', () => {
    const scaledMint = (effective: bigint) =>
      mint2022(
        splMint({ decimals: 2, supply: 0n }),
        tlv(
          25,
          encode(ScaledUiAmountConfigLayout, {
            authority: key(0),
            multiplier: 1.5,
            newMultiplierEffectiveTimestamp: effective,
            newMultiplier: 2,
          }),
        ),
      );
    const data = splAccount({ mint: MINT_B, amount: 1234n });
    const amountAt = (effective: bigint) =>
      (
        parse(key(92), TOKEN_2022, data, context([[MINT_B, TOKEN_2022, scaledMint(effective)]]))?.parsed as {
          info: { tokenAmount: unknown };
        }
      ).info.tokenAmount;
    same(amountAt(NOW + 1n), { uiAmount: 18.51, decimals: 2, amount: '1234', uiAmountString: '18.51' });
    same(amountAt(NOW), { uiAmount: 24.68, decimals: 2, amount: '1234', uiAmountString: '24.68' });
  });

  test('clock is not read for plain mints', () => {
    const ctx = tokenCtx();
    parse(key(50), TOKEN, splAccount({ mint: MINT_A, amount: 1n }), ctx);
    assert.equal(ctx.clockReads, 0);
  });

  test('truncated Token-2022 data never throws', () => {
    truncationsNeverThrow(MINT_B, TOKEN_2022, mintData);
  });
});

// ---------------------------------------------------------------------------------------------
// Address lookup table

describe('address-lookup-table', () => {
  const table = (authority: PublicKey | null, addresses: PublicKey[]) => {
    const b = bytes().u32(1).u64(18_446_744_073_709_551_615n).u64(250_000_000).u8(3);
    if (authority) b.u8(1).key(authority);
    else b.u8(0);
    b.u16(0);
    b.zeros(56 - b.length);
    for (const a of addresses) b.key(a);
    return b.done();
  };

  test('lookup table with authority', () => {
    const data = table(key(100), [key(101), key(102)]);
    same(parse(key(99), ALT, data), {
      program: 'address-lookup-table',
      parsed: {
        type: 'lookupTable',
        info: {
          deactivationSlot: '18446744073709551615',
          lastExtendedSlot: '250000000',
          lastExtendedSlotStartIndex: 3,
          authority: b58(100),
          addresses: [b58(101), b58(102)],
        },
      },
      space: 120,
    });
  });

  test('frozen table omits the authority', () => {
    same(parse(key(99), ALT, table(null, []))?.parsed, {
      type: 'lookupTable',
      info: {
        deactivationSlot: '18446744073709551615',
        lastExtendedSlot: '250000000',
        lastExtendedSlotStartIndex: 3,
        addresses: [],
      },
    });
  });

  test('uninitialized and malformed tables', () => {
    same(parse(key(99), ALT, new Uint8Array(56))?.parsed, { type: 'uninitialized' });
    assert.equal(parse(key(99), ALT, new Uint8Array(0)), undefined);
    const ragged = bytes()
      .raw(table(key(100), [key(101)]))
      .u8(1)
      .done();
    assert.equal(parse(key(99), ALT, ragged), undefined);
    truncationsNeverThrow(key(99), ALT, table(key(100), [key(101)]));
  });
});

// ---------------------------------------------------------------------------------------------
// BPF upgradeable loader

describe('bpf-upgradeable-loader', () => {
  const program = [7, 7, 7, 1, 2, 3];

  test('program', () => {
    same(parse(key(110), LOADER, bytes().u32(2).key(key(111)).done()), {
      program: 'bpf-upgradeable-loader',
      parsed: { type: 'program', info: { programData: b58(111) } },
      space: 36,
    });
  });

  test('programData with and without authority', () => {
    const data = bytes().u32(3).u64(123_456).u8(1).key(key(112)).raw(program).done();
    same(parse(key(111), LOADER, data)?.parsed, {
      type: 'programData',
      info: { slot: 123456, authority: b58(112), data: [b64(program), 'base64'] },
    });
    const immutable = bytes().u32(3).u64(5).u8(0).raw(program).done();
    same(parse(key(111), LOADER, immutable)?.parsed, {
      type: 'programData',
      info: { slot: 5, authority: null, data: [b64(program), 'base64'] },
    });
  });

  test('buffer', () => {
    const data = bytes().u32(1).u8(1).key(key(113)).raw(program).done();
    same(parse(key(114), LOADER, data), {
      program: 'bpf-upgradeable-loader',
      parsed: { type: 'buffer', info: { authority: b58(113), data: [b64(program), 'base64'] } },
      space: 37 + program.length,
    });
  });

  test('uninitialized', () => {
    same(parse(key(114), LOADER, new Uint8Array(4))?.parsed, { type: 'uninitialized' });
    assert.equal(parse(key(114), LOADER, bytes().u32(4).done()), undefined);
    truncationsNeverThrow(key(111), LOADER, bytes().u32(3).u64(5).u8(1).key(key(112)).done());
  });
});

// ---------------------------------------------------------------------------------------------
// Sysvars

describe('sysvar', () => {
  const sysvar = (id: string, data: Uint8Array) => parse(new PublicKey(id), SYSVAR, data);

  test('clock', () => {
    const data = bytes().u64(300_000_000).i64(1_699_000_000).u64(700).u64(701).i64(1_700_000_000).done();
    same(sysvar('SysvarC1ock11111111111111111111111111111111', data), {
      program: 'sysvar',
      parsed: {
        type: 'clock',
        info: {
          slot: 300000000,
          epoch: 700,
          epochStartTimestamp: 1699000000,
          leaderScheduleEpoch: 701,
          unixTimestamp: 1700000000,
        },
      },
      space: 40,
    });
  });

  test('epochSchedule', () => {
    const data = bytes().u64(432_000).u64(432_000).bool(true).u64(14).u64(524_256).done();
    same(sysvar('SysvarEpochSchedu1e111111111111111111111111', data)?.parsed, {
      type: 'epochSchedule',
      info: {
        slotsPerEpoch: 432000,
        leaderScheduleSlotOffset: 432000,
        warmup: true,
        firstNormalEpoch: 14,
        firstNormalSlot: 524256,
      },
    });
  });

  test('fees (deprecated)', () => {
    same(sysvar('SysvarFees111111111111111111111111111111111', bytes().u64(5000).done())?.parsed, {
      type: 'fees',
      info: { feeCalculator: { lamportsPerSignature: '5000' } },
    });
  });

  test('recentBlockhashes', () => {
    const data = bytes().u64(2).key(key(120)).u64(5000).key(key(121)).u64(0).zeros(100).done();
    same(sysvar('SysvarRecentB1ockHashes11111111111111111111', data)?.parsed, {
      type: 'recentBlockhashes',
      info: [
        { blockhash: b58(120), feeCalculator: { lamportsPerSignature: '5000' } },
        { blockhash: b58(121), feeCalculator: { lamportsPerSignature: '0' } },
      ],
    });
  });

  test('rent', () => {
    same(sysvar('SysvarRent111111111111111111111111111111111', bytes().u64(3480).f64(2).u8(50).done())?.parsed, {
      type: 'rent',
      info: { lamportsPerByteYear: '3480', exemptionThreshold: 2, burnPercent: 50 },
    });
  });

  test('rewards', () => {
    same(sysvar('SysvarRewards111111111111111111111111111111', bytes().f64(0.25).f64(0).done())?.parsed, {
      type: 'rewards',
      info: { validatorPointValue: 0.25 },
    });
  });

  test('slotHashes', () => {
    const data = bytes().u64(2).u64(11).key(key(122)).u64(10).key(key(123)).done();
    same(sysvar('SysvarS1otHashes111111111111111111111111111', data)?.parsed, {
      type: 'slotHashes',
      info: [
        { slot: 11, hash: b58(122) },
        { slot: 10, hash: b58(123) },
      ],
    });
  });

  test('slotHistory', () => {
    const blocks = new Uint8Array(16384 * 8);
    blocks[0] = 0b101; // slots 0 and 2
    blocks[8] = 0x80; // slot 71
    const data = bytes()
      .u8(1)
      .u64(16384)
      .raw(blocks)
      .u64(1024 * 1024)
      .u64(72)
      .done();
    assert.equal(data.length, 131097);
    const expectedBits = ['1', '0', '1', '0'.repeat(68), '1', '0'.repeat(1024 * 1024 - 72)].join('');
    same(sysvar('SysvarS1otHistory11111111111111111111111111', data)?.parsed, {
      type: 'slotHistory',
      info: { nextSlot: 72, bits: expectedBits },
    });
    // Fewer bits than Agave prints (it would panic): not parsable.
    const short = bytes().u8(1).u64(1).u64(0).u64(64).u64(1).done();
    assert.equal(sysvar('SysvarS1otHistory11111111111111111111111111', short), undefined);
  });

  test('stakeHistory', () => {
    const data = bytes().u64(1).u64(699).u64(400_000_000_000_000_000n).u64(2).u64(3).done();
    same(sysvar('SysvarStakeHistory1111111111111111111111111', data)?.parsed, {
      type: 'stakeHistory',
      info: [{ epoch: 699, stakeHistory: { effective: 400000000000000000n, activating: 2, deactivating: 3 } }],
    });
  });

  test('lastRestartSlot', () => {
    same(sysvar('SysvarLastRestartS1ot1111111111111111111111', bytes().u64(1282).done())?.parsed, {
      type: 'lastRestartSlot',
      info: { lastRestartSlot: 1282 },
    });
  });

  test('epochRewards', () => {
    const data = bytes()
      .u64(42)
      .u64(4)
      .key(key(124))
      .u128(340_282_366_920_938_463_463_374_607_431_768_211_455n)
      .u64(100)
      .u64(20)
      .bool(true)
      .done();
    same(sysvar('SysvarEpochRewards1111111111111111111111111', data)?.parsed, {
      type: 'epochRewards',
      info: {
        distributionStartingBlockHeight: 42,
        numPartitions: 4,
        parentBlockhash: b58(124),
        totalPoints: '340282366920938463463374607431768211455',
        totalRewards: '100',
        distributedRewards: '20',
        active: true,
      },
    });
  });

  test('unknown sysvars and bad data are not parsable', () => {
    assert.equal(sysvar('Sysvar1nstructions1111111111111111111111111', new Uint8Array(64)), undefined);
    assert.equal(sysvar('SysvarStakeHistory1111111111111111111111111', new Uint8Array(4)), undefined);
    assert.equal(
      sysvar('SysvarEpochSchedu1e111111111111111111111111', bytes().u64(1).u64(1).u8(2).u64(0).u64(0).done()),
      undefined,
    );
    truncationsNeverThrow(
      new PublicKey('SysvarEpochRewards1111111111111111111111111'),
      SYSVAR,
      bytes().u64(42).u64(4).key(key(124)).u128(1n).u64(100).u64(20).bool(true).done(),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Stake

describe('stake', () => {
  const meta = (b: Bytes) => b.u64(2_282_880).key(key(130)).key(key(131)).i64(-5).u64(0).key(key(132));
  const expectedMeta = {
    rentExemptReserve: '2282880',
    authorized: { staker: b58(130), withdrawer: b58(131) },
    lockup: { unixTimestamp: -5, epoch: 0, custodian: b58(132) },
  };

  test('initialized', () => {
    const data = meta(bytes().u32(1))
      .zeros(200 - 124)
      .done();
    same(parse(key(133), STAKE, data), {
      program: 'stake',
      parsed: { type: 'initialized', info: { meta: expectedMeta, stake: null } },
      space: 200,
    });
  });

  test('delegated', () => {
    const data = meta(bytes().u32(2))
      .key(key(134))
      .u64(1_000_000_000_000n)
      .u64(500)
      .u64(18_446_744_073_709_551_615n)
      .f64(0.25)
      .u64(9_007_199_254_740_993n)
      .u8(0)
      .zeros(3)
      .done();
    same(parse(key(133), STAKE, data)?.parsed, {
      type: 'delegated',
      info: {
        meta: expectedMeta,
        stake: {
          delegation: {
            voter: b58(134),
            stake: '1000000000000',
            activationEpoch: '500',
            deactivationEpoch: '18446744073709551615',
          },
          creditsObserved: 9_007_199_254_740_993n,
        },
      },
    });
    truncationsNeverThrow(key(133), STAKE, data.subarray(0, 197));
  });

  test('uninitialized, rewards pool, unknown', () => {
    same(parse(key(133), STAKE, new Uint8Array(200))?.parsed, { type: 'uninitialized' });
    same(parse(key(133), STAKE, bytes().u32(3).zeros(196).done())?.parsed, { type: 'rewardsPool' });
    assert.equal(parse(key(133), STAKE, bytes().u32(4).zeros(196).done()), undefined);
  });
});

// ---------------------------------------------------------------------------------------------
// Vote

describe('vote', () => {
  const priorVoters = (b: Bytes) => {
    for (let i = 0; i < 32; i++) {
      if (i === 1) b.key(key(146)).u64(3).u64(4);
      else b.key(key(0)).u64(0).u64(0);
    }
    return b.u64(1).bool(false);
  };
  const tail = (b: Bytes) =>
    b.u64(2).u64(699).u64(1000).u64(900).u64(700).u64(1100).u64(1000).u64(302_400_000).i64(1_700_000_000);
  const expectedTail = {
    epochCredits: [
      { epoch: 699, credits: '1000', previousCredits: '900' },
      { epoch: 700, credits: '1100', previousCredits: '1000' },
    ],
    lastTimestamp: { slot: 302400000, timestamp: 1700000000 },
  };
  const expectedVotes = [
    { slot: 302400000, confirmationCount: 2 },
    { slot: 302400001, confirmationCount: 1 },
  ];
  // Two authorized voters written out of order: a BTreeMap shows them by epoch.
  const voters = (b: Bytes) => b.u64(2).u64(701).key(key(145)).u64(700).key(key(144));
  const expectedVoters = [
    { epoch: 700, authorizedVoter: b58(144) },
    { epoch: 701, authorizedVoter: b58(145) },
  ];

  test('current version (V3, landed votes)', () => {
    const b = bytes().u32(2).key(key(140)).key(key(141)).u8(7);
    b.u64(2).u8(1).u64(302_400_000).u32(2).u8(0).u64(302_400_001).u32(1);
    b.u8(1).u64(302_399_968);
    voters(b);
    priorVoters(b);
    tail(b);
    const data = b.zeros(3762 - b.length).done();
    same(parse(key(142), VOTE, data), {
      program: 'vote',
      parsed: {
        type: 'vote',
        info: {
          nodePubkey: b58(140),
          authorizedWithdrawer: b58(141),
          commission: 7,
          votes: expectedVotes,
          rootSlot: 302399968,
          authorizedVoters: expectedVoters,
          priorVoters: [{ authorizedPubkey: b58(146), epochOfLastAuthorizedSwitch: 3, targetEpoch: 4 }],
          ...expectedTail,
        },
      },
      space: 3762,
    });
  });

  test('V1_14_11 (plain lockouts, no root)', () => {
    const b = bytes().u32(1).key(key(140)).key(key(141)).u8(100);
    b.u64(2).u64(302_400_000).u32(2).u64(302_400_001).u32(1);
    b.u8(0);
    voters(b);
    priorVoters(b);
    tail(b);
    same(parse(key(142), VOTE, b.done())?.parsed, {
      type: 'vote',
      info: {
        nodePubkey: b58(140),
        authorizedWithdrawer: b58(141),
        commission: 100,
        votes: expectedVotes,
        rootSlot: null,
        authorizedVoters: expectedVoters,
        priorVoters: [{ authorizedPubkey: b58(146), epochOfLastAuthorizedSwitch: 3, targetEpoch: 4 }],
        ...expectedTail,
      },
    });
  });

  test('V4 (commission from basis points, no prior voters)', () => {
    const b = bytes().u32(3).key(key(140)).key(key(141)).key(key(147)).key(key(148));
    b.u16(550).u16(10_000).u64(12345);
    b.u8(1).raw(new Array(48).fill(6));
    b.u64(2).u8(1).u64(302_400_000).u32(2).u8(0).u64(302_400_001).u32(1);
    b.u8(1).u64(302_399_968);
    voters(b);
    tail(b);
    same(parse(key(142), VOTE, b.done())?.parsed, {
      type: 'vote',
      info: {
        nodePubkey: b58(140),
        authorizedWithdrawer: b58(141),
        commission: 5,
        votes: expectedVotes,
        rootSlot: 302399968,
        authorizedVoters: expectedVoters,
        priorVoters: [],
        ...expectedTail,
      },
    });
  });

  test('uninitialized and truncated vote accounts', () => {
    assert.equal(parse(key(142), VOTE, new Uint8Array(3762)), undefined);
    assert.equal(parse(key(142), VOTE, new Uint8Array(4)), undefined);
    const b = bytes().u32(2).key(key(140)).key(key(141)).u8(7).u64(0).u8(0);
    voters(b);
    priorVoters(b);
    tail(b);
    truncationsNeverThrow(key(142), VOTE, b.done());
  });
});

// ---------------------------------------------------------------------------------------------
// Config

describe('config', () => {
  const STAKE_CONFIG = new PublicKey('StakeConfig11111111111111111111111111111111');
  const VALIDATOR_INFO = new PublicKey('Va1idator1nfo111111111111111111111111111111');

  test('stake config', () => {
    const data = bytes().u8(0).f64(0.25).u8(50).done();
    same(parse(STAKE_CONFIG, CONFIG, data), {
      program: 'config',
      parsed: { type: 'stakeConfig', info: { warmupCooldownRate: 0.25, slashPenalty: 50 } },
      space: 10,
    });
  });

  test('validator info: keys, and the JSON with its keys sorted as serde_json keeps them', () => {
    const info =
      '{"name":"Val","website":"https://v.example","details":"d","keybaseUsername":"k","nested":{"b":1,"a":[{"z":1,"y":2}]}}';
    const data = bytes().u8(2).key(VALIDATOR_INFO).u8(0).key(key(150)).u8(1).bincodeString(info).done();
    same(parse(key(151), CONFIG, data), {
      program: 'config',
      parsed: {
        type: 'validatorInfo',
        info: {
          keys: [
            { pubkey: VALIDATOR_INFO.toBase58(), signer: false },
            { pubkey: b58(150), signer: true },
          ],
          configData: {
            details: 'd',
            keybaseUsername: 'k',
            name: 'Val',
            nested: { a: [{ y: 2, z: 1 }], b: 1 },
            website: 'https://v.example',
          },
        },
      },
      space: data.length,
    });
  });

  test('other config accounts and bad JSON are not parsable', () => {
    assert.equal(parse(key(151), CONFIG, bytes().u8(1).key(key(150)).u8(0).bincodeString('{}').done()), undefined);
    assert.equal(parse(key(151), CONFIG, bytes().u8(1).key(VALIDATOR_INFO).u8(0).bincodeString('{').done()), undefined);
    // short_vec refuses an overlong length encoding.
    assert.equal(parse(STAKE_CONFIG, CONFIG, bytes().u8(0x80).u8(0).f64(0.25).u8(50).done()), undefined);
    truncationsNeverThrow(key(151), CONFIG, bytes().u8(1).key(VALIDATOR_INFO).u8(0).bincodeString('{"a":1}').done());
  });
});

// ---------------------------------------------------------------------------------------------
// Dispatch

describe('dispatch', () => {
  test('an owner that is not a parsable program gives undefined', () => {
    assert.equal(parse(key(160), key(161), new Uint8Array(165)), undefined);
    assert.equal(
      parse(key(160), new PublicKey('BPFLoader2111111111111111111111111111111111'), new Uint8Array(36)),
      undefined,
    );
  });

  test('random bytes never throw for any program', () => {
    let seed = 12345;
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    const owners = [SYSTEM, VOTE, STAKE, CONFIG, SYSVAR, LOADER, ALT, TOKEN, TOKEN_2022];
    const sysvars = ['SysvarC1ock11111111111111111111111111111111', 'SysvarS1otHashes111111111111111111111111111'];
    for (const owner of owners) {
      for (const len of [0, 1, 4, 8, 36, 56, 82, 165, 166, 200, 355, 400]) {
        for (let round = 0; round < 4; round++) {
          const data = Uint8Array.from({ length: len }, rand);
          // Steer some inputs past the first tag checks.
          if (len >= 4 && round % 2 === 0) data.set([round, 0, 0, 0]);
          for (const k of [key(170), new PublicKey(sysvars[round % 2]!)]) {
            assert.doesNotThrow(() => parse(k, owner, data, tokenCtx()), `${owner.toBase58()} ${len}`);
          }
        }
      }
    }
  });

  test('isTokenProgram', () => {
    assert.equal(isTokenProgram(TOKEN.toBytes()), true);
    assert.equal(isTokenProgram(TOKEN_2022.toBytes()), true);
    assert.equal(isTokenProgram(SYSTEM.toBytes()), false);
  });
});
