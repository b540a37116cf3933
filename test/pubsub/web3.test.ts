// @solana/web3.js 1.x against the embedded ledger as it would against solana-test-validator:
// confirmations through the websocket (signatureSubscribe), account, logs and slot subscriptions.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  PublicKey,
  sendAndConfirmTransaction,
  type AccountInfo,
  type Logs,
  type SlotInfo,
} from '@solana/web3.js';
import {
  AccountLayout,
  createMint,
  getAccount,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  TOKEN_PROGRAM_ID,
  transfer as splTransfer,
} from '@solana/spl-token';
import { startTestGateway, type TestGateway, stopWithConnection, web3Connection } from '../helpers/gateway.js';

const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
let gw: TestGateway;
let conn: Connection;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  conn = web3Connection(gw);
});
after(() => stopWithConnection(gw, conn));

/** The next value a subscription delivers, or a rejection after `ms`. */
function next<T>(subscribe: (cb: (v: T) => void) => number, unsubscribe: (id: number) => Promise<void>, ms = 10_000) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no notification')), ms);
    const id = subscribe((v) => {
      clearTimeout(timer);
      void unsubscribe(id);
      resolve(v);
    });
  });
}

test('requestAirdrop + confirmTransaction: the blockhash strategy and the signature-only form', async () => {
  const kp = Keypair.generate();
  const sig = await conn.requestAirdrop(kp.publicKey, 2 * LAMPORTS_PER_SOL);
  const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
  const r = await conn.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight }, 'confirmed');
  assert.equal(r.value.err, null);
  assert.equal(await conn.getBalance(kp.publicKey, 'confirmed'), 2 * LAMPORTS_PER_SOL);

  const sig2 = await conn.requestAirdrop(kp.publicKey, 1_000);
  // The deprecated form web3.js still accepts (a signature alone, with a timeout).
  const r2 = await conn.confirmTransaction(sig2, 'processed');
  assert.equal(r2.value.err, null);
  assert.equal(await conn.getBalance(kp.publicKey, 'processed'), 2 * LAMPORTS_PER_SOL + 1_000);
});

test(
  'sendAndConfirmTransaction of a SOL transfer, balances to the lamport; getSignaturesForAddress',
  { timeout: 30_000 },
  async () => {
    const from = Keypair.generate();
    const to = Keypair.generate();
    await conn.confirmTransaction(
      { signature: await conn.requestAirdrop(from.publicKey, LAMPORTS_PER_SOL), ...(await conn.getLatestBlockhash()) },
      'confirmed',
    );
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: 12_345_678 }),
      new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from('hello zkgate') }),
    );
    const sig = await sendAndConfirmTransaction(conn, tx, [from], { commitment: 'confirmed' });
    const status = (await conn.getSignatureStatus(sig)).value;
    assert.equal(status?.err, null);
    assert.ok(status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized');
    assert.equal(await conn.getBalance(to.publicKey), 12_345_678);
    assert.equal(await conn.getBalance(from.publicKey), LAMPORTS_PER_SOL - 12_345_678 - 5_000);

    // getSignaturesForAddress: newest first, with the memo, paged by before / until.
    const toSigs = await conn.getSignaturesForAddress(to.publicKey);
    assert.deepEqual(
      toSigs.map((s) => [s.signature, s.memo, s.err]),
      [[sig, '[12] hello zkgate', null]],
    );
    assert.equal(toSigs[0]!.slot, status!.slot);
    const fromSigs = await conn.getSignaturesForAddress(from.publicKey);
    assert.equal(fromSigs.length, 2);
    assert.equal(fromSigs[0]!.signature, sig);
    assert.equal(fromSigs[1]!.memo, null);
    assert.deepEqual(
      (await conn.getSignaturesForAddress(from.publicKey, { limit: 1 })).map((s) => s.signature),
      [sig],
    );
    assert.deepEqual(
      (await conn.getSignaturesForAddress(from.publicKey, { before: sig })).map((s) => s.signature),
      [fromSigs[1]!.signature],
    );
    assert.deepEqual(
      (await conn.getSignaturesForAddress(from.publicKey, { until: fromSigs[1]!.signature })).map((s) => s.signature),
      [sig],
    );
    assert.deepEqual(await conn.getSignaturesForAddress(Keypair.generate().publicKey), []);
  },
);

test('onAccountChange, onLogs and onSlotChange deliver what the ledger did', { timeout: 30_000 }, async () => {
  const kp = Keypair.generate();
  const slot = next<SlotInfo>(
    (cb) => conn.onSlotChange(cb),
    (id) => conn.removeSlotChangeListener(id),
  );
  const account = next<AccountInfo<Buffer>>(
    (cb) => conn.onAccountChange(kp.publicKey, (a) => cb(a), 'processed'),
    (id) => conn.removeAccountChangeListener(id),
  );
  const logs = next<Logs>(
    (cb) => conn.onLogs(kp.publicKey, (l) => cb(l), 'processed'),
    (id) => conn.removeOnLogsListener(id),
  );
  // Subscriptions are set up asynchronously by web3.js: wait until both are live on the server.
  const hub = gw.gateway.pubsub!;
  for (let i = 0; i < 250 && hub.size < 3; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(hub.size, 3);
  const s = await slot;
  assert.equal(s.parent, s.slot - 1);
  assert.ok(s.root <= s.slot);

  const from = Keypair.generate();
  await conn.confirmTransaction(
    { signature: await conn.requestAirdrop(from.publicKey, LAMPORTS_PER_SOL), ...(await conn.getLatestBlockhash()) },
    'processed',
  );
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: kp.publicKey, lamports: 2_000_000 }),
  );
  const sig = await sendAndConfirmTransaction(conn, tx, [from], { commitment: 'processed' });
  const a = await account;
  assert.equal(a.lamports, 2_000_000);
  assert.ok(a.owner.equals(SystemProgram.programId));
  assert.equal(a.data.length, 0);
  const l = await logs;
  assert.equal(l.signature, sig);
  assert.equal(l.err, null);
  assert.deepEqual(l.logs, [
    'Program 11111111111111111111111111111111 invoke [1]',
    'Program 11111111111111111111111111111111 success',
  ]);
});

test(
  'spl-token createMint / mintTo / transfer confirmed through the websocket; getProgramAccounts and getTokenAccountsByOwner',
  { timeout: 60_000 },
  async () => {
    const payer = Keypair.generate();
    await conn.confirmTransaction(
      { signature: await conn.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL), ...(await conn.getLatestBlockhash()) },
      'confirmed',
    );
    const alice = Keypair.generate();
    const bob = Keypair.generate();
    const mint = await createMint(conn, payer, payer.publicKey, null, 6);
    const aliceAta = await getOrCreateAssociatedTokenAccount(conn, payer, mint, alice.publicKey);
    const bobAta = await getOrCreateAssociatedTokenAccount(conn, payer, mint, bob.publicKey);
    await mintTo(conn, payer, mint, aliceAta.address, payer, 1_000_000n);
    await splTransfer(conn, payer, aliceAta.address, bobAta.address, alice, 250_000n);
    assert.equal((await getAccount(conn, aliceAta.address)).amount, 750_000n);

    // Every token account of this mint: 165 bytes with the mint at offset 0.
    const all = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint.toBase58() } }],
    });
    assert.deepEqual(
      all.map((a) => a.pubkey.toBase58()).sort(),
      [aliceAta.address.toBase58(), bobAta.address.toBase58()].sort(),
    );
    const amounts = new Map(all.map((a) => [a.pubkey.toBase58(), AccountLayout.decode(a.account.data).amount]));
    assert.equal(amounts.get(bobAta.address.toBase58()), 250_000n);
    // The owner filter at offset 32 picks bob's alone.
    const bobs = await conn.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: bob.publicKey.toBase58() } }],
    });
    assert.deepEqual(
      bobs.map((a) => a.pubkey.toBase58()),
      [bobAta.address.toBase58()],
    );

    const byOwner = await conn.getTokenAccountsByOwner(alice.publicKey, { mint });
    assert.deepEqual(
      byOwner.value.map((a) => a.pubkey.toBase58()),
      [aliceAta.address.toBase58()],
    );
    assert.equal(AccountLayout.decode(byOwner.value[0]!.account.data).amount, 750_000n);
    assert.equal(
      (await conn.getTokenAccountsByOwner(alice.publicKey, { programId: TOKEN_PROGRAM_ID })).value.length,
      1,
    );
    assert.equal((await conn.getTokenAccountsByOwner(Keypair.generate().publicKey, { mint })).value.length, 0);
  },
);
