// The jsonParsed form of instructions against Agave's transaction-status parsers: instructions built
// with the npm client libraries, expected answers written from Agave's parse_*.rs (every object
// under `parsed` with its keys in byte order, as Agave's serde_json maps write them; the outer
// object in its struct's field order). Each answer is compared as a value and as JSON text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AddressLookupTableProgram,
  ComputeBudgetProgram,
  Lockup,
  PublicKey,
  StakeAuthorizationLayout,
  StakeProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RECENT_BLOCKHASHES_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SYSVAR_STAKE_HISTORY_PUBKEY,
  SystemProgram,
  TransactionInstruction,
  VoteAuthorizationLayout,
  VoteInit,
  VoteProgram,
} from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  AccountState,
  AuthorityType,
  ExtensionType,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAmountToUiAmountInstruction,
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
  createAssociatedTokenAccountInstruction,
  createBurnCheckedInstruction,
  createCloseAccountInstruction,
  createEmitInstruction,
  createEnableRequiredMemoTransfersInstruction,
  createDisableCpiGuardInstruction,
  createFreezeAccountInstruction,
  createInitializeAccount3Instruction,
  createInitializeAccountInstruction,
  createInitializeDefaultAccountStateInstruction,
  createInitializeGroupInstruction,
  createInitializeInstruction,
  createInitializeInterestBearingMintInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMint2Instruction,
  createInitializeMintCloseAuthorityInstruction,
  createInitializeMintInstruction,
  createInitializeMultisigInstruction,
  createInitializePausableConfigInstruction,
  createInitializePermanentDelegateInstruction,
  createInitializeScaledUiAmountConfigInstruction,
  createInitializeTransferFeeConfigInstruction,
  createMintToCheckedInstruction,
  createMintToInstruction,
  createReallocateInstruction,
  createRecoverNestedInstruction,
  createRevokeInstruction,
  createSetAuthorityInstruction,
  createSyncNativeInstruction,
  createThawAccountInstruction,
  createTransferCheckedInstruction,
  createTransferCheckedWithFeeInstruction,
  createTransferInstruction,
  createUiAmountToAmountInstruction,
  createUpdateDefaultAccountStateInstruction,
  createUpdateFieldInstruction,
  createUpdateGroupPointerInstruction,
  createWithdrawWithheldTokensFromAccountsInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { parseInstruction, parseProgram } from '../../src/rpc/parsed/instructions/index.js';
import { rustF64 } from '../../src/rpc/parsed/instructions/token-extensions.js';
import { stringifyJson } from '../../src/wire/index.js';
import { encodeBase58 } from '../../src/zk/base58.js';

const pk = (n: number) => new PublicKey(new Uint8Array(32).fill(n));
const s = (n: number) => pk(n).toBase58();
const SYSTEM = SystemProgram.programId.toBase58();
const TOKEN = TOKEN_PROGRAM_ID.toBase58();
const TOKEN22 = TOKEN_2022_PROGRAM_ID.toBase58();
const RENT = SYSVAR_RENT_PUBKEY.toBase58();
const CLOCK = SYSVAR_CLOCK_PUBKEY.toBase58();
const U64_MAX = 18446744073709551615n;

function parse(ix: TransactionInstruction, stackHeight: number | null = null): unknown {
  const accounts = ix.keys.map((k) => k.pubkey.toBase58());
  return parseInstruction(ix.programId.toBase58(), accounts, new Uint8Array(ix.data), stackHeight);
}

function same(actual: unknown, expected: unknown): void {
  assert.deepStrictEqual(actual, expected);
  assert.equal(stringifyJson(actual), stringifyJson(expected));
}

const parsed = (program: string, programId: string, p: unknown, stackHeight: number | null = null) => ({
  program,
  programId,
  parsed: p,
  stackHeight,
});
const system = (p: unknown) => parsed('system', SYSTEM, p);
const token = (p: unknown, id = TOKEN) => parsed('spl-token', id, p);
const partial = (ix: TransactionInstruction, stackHeight: number | null = null) => ({
  programId: ix.programId.toBase58(),
  accounts: ix.keys.map((k) => k.pubkey.toBase58()),
  data: encodeBase58(new Uint8Array(ix.data)),
  stackHeight,
});

test('system: transfer, with u64 lamports beyond 2^53 as exact integers, and the stack height', () => {
  const ix = SystemProgram.transfer({ fromPubkey: pk(1), toPubkey: pk(2), lamports: 5000 });
  same(parse(ix, 2), {
    program: 'system',
    programId: SYSTEM,
    parsed: { info: { destination: s(2), lamports: 5000, source: s(1) }, type: 'transfer' },
    stackHeight: 2,
  });
  const big = SystemProgram.transfer({ fromPubkey: pk(1), toPubkey: pk(2), lamports: U64_MAX });
  same(parse(big), system({ info: { destination: s(2), lamports: U64_MAX, source: s(1) }, type: 'transfer' }));
  assert.match(stringifyJson(parse(big)), /"lamports":18446744073709551615,/);
});

test('system: account creation, assignment and allocation, with and without seeds', () => {
  same(
    parse(
      SystemProgram.createAccount({
        fromPubkey: pk(1),
        newAccountPubkey: pk(2),
        lamports: 1e9,
        space: 165,
        programId: pk(3),
      }),
    ),
    system({
      info: { lamports: 1000000000, newAccount: s(2), owner: s(3), source: s(1), space: 165 },
      type: 'createAccount',
    }),
  );
  same(
    parse(
      SystemProgram.createAccountWithSeed({
        fromPubkey: pk(1),
        newAccountPubkey: pk(2),
        basePubkey: pk(4),
        seed: 'stake:0',
        lamports: 7,
        space: 200,
        programId: pk(3),
      }),
    ),
    system({
      info: { base: s(4), lamports: 7, newAccount: s(2), owner: s(3), seed: 'stake:0', source: s(1), space: 200 },
      type: 'createAccountWithSeed',
    }),
  );
  same(
    parse(SystemProgram.assign({ accountPubkey: pk(5), programId: pk(3) })),
    system({ info: { account: s(5), owner: s(3) }, type: 'assign' }),
  );
  same(
    parse(SystemProgram.assign({ accountPubkey: pk(5), basePubkey: pk(4), seed: 'x', programId: pk(3) })),
    system({ info: { account: s(5), base: s(4), owner: s(3), seed: 'x' }, type: 'assignWithSeed' }),
  );
  same(
    parse(SystemProgram.allocate({ accountPubkey: pk(5), space: 10 })),
    system({ info: { account: s(5), space: 10 }, type: 'allocate' }),
  );
  same(
    parse(SystemProgram.allocate({ accountPubkey: pk(5), basePubkey: pk(4), seed: 'y', space: 10, programId: pk(3) })),
    system({ info: { account: s(5), base: s(4), owner: s(3), seed: 'y', space: 10 }, type: 'allocateWithSeed' }),
  );
  same(
    parse(
      SystemProgram.transfer({
        fromPubkey: pk(6),
        basePubkey: pk(4),
        toPubkey: pk(2),
        lamports: 9,
        seed: 'z',
        programId: pk(3),
      }),
    ),
    system({
      info: { destination: s(2), lamports: 9, source: s(6), sourceBase: s(4), sourceOwner: s(3), sourceSeed: 'z' },
      type: 'transferWithSeed',
    }),
  );
});

test('system: the durable nonce instructions', () => {
  const blockhashes = SYSVAR_RECENT_BLOCKHASHES_PUBKEY.toBase58();
  same(
    parse(SystemProgram.nonceInitialize({ noncePubkey: pk(7), authorizedPubkey: pk(8) })),
    system({
      info: { nonceAccount: s(7), nonceAuthority: s(8), recentBlockhashesSysvar: blockhashes, rentSysvar: RENT },
      type: 'initializeNonce',
    }),
  );
  same(
    parse(SystemProgram.nonceAdvance({ noncePubkey: pk(7), authorizedPubkey: pk(8) })),
    system({
      info: { nonceAccount: s(7), nonceAuthority: s(8), recentBlockhashesSysvar: blockhashes },
      type: 'advanceNonce',
    }),
  );
  same(
    parse(SystemProgram.nonceWithdraw({ noncePubkey: pk(7), authorizedPubkey: pk(8), toPubkey: pk(9), lamports: 42 })),
    system({
      info: {
        destination: s(9),
        lamports: 42,
        nonceAccount: s(7),
        nonceAuthority: s(8),
        recentBlockhashesSysvar: blockhashes,
        rentSysvar: RENT,
      },
      type: 'withdrawFromNonce',
    }),
  );
  same(
    parse(SystemProgram.nonceAuthorize({ noncePubkey: pk(7), authorizedPubkey: pk(8), newAuthorizedPubkey: pk(9) })),
    system({ info: { newAuthorized: s(9), nonceAccount: s(7), nonceAuthority: s(8) }, type: 'authorizeNonce' }),
  );
  // UpgradeNonceAccount (12) and CreateAccountAllowPrefund (13) have no web3.js builder.
  const upgrade = new TransactionInstruction({
    programId: SystemProgram.programId,
    keys: [{ pubkey: pk(7), isSigner: false, isWritable: true }],
    data: Buffer.from([12, 0, 0, 0]),
  });
  same(parse(upgrade), system({ info: { nonceAccount: s(7) }, type: 'upgradeNonce' }));
  const prefund = (lamports: bigint, keys: PublicKey[]) => {
    const data = Buffer.alloc(4 + 8 + 8 + 32);
    data.writeUInt32LE(13, 0);
    data.writeBigUInt64LE(lamports, 4);
    data.writeBigUInt64LE(100n, 12);
    pk(3).toBuffer().copy(data, 20);
    const metas = keys.map((pubkey) => ({ pubkey, isSigner: true, isWritable: true }));
    return new TransactionInstruction({ programId: SystemProgram.programId, keys: metas, data });
  };
  same(
    parse(prefund(0n, [pk(2)])),
    system({ info: { newAccount: s(2), owner: s(3), space: 100 }, type: 'createAccountAllowPrefund' }),
  );
  same(
    parse(prefund(5n, [pk(2), pk(1)])),
    system({
      info: { lamports: 5, newAccount: s(2), owner: s(3), source: s(1), space: 100 },
      type: 'createAccountAllowPrefund',
    }),
  );
  const noFunder = prefund(5n, [pk(2)]);
  same(parse(noFunder), partial(noFunder));
});

test('system: too few accounts, truncated or unknown data, no accounts: the partially decoded form', () => {
  const ix = SystemProgram.transfer({ fromPubkey: pk(1), toPubkey: pk(2), lamports: 1 });
  const oneAccount = new TransactionInstruction({ programId: ix.programId, keys: ix.keys.slice(0, 1), data: ix.data });
  same(parse(oneAccount, 1), partial(oneAccount, 1));
  const truncated = new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys,
    data: ix.data.subarray(0, 9),
  });
  same(parse(truncated), partial(truncated));
  const unknownTag = new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys,
    data: Buffer.from([99, 0, 0, 0]),
  });
  same(parse(unknownTag), partial(unknownTag));
  // UpgradeNonceAccount needs no data beyond its tag, but Agave refuses an instruction with no accounts.
  const noAccounts = new TransactionInstruction({
    programId: ix.programId,
    keys: [],
    data: Buffer.from([12, 0, 0, 0]),
  });
  same(parse(noAccounts), partial(noAccounts));
});

test('unknown programs, and the compute budget program (not among those Agave parses): partially decoded', () => {
  const ix = new TransactionInstruction({
    programId: pk(200),
    keys: [
      { pubkey: pk(1), isSigner: true, isWritable: true },
      { pubkey: pk(2), isSigner: false, isWritable: false },
    ],
    data: Buffer.from([1, 2, 3, 0]),
  });
  same(parse(ix, 1), {
    programId: s(200),
    accounts: [s(1), s(2)],
    data: encodeBase58(Uint8Array.of(1, 2, 3, 0)),
    stackHeight: 1,
  });
  for (const cb of [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1000 }),
  ]) {
    same(parse(cb), partial(cb));
    assert.deepEqual(Object.keys(parse(cb) as object), ['programId', 'accounts', 'data', 'stackHeight']);
  }
});

test('spl-token: mint and account initialization', () => {
  same(
    parse(createInitializeMintInstruction(pk(10), 6, pk(11), pk(12))),
    token({
      info: { decimals: 6, freezeAuthority: s(12), mint: s(10), mintAuthority: s(11), rentSysvar: RENT },
      type: 'initializeMint',
    }),
  );
  same(
    parse(createInitializeMint2Instruction(pk(10), 9, pk(11), null, TOKEN_2022_PROGRAM_ID)),
    token({ info: { decimals: 9, mint: s(10), mintAuthority: s(11) }, type: 'initializeMint2' }, TOKEN22),
  );
  same(
    parse(createInitializeMint2Instruction(pk(10), 0, pk(11), pk(12))),
    token({
      info: { decimals: 0, freezeAuthority: s(12), mint: s(10), mintAuthority: s(11) },
      type: 'initializeMint2',
    }),
  );
  same(
    parse(createInitializeAccountInstruction(pk(20), pk(10), pk(21))),
    token({ info: { account: s(20), mint: s(10), owner: s(21), rentSysvar: RENT }, type: 'initializeAccount' }),
  );
  same(
    parse(createInitializeAccount3Instruction(pk(20), pk(10), pk(21))),
    token({ info: { account: s(20), mint: s(10), owner: s(21) }, type: 'initializeAccount3' }),
  );
  same(
    parse(createInitializeMultisigInstruction(pk(30), [pk(31), pk(32), pk(33)], 2)),
    token({
      info: { m: 2, multisig: s(30), rentSysvar: RENT, signers: [s(31), s(32), s(33)] },
      type: 'initializeMultisig',
    }),
  );
  same(parse(createSyncNativeInstruction(pk(20))), token({ info: { account: s(20) }, type: 'syncNative' }));
});

test('spl-token: transfers carry the amount as a string, checked ones a UiTokenAmount; multisig signers', () => {
  same(
    parse(createTransferInstruction(pk(20), pk(22), pk(21), U64_MAX)),
    token({
      info: { amount: '18446744073709551615', authority: s(21), destination: s(22), source: s(20) },
      type: 'transfer',
    }),
  );
  same(
    parse(createTransferInstruction(pk(20), pk(22), pk(30), 5n, [pk(31), pk(32)])),
    token({
      info: { amount: '5', destination: s(22), multisigAuthority: s(30), signers: [s(31), s(32)], source: s(20) },
      type: 'transfer',
    }),
  );
  same(
    parse(
      createTransferCheckedInstruction(pk(20), pk(10), pk(22), pk(21), 1_234_567_890n, 6, [], TOKEN_2022_PROGRAM_ID),
    ),
    token(
      {
        info: {
          authority: s(21),
          destination: s(22),
          mint: s(10),
          source: s(20),
          tokenAmount: { amount: '1234567890', decimals: 6, uiAmount: 1234.56789, uiAmountString: '1234.56789' },
        },
        type: 'transferChecked',
      },
      TOKEN22,
    ),
  );
  same(
    parse(createMintToCheckedInstruction(pk(10), pk(20), pk(11), 100_000n, 5)),
    token({
      info: {
        account: s(20),
        mint: s(10),
        mintAuthority: s(11),
        tokenAmount: { amount: '100000', decimals: 5, uiAmount: 1, uiAmountString: '1' },
      },
      type: 'mintToChecked',
    }),
  );
  same(
    parse(createBurnCheckedInstruction(pk(20), pk(10), pk(21), 0n, 9)),
    token({
      info: {
        account: s(20),
        authority: s(21),
        mint: s(10),
        tokenAmount: { amount: '0', decimals: 9, uiAmount: 0, uiAmountString: '0' },
      },
      type: 'burnChecked',
    }),
  );
  // Past 19 decimals 10^decimals overflows a usize: no uiAmount.
  same(
    parse(createTransferCheckedInstruction(pk(20), pk(10), pk(22), pk(21), 5n, 20)),
    token({
      info: {
        authority: s(21),
        destination: s(22),
        mint: s(10),
        source: s(20),
        tokenAmount: { amount: '5', decimals: 20, uiAmount: null, uiAmountString: '0.00000000000000000005' },
      },
      type: 'transferChecked',
    }),
  );
  same(
    parse(createMintToInstruction(pk(10), pk(20), pk(11), 77n)),
    token({ info: { account: s(20), amount: '77', mint: s(10), mintAuthority: s(11) }, type: 'mintTo' }),
  );
});

test('spl-token: approvals, authorities, closing, freezing, amount conversions', () => {
  same(
    parse(createApproveInstruction(pk(20), pk(23), pk(21), 50n)),
    token({ info: { amount: '50', delegate: s(23), owner: s(21), source: s(20) }, type: 'approve' }),
  );
  same(
    parse(createRevokeInstruction(pk(20), pk(30), [pk(31)])),
    token({ info: { multisigOwner: s(30), signers: [s(31)], source: s(20) }, type: 'revoke' }),
  );
  same(
    parse(createSetAuthorityInstruction(pk(10), pk(11), AuthorityType.MintTokens, pk(12))),
    token({
      info: { authority: s(11), authorityType: 'mintTokens', mint: s(10), newAuthority: s(12) },
      type: 'setAuthority',
    }),
  );
  same(
    parse(createSetAuthorityInstruction(pk(20), pk(21), AuthorityType.CloseAccount, null)),
    token({
      info: { account: s(20), authority: s(21), authorityType: 'closeAccount', newAuthority: null },
      type: 'setAuthority',
    }),
  );
  same(
    parse(createCloseAccountInstruction(pk(20), pk(22), pk(21))),
    token({ info: { account: s(20), destination: s(22), owner: s(21) }, type: 'closeAccount' }),
  );
  same(
    parse(createFreezeAccountInstruction(pk(20), pk(10), pk(12))),
    token({ info: { account: s(20), freezeAuthority: s(12), mint: s(10) }, type: 'freezeAccount' }),
  );
  same(
    parse(createThawAccountInstruction(pk(20), pk(10), pk(12))),
    token({ info: { account: s(20), freezeAuthority: s(12), mint: s(10) }, type: 'thawAccount' }),
  );
  same(
    parse(createAmountToUiAmountInstruction(pk(10), 12n)),
    token({ info: { amount: '12', mint: s(10) }, type: 'amountToUiAmount' }),
  );
  same(
    parse(createUiAmountToAmountInstruction(pk(10), '1.5')),
    token({ info: { mint: s(10), uiAmount: '1.5' }, type: 'uiAmountToAmount' }),
  );
});

test('spl-token: truncated data, too few accounts, a nested batch: partially decoded', () => {
  const ix = createTransferInstruction(pk(20), pk(22), pk(21), 5n);
  const truncated = new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys,
    data: ix.data.subarray(0, 5),
  });
  same(parse(truncated), partial(truncated));
  const short = new TransactionInstruction({ programId: ix.programId, keys: ix.keys.slice(0, 2), data: ix.data });
  same(parse(short, 3), partial(short, 3));
  const badOption = createInitializeMint2Instruction(pk(10), 9, pk(11), null);
  badOption.data[34] = 2;
  same(parse(badOption), partial(badOption));
  const nested = new TransactionInstruction({
    programId: ix.programId,
    keys: ix.keys,
    data: Buffer.from([255, 0, 1, 255]),
  });
  same(parse(nested), partial(nested));
});

test('spl-token: a batch parses each inner instruction over its share of the accounts', () => {
  const transfer = createTransferInstruction(pk(20), pk(22), pk(21), 5n);
  const sync = createSyncNativeInstruction(pk(22));
  const data = Buffer.concat([
    Buffer.from([255, 3, transfer.data.length]),
    transfer.data,
    Buffer.from([1, sync.data.length]),
    sync.data,
  ]);
  const ix = new TransactionInstruction({ programId: TOKEN_PROGRAM_ID, keys: [...transfer.keys, ...sync.keys], data });
  same(
    parse(ix),
    token({
      info: {
        instructions: [
          { info: { amount: '5', authority: s(21), destination: s(22), source: s(20) }, type: 'transfer' },
          { info: { account: s(22) }, type: 'syncNative' },
        ],
      },
      type: 'batch',
    }),
  );
});

test('token-2022 extensions: transfer fees, default state, memo transfers, CPI guard, close authority, delegate', () => {
  same(
    parse(createInitializeTransferFeeConfigInstruction(pk(10), pk(13), null, 50, 10_000n)),
    token(
      {
        info: { maximumFee: 10000, mint: s(10), transferFeeBasisPoints: 50, transferFeeConfigAuthority: s(13) },
        type: 'initializeTransferFeeConfig',
      },
      TOKEN22,
    ),
  );
  same(
    parse(createTransferCheckedWithFeeInstruction(pk(20), pk(10), pk(22), pk(21), 55n, 2, 5n)),
    token(
      {
        info: {
          authority: s(21),
          destination: s(22),
          feeAmount: { amount: '5', decimals: 2, uiAmount: 0.05, uiAmountString: '0.05' },
          mint: s(10),
          source: s(20),
          tokenAmount: { amount: '55', decimals: 2, uiAmount: 0.55, uiAmountString: '0.55' },
        },
        type: 'transferCheckedWithFee',
      },
      TOKEN22,
    ),
  );
  same(
    parse(createWithdrawWithheldTokensFromAccountsInstruction(pk(10), pk(22), pk(30), [pk(31)], [pk(40), pk(41)])),
    token(
      {
        info: {
          feeRecipient: s(22),
          mint: s(10),
          multisigWithdrawWithheldAuthority: s(30),
          signers: [s(31)],
          sourceAccounts: [s(40), s(41)],
        },
        type: 'withdrawWithheldTokensFromAccounts',
      },
      TOKEN22,
    ),
  );
  same(
    parse(createInitializeDefaultAccountStateInstruction(pk(10), AccountState.Frozen)),
    token({ info: { accountState: 'frozen', mint: s(10) }, type: 'initializeDefaultAccountState' }, TOKEN22),
  );
  same(
    parse(createUpdateDefaultAccountStateInstruction(pk(10), AccountState.Initialized, pk(12))),
    token(
      { info: { accountState: 'initialized', freezeAuthority: s(12), mint: s(10) }, type: 'updateDefaultAccountState' },
      TOKEN22,
    ),
  );
  same(
    parse(createEnableRequiredMemoTransfersInstruction(pk(20), pk(21))),
    token({ info: { account: s(20), owner: s(21) }, type: 'enableRequiredMemoTransfers' }, TOKEN22),
  );
  same(
    parse(createDisableCpiGuardInstruction(pk(20), pk(30), [pk(31), pk(32)])),
    token(
      { info: { account: s(20), multisigOwner: s(30), signers: [s(31), s(32)] }, type: 'disableCpiGuard' },
      TOKEN22,
    ),
  );
  same(
    parse(createInitializeMintCloseAuthorityInstruction(pk(10), null, TOKEN_2022_PROGRAM_ID)),
    token({ info: { mint: s(10), newAuthority: null }, type: 'initializeMintCloseAuthority' }, TOKEN22),
  );
  same(
    parse(createInitializePermanentDelegateInstruction(pk(10), pk(14), TOKEN_2022_PROGRAM_ID)),
    token({ info: { delegate: s(14), mint: s(10) }, type: 'initializePermanentDelegate' }, TOKEN22),
  );
  same(
    parse(createReallocateInstruction(pk(20), pk(1), [ExtensionType.MemoTransfer, ExtensionType.CpiGuard], pk(21))),
    token(
      {
        info: {
          account: s(20),
          extensionTypes: ['memoTransfer', 'cpiGuard'],
          owner: s(21),
          payer: s(1),
          systemProgram: SYSTEM,
        },
        type: 'reallocate',
      },
      TOKEN22,
    ),
  );
});

test('token-2022 extensions: pointers, interest, scaled UI amount, pausable', () => {
  same(
    parse(createInitializeMetadataPointerInstruction(pk(10), pk(11), pk(10), TOKEN_2022_PROGRAM_ID)),
    token(
      { info: { authority: s(11), metadataAddress: s(10), mint: s(10) }, type: 'initializeMetadataPointer' },
      TOKEN22,
    ),
  );
  same(
    parse(createInitializeMetadataPointerInstruction(pk(10), null, null, TOKEN_2022_PROGRAM_ID)),
    token({ info: { mint: s(10) }, type: 'initializeMetadataPointer' }, TOKEN22),
  );
  same(
    parse(createUpdateGroupPointerInstruction(pk(10), pk(11), pk(15), [], TOKEN_2022_PROGRAM_ID)),
    token({ info: { authority: s(11), groupAddress: s(15), mint: s(10) }, type: 'updateGroupPointer' }, TOKEN22),
  );
  same(
    parse(createInitializeInterestBearingMintInstruction(pk(10), pk(11), -25)),
    token({ info: { mint: s(10), rate: -25, rateAuthority: s(11) }, type: 'initializeInterestBearingConfig' }, TOKEN22),
  );
  same(
    parse(createInitializeScaledUiAmountConfigInstruction(pk(10), null, 1.5)),
    token(
      { info: { authority: null, mint: s(10), multiplier: '1.5' }, type: 'initializeScaledUiAmountConfig' },
      TOKEN22,
    ),
  );
  same(
    parse(createInitializePausableConfigInstruction(pk(10), PublicKey.default)),
    token(
      { info: { authority: PublicKey.default.toBase58(), mint: s(10) }, type: 'initializePausableConfig' },
      TOKEN22,
    ),
  );
  // Rust prints an f64 in full, never in exponent form.
  assert.deepEqual([2, 1e21, 1e-7, -0, Infinity, NaN, 0.1].map(rustF64), [
    '2',
    '1000000000000000000000',
    '0.0000001',
    '-0',
    'inf',
    'NaN',
    '0.1',
  ]);
});

test('token-2022: the token-metadata and token-group interfaces', () => {
  same(
    parse(
      createInitializeInstruction({
        programId: TOKEN_2022_PROGRAM_ID,
        metadata: pk(10),
        updateAuthority: pk(11),
        mint: pk(10),
        mintAuthority: pk(11),
        name: 'Mega',
        symbol: 'MEGA',
        uri: 'https://example.com/m.json',
      }),
    ),
    token(
      {
        info: {
          metadata: s(10),
          mint: s(10),
          mintAuthority: s(11),
          name: 'Mega',
          symbol: 'MEGA',
          updateAuthority: s(11),
          uri: 'https://example.com/m.json',
        },
        type: 'initializeTokenMetadata',
      },
      TOKEN22,
    ),
  );
  same(
    parse(
      createUpdateFieldInstruction({
        programId: TOKEN_2022_PROGRAM_ID,
        metadata: pk(10),
        updateAuthority: pk(11),
        field: 'color',
        value: 'blue',
      }),
    ),
    token(
      {
        info: { field: 'color', metadata: s(10), updateAuthority: s(11), value: 'blue' },
        type: 'updateTokenMetadataField',
      },
      TOKEN22,
    ),
  );
  same(
    parse(createEmitInstruction({ programId: TOKEN_2022_PROGRAM_ID, metadata: pk(10), start: 1n })),
    token({ info: { metadata: s(10), start: 1 }, type: 'emitTokenMetadata' }, TOKEN22),
  );
  same(
    parse(
      createInitializeGroupInstruction({
        programId: TOKEN_2022_PROGRAM_ID,
        group: pk(15),
        mint: pk(10),
        mintAuthority: pk(11),
        updateAuthority: null,
        maxSize: 300n,
      }),
    ),
    token(
      {
        info: { group: s(15), maxSize: 300, mint: s(10), mintAuthority: s(11), updateAuthority: null },
        type: 'initializeTokenGroup',
      },
      TOKEN22,
    ),
  );
});

test('associated token accounts: create, createIdempotent, the legacy empty-data create, recoverNested', () => {
  // The test keys are not ed25519 points: derive as for an off-curve owner.
  const ata = getAssociatedTokenAddressSync(pk(10), pk(21), true);
  const info = {
    account: ata.toBase58(),
    mint: s(10),
    source: s(1),
    systemProgram: SYSTEM,
    tokenProgram: TOKEN,
    wallet: s(21),
  };
  const ATA = ASSOCIATED_TOKEN_PROGRAM_ID.toBase58();
  const create = createAssociatedTokenAccountInstruction(pk(1), ata, pk(21), pk(10));
  same(parse(create), parsed('spl-associated-token-account', ATA, { info, type: 'create' }));
  same(
    parse(createAssociatedTokenAccountIdempotentInstruction(pk(1), ata, pk(21), pk(10))),
    parsed('spl-associated-token-account', ATA, { info, type: 'createIdempotent' }),
  );
  // The original Create: no data, and the rent sysvar as a seventh account, which is not shown.
  const legacy = new TransactionInstruction({
    programId: ASSOCIATED_TOKEN_PROGRAM_ID,
    keys: [...create.keys, { pubkey: SYSVAR_RENT_PUBKEY, isSigner: false, isWritable: false }],
    data: Buffer.alloc(0),
  });
  same(parse(legacy), parsed('spl-associated-token-account', ATA, { info, type: 'create' }));
  const ownerAta = getAssociatedTokenAddressSync(pk(16), pk(21), true);
  const nested = getAssociatedTokenAddressSync(pk(10), ownerAta, true);
  const destination = ata;
  same(
    parse(createRecoverNestedInstruction(nested, pk(10), destination, ownerAta, pk(16), pk(21))),
    parsed('spl-associated-token-account', ATA, {
      info: {
        destination: destination.toBase58(),
        nestedMint: s(10),
        nestedOwner: ownerAta.toBase58(),
        nestedSource: nested.toBase58(),
        ownerMint: s(16),
        tokenProgram: TOKEN,
        wallet: s(21),
      },
      type: 'recoverNested',
    }),
  );
  const short = new TransactionInstruction({
    programId: create.programId,
    keys: create.keys.slice(0, 5),
    data: create.data,
  });
  same(parse(short), partial(short));
  const extra = new TransactionInstruction({
    programId: create.programId,
    keys: create.keys,
    data: Buffer.from([1, 0]),
  });
  same(parse(extra), partial(extra));
});

test('memo v1, v3 and v4: the text itself; invalid UTF-8 is partially decoded', () => {
  for (const id of [
    'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
    'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    'Memo4c2pN8afCj432Lb7RMVKi9PbQnnW7ewFFaV3oAH',
  ]) {
    const ix = new TransactionInstruction({
      programId: new PublicKey(id),
      keys: [],
      data: Buffer.from('🦖 gm', 'utf8'),
    });
    same(parse(ix, 1), parsed('spl-memo', id, '🦖 gm', 1));
  }
  // A byte-order mark stays part of the memo, as Rust's from_utf8 leaves it.
  const bom = new TransactionInstruction({
    programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
    keys: [],
    data: Buffer.from([0xef, 0xbb, 0xbf, 0x61]),
  });
  same(parse(bom), parsed('spl-memo', 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', '\ufeffa'));
  const bad = new TransactionInstruction({ programId: bom.programId, keys: [], data: Buffer.from([0x80]) });
  same(parse(bad), partial(bad));
});

test('address lookup tables', () => {
  const ALT = AddressLookupTableProgram.programId.toBase58();
  const [create, table] = AddressLookupTableProgram.createLookupTable({
    authority: pk(11),
    payer: pk(1),
    recentSlot: 42,
  });
  const bump = create.data[12]!;
  same(
    parse(create),
    parsed('address-lookup-table', ALT, {
      info: {
        bumpSeed: bump,
        lookupTableAccount: table.toBase58(),
        lookupTableAuthority: s(11),
        payerAccount: s(1),
        recentSlot: 42,
        systemProgram: SYSTEM,
      },
      type: 'createLookupTable',
    }),
  );
  same(
    parse(
      AddressLookupTableProgram.extendLookupTable({
        lookupTable: table,
        authority: pk(11),
        payer: pk(1),
        addresses: [pk(50), pk(51)],
      }),
    ),
    parsed('address-lookup-table', ALT, {
      info: {
        lookupTableAccount: table.toBase58(),
        lookupTableAuthority: s(11),
        newAddresses: [s(50), s(51)],
        payerAccount: s(1),
        systemProgram: SYSTEM,
      },
      type: 'extendLookupTable',
    }),
  );
  same(
    parse(AddressLookupTableProgram.extendLookupTable({ lookupTable: table, authority: pk(11), addresses: [] })),
    parsed('address-lookup-table', ALT, {
      info: { lookupTableAccount: table.toBase58(), lookupTableAuthority: s(11), newAddresses: [] },
      type: 'extendLookupTable',
    }),
  );
  same(
    parse(AddressLookupTableProgram.closeLookupTable({ lookupTable: table, authority: pk(11), recipient: pk(1) })),
    parsed('address-lookup-table', ALT, {
      info: { lookupTableAccount: table.toBase58(), lookupTableAuthority: s(11), recipient: s(1) },
      type: 'closeLookupTable',
    }),
  );
  same(
    parse(AddressLookupTableProgram.freezeLookupTable({ lookupTable: table, authority: pk(11) })),
    parsed('address-lookup-table', ALT, {
      info: { lookupTableAccount: table.toBase58(), lookupTableAuthority: s(11) },
      type: 'freezeLookupTable',
    }),
  );
});

test('BPF loaders: bincode instructions of the v2 and upgradeable loaders', () => {
  const V2 = 'BPFLoader2111111111111111111111111111111111';
  const V3 = 'BPFLoaderUpgradeab1e11111111111111111111111';
  const ix = (programId: string, data: Buffer, keys: number[]) =>
    new TransactionInstruction({
      programId: new PublicKey(programId),
      keys: keys.map((n) => ({ pubkey: pk(n), isSigner: false, isWritable: true })),
      data,
    });
  const write = Buffer.alloc(4 + 4 + 8 + 3);
  write.writeUInt32LE(0, 0);
  write.writeUInt32LE(4242, 4);
  write.writeBigUInt64LE(3n, 8);
  write.set([1, 2, 3], 16);
  same(
    parse(ix(V2, write, [60])),
    parsed('bpf-loader', V2, { info: { account: s(60), bytes: 'AQID', offset: 4242 }, type: 'write' }),
  );
  const setAuthority = Buffer.from([4, 0, 0, 0]);
  same(
    parse(ix(V3, setAuthority, [60, 61])),
    parsed('bpf-upgradeable-loader', V3, {
      info: { account: s(60), authority: s(61), newAuthority: null },
      type: 'setAuthority',
    }),
  );
  const extend = Buffer.from([6, 0, 0, 0, 0, 4, 0, 0]);
  same(
    parse(ix(V3, extend, [60, 61, 0])),
    parsed('bpf-upgradeable-loader', V3, {
      info: {
        additionalBytes: 1024,
        payerAccount: null,
        programAccount: s(61),
        programDataAccount: s(60),
        systemProgram: SYSTEM,
      },
      type: 'extendProgram',
    }),
  );
  const deploy = Buffer.alloc(12);
  deploy.writeUInt32LE(2, 0);
  deploy.writeBigUInt64LE(54321n, 4);
  same(
    parse(ix(V3, deploy, [1, 2, 3, 4, 5, 6, 7, 8])),
    parsed('bpf-upgradeable-loader', V3, {
      info: {
        authority: s(8),
        bufferAccount: s(4),
        clockSysvar: s(6),
        maxDataLen: 54321,
        payerAccount: s(1),
        programAccount: s(3),
        programDataAccount: s(2),
        rentSysvar: s(5),
        systemProgram: s(7),
      },
      type: 'deployWithMaxDataLen',
    }),
  );
  const shortDeploy = ix(V3, deploy, [1, 2, 3]);
  same(parse(shortDeploy), partial(shortDeploy));
  // Migrate (8), gone from the loader-v3 interface Agave now builds with.
  const migrate = ix(V3, Buffer.from([8, 0, 0, 0]), [1, 2, 3]);
  same(parse(migrate), partial(migrate));
});

test('stake: the legacy account lists (with sysvars) and custodians', () => {
  const STAKE = StakeProgram.programId.toBase58();
  const [init] = StakeProgram.createAccount({
    fromPubkey: pk(1),
    stakePubkey: pk(70),
    authorized: { staker: pk(71), withdrawer: pk(72) },
    lockup: new Lockup(1_234_567_890, 11, pk(73)),
    lamports: 1e9,
  }).instructions.slice(1);
  same(
    parse(init!),
    parsed('stake', STAKE, {
      info: {
        authorized: { staker: s(71), withdrawer: s(72) },
        lockup: { custodian: s(73), epoch: 11, unixTimestamp: 1234567890 },
        rentSysvar: RENT,
        stakeAccount: s(70),
      },
      type: 'initialize',
    }),
  );
  const [delegate] = StakeProgram.delegate({
    stakePubkey: pk(70),
    authorizedPubkey: pk(71),
    votePubkey: pk(80),
  }).instructions;
  same(
    parse(delegate!),
    parsed('stake', STAKE, {
      info: {
        clockSysvar: CLOCK,
        stakeAccount: s(70),
        stakeAuthority: s(71),
        stakeConfigAccount: 'StakeConfig11111111111111111111111111111111',
        stakeHistorySysvar: SYSVAR_STAKE_HISTORY_PUBKEY.toBase58(),
        voteAccount: s(80),
      },
      type: 'delegate',
    }),
  );
  const [authorize] = StakeProgram.authorize({
    stakePubkey: pk(70),
    authorizedPubkey: pk(72),
    newAuthorizedPubkey: pk(74),
    stakeAuthorizationType: StakeAuthorizationLayout.Withdrawer,
    custodianPubkey: pk(73),
  }).instructions;
  same(
    parse(authorize!),
    parsed('stake', STAKE, {
      info: {
        authority: s(72),
        authorityType: 'Withdrawer',
        clockSysvar: CLOCK,
        custodian: s(73),
        newAuthority: s(74),
        stakeAccount: s(70),
      },
      type: 'authorize',
    }),
  );
  const [withdraw] = StakeProgram.withdraw({
    stakePubkey: pk(70),
    authorizedPubkey: pk(72),
    toPubkey: pk(1),
    lamports: 5,
  }).instructions;
  same(
    parse(withdraw!),
    parsed('stake', STAKE, {
      info: {
        clockSysvar: CLOCK,
        destination: s(1),
        lamports: 5,
        stakeAccount: s(70),
        stakeHistorySysvar: SYSVAR_STAKE_HISTORY_PUBKEY.toBase58(),
        withdrawAuthority: s(72),
      },
      type: 'withdraw',
    }),
  );
  const [deactivate] = StakeProgram.deactivate({ stakePubkey: pk(70), authorizedPubkey: pk(71) }).instructions;
  same(
    parse(deactivate!),
    parsed('stake', STAKE, {
      info: { clockSysvar: CLOCK, stakeAccount: s(70), stakeAuthority: s(71) },
      type: 'deactivate',
    }),
  );
  // Split(u64) by hand: the type checker here sees an older web3.js whose split() builder differs.
  const splitData = Buffer.alloc(12);
  splitData.writeUInt32LE(3, 0);
  splitData.writeBigUInt64LE(9n, 4);
  const split = new TransactionInstruction({
    programId: StakeProgram.programId,
    keys: [pk(70), pk(75), pk(71)].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    data: splitData,
  });
  same(
    parse(split),
    parsed('stake', STAKE, {
      info: { lamports: 9, newSplitAccount: s(75), stakeAccount: s(70), stakeAuthority: s(71) },
      type: 'split',
    }),
  );
  // GetMinimumDelegation has no info; Agave leaves the key out.
  const min = new TransactionInstruction({
    programId: StakeProgram.programId,
    keys: [{ pubkey: pk(70), isSigner: false, isWritable: false }],
    data: Buffer.from([13, 0, 0, 0]),
  });
  same(parse(min), parsed('stake', STAKE, { type: 'getMinimumDelegation' }));
});

test('stake: the minimal account lists of the Core BPF stake program', () => {
  const STAKE = StakeProgram.programId.toBase58();
  const data = Buffer.alloc(4);
  data.writeUInt32LE(5, 0);
  const deactivate = new TransactionInstruction({
    programId: StakeProgram.programId,
    keys: [pk(70), pk(71)].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    data,
  });
  same(
    parse(deactivate),
    parsed('stake', STAKE, { info: { stakeAccount: s(70), stakeAuthority: s(71) }, type: 'deactivate' }),
  );
  data.writeUInt32LE(2, 0);
  const delegate = new TransactionInstruction({
    programId: StakeProgram.programId,
    keys: [pk(70), pk(80), pk(71)].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    data,
  });
  same(
    parse(delegate),
    parsed('stake', STAKE, {
      info: { stakeAccount: s(70), stakeAuthority: s(71), voteAccount: s(80) },
      type: 'delegate',
    }),
  );
});

test('vote: initialize, authorize, withdraw, and a compact tower sync', () => {
  const VOTE = VoteProgram.programId.toBase58();
  const [init] = VoteProgram.createAccount({
    fromPubkey: pk(1),
    votePubkey: pk(80),
    voteInit: new VoteInit(pk(81), pk(82), pk(83), 10),
    lamports: 1e9,
  }).instructions.slice(1);
  same(
    parse(init!),
    parsed('vote', VOTE, {
      info: {
        authorizedVoter: s(82),
        authorizedWithdrawer: s(83),
        clockSysvar: CLOCK,
        commission: 10,
        node: s(81),
        rentSysvar: RENT,
        voteAccount: s(80),
      },
      type: 'initialize',
    }),
  );
  const [authorize] = VoteProgram.authorize({
    votePubkey: pk(80),
    authorizedPubkey: pk(82),
    newAuthorizedPubkey: pk(84),
    voteAuthorizationType: VoteAuthorizationLayout.Voter,
  }).instructions;
  same(
    parse(authorize!),
    parsed('vote', VOTE, {
      info: { authority: s(82), authorityType: 'Voter', clockSysvar: CLOCK, newAuthority: s(84), voteAccount: s(80) },
      type: 'authorize',
    }),
  );
  const [withdraw] = VoteProgram.withdraw({
    votePubkey: pk(80),
    authorizedWithdrawerPubkey: pk(83),
    lamports: 77,
    toPubkey: pk(1),
  }).instructions;
  same(
    parse(withdraw!),
    parsed('vote', VOTE, {
      info: { destination: s(1), lamports: 77, voteAccount: s(80), withdrawAuthority: s(83) },
      type: 'withdraw',
    }),
  );
  // TowerSync (14): root 100, lockouts at offsets 1 and 300 (LEB128: ac 02), a timestamp, a block id.
  const hash = new Uint8Array(32).fill(9);
  const blockId = new Uint8Array(32).fill(8);
  const root = Buffer.alloc(8);
  root.writeBigUInt64LE(100n);
  const ts = Buffer.alloc(8);
  ts.writeBigInt64LE(1_700_000_000n);
  const data = Buffer.concat([
    Buffer.from([14, 0, 0, 0]),
    root,
    Buffer.from([2, 1, 31, 0xac, 0x02, 30]),
    hash,
    Buffer.from([1]),
    ts,
    blockId,
  ]);
  const tower = new TransactionInstruction({
    programId: VoteProgram.programId,
    keys: [pk(80), pk(82)].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })),
    data,
  });
  same(
    parse(tower),
    parsed('vote', VOTE, {
      info: {
        towerSync: {
          blockId: encodeBase58(blockId),
          hash: encodeBase58(hash),
          lockouts: [
            { confirmation_count: 31, slot: 101 },
            { confirmation_count: 30, slot: 401 },
          ],
          root: 100,
          timestamp: 1700000000,
        },
        voteAccount: s(80),
        voteAuthority: s(82),
      },
      type: 'towersync',
    }),
  );
  // A redundant trailing zero byte in the LEB128 offset is refused.
  const alias = Buffer.from(data);
  alias.set([0x81, 0x00], 15);
  const bad = new TransactionInstruction({ programId: tower.programId, keys: tower.keys, data: alias });
  same(parse(bad), partial(bad));
});

test('no parser failure but "not parsable": every truncation of data and accounts, and random bytes, for every parsed program', () => {
  const programs = [
    SYSTEM,
    TOKEN,
    TOKEN22,
    ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
    'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
    'BPFLoader2111111111111111111111111111111111',
    'BPFLoaderUpgradeab1e11111111111111111111111',
    AddressLookupTableProgram.programId.toBase58(),
    StakeProgram.programId.toBase58(),
    VoteProgram.programId.toBase58(),
  ];
  const samples = [
    SystemProgram.createAccountWithSeed({
      fromPubkey: pk(1),
      newAccountPubkey: pk(2),
      basePubkey: pk(4),
      seed: 'seed',
      lamports: 7,
      space: 200,
      programId: pk(3),
    }),
    createTransferCheckedWithFeeInstruction(pk(20), pk(10), pk(22), pk(30), 55n, 2, 5n, [pk(31), pk(32)]),
    createInitializeInstruction({
      programId: TOKEN_2022_PROGRAM_ID,
      metadata: pk(10),
      updateAuthority: pk(11),
      mint: pk(10),
      mintAuthority: pk(11),
      name: 'n',
      symbol: 's',
      uri: 'u',
    }),
    StakeProgram.authorizeWithSeed({
      stakePubkey: pk(70),
      authorityBase: pk(71),
      authoritySeed: 'seed',
      authorityOwner: pk(72),
      newAuthorizedPubkey: pk(73),
      stakeAuthorizationType: StakeAuthorizationLayout.Staker,
      custodianPubkey: pk(74),
    }).instructions[0]!,
  ];
  const shapes = [
    ['program', 'programId', 'parsed', 'stackHeight'],
    ['programId', 'accounts', 'data', 'stackHeight'],
  ].map((k) => k.join());
  const check = (programId: string, accounts: string[], data: Uint8Array) => {
    // parseInstruction also answers for a parser bug; parseProgram lets one through.
    parseProgram(programId, accounts, data);
    const out = parseInstruction(programId, accounts, data, null) as object;
    assert.ok(shapes.includes(Object.keys(out).join()), stringifyJson(out));
    stringifyJson(out);
  };
  for (const ix of samples) {
    const accounts = ix.keys.map((k) => k.pubkey.toBase58());
    for (let n = 0; n <= ix.data.length; n++)
      check(ix.programId.toBase58(), accounts, new Uint8Array(ix.data.subarray(0, n)));
    for (let n = 0; n <= accounts.length; n++)
      check(ix.programId.toBase58(), accounts.slice(0, n), new Uint8Array(ix.data));
  }
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const programId of programs) {
    for (let i = 0; i < 400; i++) {
      const data = Uint8Array.from({ length: Math.floor(rand() * 80) }, () => Math.floor(rand() * 256));
      // Small leading values reach the known tags of every encoding (u8 and u32 tags).
      if (data.length > 0 && rand() < 0.7) data[0] = Math.floor(rand() * 48);
      if (data.length > 3 && rand() < 0.5) data.fill(0, 1, 4);
      const accounts = Array.from({ length: Math.floor(rand() * 12) }, (_, j) => s(j + 1));
      check(programId, accounts, data);
    }
  }
});
