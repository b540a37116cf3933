// Encodings of accounts and transactions as Agave answers them (ParsedInstruction and ParsedAccount
// are structs, their `parsed` values serde_json maps with sorted keys), through real HTTP and unmodified
// clients: jsonParsed accounts (web3.js getParsedAccountInfo / getParsedTokenAccountsByOwner),
// base64+zstd (decoded with an independent zstd decoder), transactions in json / jsonParsed /
// base58 / base64 with token balances and inner instructions, v0 transactions with their loaded
// addresses, getBlock's "accounts" detail, and blockSubscribe.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decompress } from 'fzstd';
import {
  AddressLookupTableProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  createMint,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  transfer as splTransfer,
} from '@solana/spl-token';
import {
  rpcCall,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  stopWithConnection,
  web3Connection,
} from '../helpers/gateway.js';
import { WsClient } from '../helpers/ws-client.js';

let gw: TestGateway;
let conn: Connection;
const call = (method: string, params: unknown) => rpcCall(gw.url, method, params);

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  conn = web3Connection(gw);
});
after(() => stopWithConnection(gw, conn));

async function funded(lamports = LAMPORTS_PER_SOL): Promise<Keypair> {
  const kp = Keypair.generate();
  const signature = await conn.requestAirdrop(kp.publicKey, lamports);
  await conn.confirmTransaction({ signature, ...(await conn.getLatestBlockhash()) }, 'confirmed');
  return kp;
}

/** The result of a raw call, asserting it succeeded. */
async function result(method: string, params: unknown): Promise<any> {
  const r = await call(method, params);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result;
}

interface TokenSetup {
  payer: Keypair;
  alice: Keypair;
  bob: Keypair;
  mint: PublicKey;
  aliceAta: PublicKey;
  bobAta: PublicKey;
  transferSig: string;
}
let tokens: TokenSetup | undefined;

/** createMint / two ATAs / mintTo / transfer, once for the tests that read them. */
async function tokenSetup(): Promise<TokenSetup> {
  if (tokens) return tokens;
  const payer = await funded();
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  const mint = await createMint(conn, payer, payer.publicKey, null, 6);
  const aliceAta = (await getOrCreateAssociatedTokenAccount(conn, payer, mint, alice.publicKey)).address;
  const bobAta = (await getOrCreateAssociatedTokenAccount(conn, payer, mint, bob.publicKey)).address;
  await mintTo(conn, payer, mint, aliceAta, payer, 1_000_000n);
  const transferSig = await splTransfer(conn, payer, aliceAta, bobAta, alice, 250_000n);
  tokens = { payer, alice, bob, mint, aliceAta, bobAta, transferSig };
  return tokens;
}

test(
  'jsonParsed accounts: token account and mint (account-decoder form, keys sorted), system account falls back to base64',
  { timeout: 60_000 },
  async () => {
    const t = await tokenSetup();
    const raw = await result('getTokenAccountsByOwner', [
      t.alice.publicKey.toBase58(),
      { mint: t.mint.toBase58() },
      { encoding: 'jsonParsed' },
    ]);
    const b64 = await result('getAccountInfo', [t.aliceAta.toBase58(), { encoding: 'base64' }]);
    const expected = {
      pubkey: t.aliceAta.toBase58(),
      account: {
        data: {
          program: 'spl-token',
          parsed: {
            info: {
              isNative: false,
              mint: t.mint.toBase58(),
              owner: t.alice.publicKey.toBase58(),
              state: 'initialized',
              tokenAmount: { amount: '750000', decimals: 6, uiAmount: 0.75, uiAmountString: '0.75' },
            },
            type: 'account',
          },
          space: 165,
        },
        executable: false,
        lamports: b64.value.lamports,
        owner: TOKEN_PROGRAM_ID.toBase58(),
        rentEpoch: b64.value.rentEpoch,
        space: 165,
      },
    };
    assert.equal(JSON.stringify(raw.value), JSON.stringify([expected]));

    // The same through web3.js's own parsed methods.
    const parsed = await conn.getParsedTokenAccountsByOwner(t.alice.publicKey, { mint: t.mint });
    assert.equal(parsed.value.length, 1);
    assert.deepEqual(parsed.value[0]!.account.data, expected.account.data);

    const mintInfo = await conn.getParsedAccountInfo(t.mint);
    assert.deepEqual(mintInfo.value!.data, {
      program: 'spl-token',
      parsed: {
        info: {
          decimals: 6,
          freezeAuthority: null,
          isInitialized: true,
          mintAuthority: t.payer.publicKey.toBase58(),
          supply: '1000000',
        },
        type: 'mint',
      },
      space: 82,
    });

    // A system account holds no data account-decoder knows: base64, as Agave falls back.
    const sys = await result('getAccountInfo', [t.payer.publicKey.toBase58(), { encoding: 'jsonParsed' }]);
    assert.deepEqual(sys.value.data, ['', 'base64']);

    // jsonParsed with a dataSlice is refused as Agave refuses it.
    const sliced = await call('getAccountInfo', [
      t.mint.toBase58(),
      { encoding: 'jsonParsed', dataSlice: { offset: 0, length: 4 } },
    ]);
    assert.deepEqual(sliced.error, {
      code: -32600,
      message: 'Sliced account data can only be encoded using binary (base 58) or base64 encoding.',
    });
  },
);

test('Token-2022: token accounts are found by owner and parsed as spl-token-2022', { timeout: 60_000 }, async () => {
  const payer = await funded();
  const holder = Keypair.generate();
  const mint = await createMint(conn, payer, payer.publicKey, null, 2, undefined, undefined, TOKEN_2022_PROGRAM_ID);
  const ata = (
    await getOrCreateAssociatedTokenAccount(
      conn,
      payer,
      mint,
      holder.publicKey,
      false,
      undefined,
      undefined,
      TOKEN_2022_PROGRAM_ID,
    )
  ).address;
  await mintTo(conn, payer, mint, ata, payer, 12_345n, [], undefined, TOKEN_2022_PROGRAM_ID);
  const parsed = await conn.getParsedTokenAccountsByOwner(holder.publicKey, { programId: TOKEN_2022_PROGRAM_ID });
  assert.deepEqual(
    parsed.value.map((a) => [a.pubkey.toBase58(), a.account.data.program, a.account.data.parsed.info.tokenAmount]),
    [[ata.toBase58(), 'spl-token-2022', { amount: '12345', decimals: 2, uiAmount: 123.45, uiAmountString: '123.45' }]],
  );
  // Token-2022 accounts carry their account type after the base layout (an ImmutableOwner ATA: 170 bytes).
  assert.equal(parsed.value[0]!.account.data.space, 170);
  assert.deepEqual(parsed.value[0]!.account.data.parsed.info.extensions, [{ extension: 'immutableOwner' }]);
  assert.equal(
    (await conn.getParsedTokenAccountsByOwner(holder.publicKey, { programId: TOKEN_PROGRAM_ID })).value.length,
    0,
  );
});

test(
  'base64+zstd: the data decompresses (independent decoder) to the base64 bytes, dataSlice applied first',
  { timeout: 60_000 },
  async () => {
    const t = await tokenSetup();
    const plain = await result('getAccountInfo', [t.aliceAta.toBase58(), { encoding: 'base64' }]);
    const z = await result('getAccountInfo', [t.aliceAta.toBase58(), { encoding: 'base64+zstd' }]);
    assert.equal(z.value.data[1], 'base64+zstd');
    const bytes = Buffer.from(decompress(Buffer.from(z.value.data[0], 'base64')));
    assert.equal(bytes.toString('base64'), plain.value.data[0]);
    const { data: _a, ...restPlain } = plain.value;
    const { data: _b, ...restZ } = z.value;
    assert.deepEqual(restZ, restPlain);

    const slice = await result('getAccountInfo', [
      t.aliceAta.toBase58(),
      { encoding: 'base64+zstd', dataSlice: { offset: 32, length: 32 } },
    ]);
    assert.deepEqual(
      new PublicKey(Buffer.from(decompress(Buffer.from(slice.value.data[0], 'base64')))).toBase58(),
      t.alice.publicKey.toBase58(),
    );
    const many = await result('getMultipleAccounts', [[t.mint.toBase58()], { encoding: 'base64+zstd' }]);
    assert.equal(Buffer.from(decompress(Buffer.from(many.value[0].data[0], 'base64'))).length, 82);
  },
);

test(
  'getTransaction jsonParsed of an spl-token transfer: parsed instruction, account keys, token balances',
  { timeout: 60_000 },
  async () => {
    const t = await tokenSetup();
    const json = await result('getTransaction', [t.transferSig, { encoding: 'json' }]);
    const keys: string[] = json.transaction.message.accountKeys;
    const idx = (k: PublicKey) => keys.indexOf(k.toBase58());
    const balance = (account: PublicKey, amount: string, ui: number, uiString: string) => ({
      accountIndex: idx(account),
      mint: t.mint.toBase58(),
      uiTokenAmount: { uiAmount: ui, decimals: 6, amount, uiAmountString: uiString },
      owner: (account.equals(t.aliceAta) ? t.alice : t.bob).publicKey.toBase58(),
      programId: TOKEN_PROGRAM_ID.toBase58(),
    });
    const pre = [balance(t.aliceAta, '1000000', 1, '1'), balance(t.bobAta, '0', 0, '0')].sort(
      (a, b) => a.accountIndex - b.accountIndex,
    );
    const post = [balance(t.aliceAta, '750000', 0.75, '0.75'), balance(t.bobAta, '250000', 0.25, '0.25')].sort(
      (a, b) => a.accountIndex - b.accountIndex,
    );
    assert.equal(JSON.stringify(json.meta.preTokenBalances), JSON.stringify(pre));
    assert.equal(JSON.stringify(json.meta.postTokenBalances), JSON.stringify(post));
    // The raw message in Agave's field order; no `version` unless the client named one.
    assert.deepEqual(Object.keys(json.transaction.message), [
      'header',
      'accountKeys',
      'recentBlockhash',
      'instructions',
    ]);
    assert.deepEqual(Object.keys(json), ['slot', 'transaction', 'meta', 'blockTime']);
    assert.deepEqual(json.meta.loadedAddresses, { writable: [], readonly: [] });

    const parsed = await result('getTransaction', [t.transferSig, { encoding: 'jsonParsed' }]);
    const header = json.transaction.message.header;
    assert.deepEqual(
      parsed.transaction.message.accountKeys,
      keys.map((pubkey, i) => ({
        pubkey,
        writable:
          i < header.numRequiredSignatures
            ? i < header.numRequiredSignatures - header.numReadonlySignedAccounts
            : i < keys.length - header.numReadonlyUnsignedAccounts,
        signer: i < header.numRequiredSignatures,
        source: 'transaction',
      })),
    );
    assert.equal(
      JSON.stringify(parsed.transaction.message.instructions),
      JSON.stringify([
        {
          program: 'spl-token',
          programId: TOKEN_PROGRAM_ID.toBase58(),
          parsed: {
            info: {
              amount: '250000',
              authority: t.alice.publicKey.toBase58(),
              destination: t.bobAta.toBase58(),
              source: t.aliceAta.toBase58(),
            },
            type: 'transfer',
          },
          stackHeight: null,
        },
      ]),
    );
    assert.equal('loadedAddresses' in parsed.meta, false);
    assert.deepEqual(parsed.meta.postTokenBalances, json.meta.postTokenBalances);

    // web3.js's getParsedTransaction reads the same.
    const w = await conn.getParsedTransaction(t.transferSig, { maxSupportedTransactionVersion: 0 });
    const ix = w!.transaction.message.instructions[0] as { parsed: { type: string; info: { amount: string } } };
    assert.equal(ix.parsed.type, 'transfer');
    assert.equal(ix.parsed.info.amount, '250000');
    assert.equal(w!.version, 'legacy');
    assert.equal(w!.meta!.postTokenBalances![0]!.uiTokenAmount.amount, post[0]!.uiTokenAmount.amount);

    // base58 / base64 / legacy binary carry the same wire bytes.
    const b64 = await result('getTransaction', [t.transferSig, { encoding: 'base64' }]);
    const b58 = await result('getTransaction', [t.transferSig, { encoding: 'base58' }]);
    const bin = await result('getTransaction', [t.transferSig, 'binary']);
    const wire = Buffer.from(b64.transaction[0], 'base64');
    assert.equal(b58.transaction[1], 'base58');
    assert.equal(bin.transaction, b58.transaction[0]);
    assert.equal(VersionedTransaction.deserialize(wire).signatures.length, 2);
  },
);

test(
  'inner instructions: creating an associated token account shows its CPIs with stack heights, parsed too',
  { timeout: 60_000 },
  async () => {
    const t = await tokenSetup();
    const sigs = await conn.getSignaturesForAddress(t.bobAta);
    // The oldest signature naming bob's ATA is the one that created it.
    const createSig = sigs[sigs.length - 1]!.signature;
    const json = await result('getTransaction', [createSig, { encoding: 'json' }]);
    const keys: string[] = json.transaction.message.accountKeys;
    assert.equal(keys[json.transaction.message.instructions[0].programIdIndex], ASSOCIATED_TOKEN_PROGRAM_ID.toBase58());
    const inner = json.meta.innerInstructions;
    assert.equal(inner.length, 1);
    assert.equal(inner[0].index, 0);
    const programs = inner[0].instructions.map((i: { programIdIndex: number }) => keys[i.programIdIndex]);
    assert.ok(programs.includes(SystemProgram.programId.toBase58()));
    assert.ok(programs.includes(TOKEN_PROGRAM_ID.toBase58()));
    for (const i of inner[0].instructions) assert.equal(i.stackHeight, 2);

    const parsed = await result('getTransaction', [createSig, { encoding: 'jsonParsed' }]);
    const top = parsed.transaction.message.instructions[0];
    assert.equal(top.program, 'spl-associated-token-account');
    assert.equal(top.parsed.type, 'create');
    assert.equal(top.parsed.info.account, t.bobAta.toBase58());
    assert.equal(top.parsed.info.wallet, t.bob.publicKey.toBase58());
    const types = parsed.meta.innerInstructions[0].instructions.map(
      (i: { parsed?: { type: string } }) => i.parsed?.type,
    );
    assert.ok(types.includes('initializeAccount3'), JSON.stringify(types));
  },
);

test(
  'v0 transaction through a lookup table: loadedAddresses, lookup-table keys in jsonParsed, the version rule',
  { timeout: 60_000 },
  async () => {
    const payer = await funded();
    const recentSlot = await conn.getSlot('finalized');
    const [createIx, table] = AddressLookupTableProgram.createLookupTable({
      authority: payer.publicKey,
      payer: payer.publicKey,
      recentSlot,
    });
    const dest = Keypair.generate().publicKey;
    const extendIx = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: payer.publicKey,
      payer: payer.publicKey,
      addresses: [dest],
    });
    await sendAndConfirmTransaction(conn, new Transaction().add(createIx, extendIx), [payer], {
      commitment: 'confirmed',
    });
    // A table's new entries are usable from the next slot on.
    const after = (await conn.getSlot('processed')) + 1;
    while ((await conn.getSlot('processed')) <= after) await new Promise((r) => setTimeout(r, 100));
    const lut = (await conn.getAddressLookupTable(table)).value!;
    assert.deepEqual(
      lut.state.addresses.map((a) => a.toBase58()),
      [dest.toBase58()],
    );

    const { blockhash } = await conn.getLatestBlockhash();
    const msg = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: dest, lamports: 3_000_000 })],
    }).compileToV0Message([lut]);
    const vtx = new VersionedTransaction(msg);
    vtx.sign([payer]);
    const sig = await conn.sendTransaction(vtx);
    await conn.confirmTransaction(
      { signature: sig, blockhash, lastValidBlockHeight: (await conn.getLatestBlockhash()).lastValidBlockHeight },
      'confirmed',
    );
    assert.equal(await conn.getBalance(dest), 3_000_000);

    const refused = await call('getTransaction', [sig, { encoding: 'json' }]);
    assert.deepEqual(refused.error, {
      code: -32015,
      message:
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    });
    const json = await result('getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    assert.equal(json.version, 0);
    assert.deepEqual(json.meta.loadedAddresses, { writable: [dest.toBase58()], readonly: [] });
    assert.deepEqual(json.transaction.message.addressTableLookups, [
      { accountKey: table.toBase58(), writableIndexes: [0], readonlyIndexes: [] },
    ]);
    // pre/post balances cover the loaded key too: the payer's fee and the transfer to the lamport.
    assert.equal(json.meta.preBalances.length, 3);
    assert.deepEqual(json.meta.postBalances[2] - json.meta.preBalances[2], 3_000_000);

    const parsed = await result('getTransaction', [sig, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    assert.deepEqual(parsed.transaction.message.accountKeys, [
      { pubkey: payer.publicKey.toBase58(), writable: true, signer: true, source: 'transaction' },
      { pubkey: SystemProgram.programId.toBase58(), writable: false, signer: false, source: 'transaction' },
      { pubkey: dest.toBase58(), writable: true, signer: false, source: 'lookupTable' },
    ]);
    assert.equal(
      JSON.stringify(parsed.transaction.message.instructions[0]),
      JSON.stringify({
        program: 'system',
        programId: SystemProgram.programId.toBase58(),
        parsed: {
          info: { destination: dest.toBase58(), lamports: 3_000_000, source: payer.publicKey.toBase58() },
          type: 'transfer',
        },
        stackHeight: null,
      }),
    );

    // getBlock: the "accounts" detail level for the block that holds it.
    const block = await result('getBlock', [
      json.slot,
      { commitment: 'confirmed', transactionDetails: 'accounts', maxSupportedTransactionVersion: 0 },
    ]);
    const entry = block.transactions.find(
      (x: { transaction: { signatures: string[] } }) => x.transaction.signatures[0] === sig,
    );
    assert.deepEqual(entry.transaction.accountKeys, parsed.transaction.message.accountKeys);
    assert.deepEqual(Object.keys(entry.meta), [
      'err',
      'status',
      'fee',
      'preBalances',
      'postBalances',
      'preTokenBalances',
      'postTokenBalances',
      'rewards',
    ]);
    assert.equal(entry.version, 0);
    const noVersion = await call('getBlock', [json.slot, { commitment: 'confirmed' }]);
    assert.equal(noVersion.error.code, -32015);
  },
);

test(
  'blockSubscribe: confirmed blocks with the transaction, the mentions filter, Agave defaults and errors',
  { timeout: 60_000 },
  async () => {
    const ws = await WsClient.open(`${gw.gateway.wsUrl}?api-key=${TEST_KEY}`);
    try {
      const from = await funded();
      const to = Keypair.generate();
      const all = (await ws.call(1, 'blockSubscribe', [
        'all',
        { commitment: 'confirmed', transactionDetails: 'signatures' },
      ])) as { result: number };
      const mine = (await ws.call(2, 'blockSubscribe', [
        { mentionsAccountOrProgram: to.publicKey.toBase58() },
        { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 },
      ])) as { result: number };
      const sig = await sendAndConfirmTransaction(
        conn,
        new Transaction().add(
          SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 1_000_000 }),
        ),
        [from],
        { commitment: 'confirmed' },
      );
      type Note = {
        method: string;
        params: { subscription: number; result: { context: { slot: number }; value: any } };
      };
      const notes = (m: unknown[]) => m.filter((x) => (x as Note).method === 'blockNotification') as Note[];
      const has = (m: unknown[]) => notes(m).some((n) => n.params.subscription === mine.result);
      await ws.until(has, 10_000);
      const m = notes(ws.messages).find((n) => n.params.subscription === mine.result)!;
      const v = m.params.result.value;
      assert.deepEqual(Object.keys(v), ['slot', 'block', 'err']);
      assert.equal(v.err, null);
      assert.equal(m.params.result.context.slot, v.slot);
      // Only the transaction naming `to`, in json with its meta and version; no rewards by default.
      assert.equal(v.block.transactions.length, 1);
      assert.equal(v.block.transactions[0].transaction.signatures[0], sig);
      assert.equal(v.block.transactions[0].version, 'legacy');
      assert.equal('rewards' in v.block, false);
      assert.equal(v.block.blockHeight, v.slot);
      await ws.until(
        (x) => notes(x).some((n) => n.params.subscription === all.result && n.params.result.value.slot === v.slot),
        10_000,
      );
      const a = notes(ws.messages).find(
        (n) => n.params.subscription === all.result && n.params.result.value.slot === v.slot,
      )!;
      assert.ok(a.params.result.value.block.signatures.includes(sig));
      assert.equal('transactions' in a.params.result.value.block, false);

      assert.deepEqual(await ws.call(3, 'blockUnsubscribe', [all.result]), { jsonrpc: '2.0', result: true, id: 3 });
      const low = (await ws.call(4, 'blockSubscribe', ['all', { commitment: 'processed' }])) as { error: unknown };
      assert.deepEqual(low.error, { code: -32602, message: 'Method does not support commitment below `confirmed`' });
      const bad = (await ws.call(5, 'blockSubscribe', ['everything'])) as { error: { code: number } };
      assert.equal(bad.error.code, -32602);
    } finally {
      ws.close();
    }
  },
);
