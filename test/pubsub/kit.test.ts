// @solana/kit against the embedded ledger as against solana-test-validator: airdropFactory and
// sendAndConfirmTransactionFactory confirm through the websocket, subscriptions deliver, and the
// default account encoding is a validator's (binary: a base58 string).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

let gw: TestGateway;
const makeRpc = (url: string) => createSolanaRpc(url);
const makeSubs = (url: string) => createSolanaRpcSubscriptions(url);
let rpc: ReturnType<typeof makeRpc>;
let subs: ReturnType<typeof makeSubs>;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  rpc = makeRpc(gw.url);
  subs = makeSubs(`${gw.gateway.wsUrl}?api-key=${TEST_KEY}`);
});
after(() => gw?.stop());

test(
  'airdropFactory and sendAndConfirmTransactionFactory confirm through the websocket',
  { timeout: 30_000 },
  async () => {
    const payer = await generateKeyPairSigner();
    const to = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions: subs })({
      commitment: 'confirmed',
      recipientAddress: payer.address,
      lamports: lamports(2_000_000_000n),
    });
    assert.equal((await rpc.getBalance(payer.address, { commitment: 'confirmed' }).send()).value, 2_000_000_000n);

    const { value: latest } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({ source: payer, destination: to.address, amount: 123_456_789n }),
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions: subs })(signed as never, {
      commitment: 'confirmed',
    });
    const sig = getSignatureFromTransaction(signed);
    const [status] = (await rpc.getSignatureStatuses([sig]).send()).value;
    assert.equal(status?.err, null);
    assert.equal((await rpc.getBalance(to.address).send()).value, 123_456_789n);
    assert.equal((await rpc.getBalance(payer.address).send()).value, 2_000_000_000n - 123_456_789n - 5_000n);
  },
);

test('slot and account notifications through createSolanaRpcSubscriptions', { timeout: 30_000 }, async () => {
  const abort = new AbortController();
  try {
    const slots = await subs.slotNotifications().subscribe({ abortSignal: abort.signal });
    const first = (await slots[Symbol.asyncIterator]().next()).value!;
    assert.equal(first.parent, first.slot - 1n);

    const who = await generateKeyPairSigner();
    const changes = await subs
      .accountNotifications(who.address, { commitment: 'processed', encoding: 'base64' })
      .subscribe({ abortSignal: abort.signal });
    const it = changes[Symbol.asyncIterator]();
    const next = it.next();
    // The subscription is live once the server holds it.
    while (gw.gateway.pubsub!.size < 2) await new Promise((r) => setTimeout(r, 10));
    await rpc.requestAirdrop(who.address, lamports(7_000_000n)).send();
    const note = (await next).value!;
    assert.equal(note.value.lamports, 7_000_000n);
    assert.deepEqual(note.value.data, ['', 'base64']);
    assert.equal(note.value.owner, '11111111111111111111111111111111');
  } finally {
    abort.abort();
  }
});

test('getAccountInfo with no encoding answers binary (base58), as validators do', async () => {
  const clock = address('SysvarC1ock11111111111111111111111111111111');
  const plain = (await rpc.getAccountInfo(clock).send()).value!;
  const b64 = (await rpc.getAccountInfo(clock, { encoding: 'base64' }).send()).value!;
  assert.equal(typeof plain.data, 'string');
  assert.equal(plain.data, getBase58Decoder().decode(Buffer.from(b64.data[0], 'base64')));
  assert.equal(plain.space, 40n);
});
