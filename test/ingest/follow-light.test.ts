// zkgate as the cluster on Light's own release (issue 50): A runs Light's 0.27.0 localnet as
// shipped (--light-package: its programs unpatched, verifying Light's keys only); B follows A with
// --cluster-rpc and proves with Light's key file (--proving-keys light). A transfer that B's index
// and B's proof serve (stateless.js with createRpc(A, B, B)) lands on A's unpatched programs, and
// the balances are exact to the lamport on both; a shape without an imported key is refused by B,
// naming it.
import assert from 'node:assert/strict';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import { compress, merkletreePubkey, transfer } from '@lightprotocol/stateless.js';
import { startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { call, caughtUp, rpcOf } from './helpers.js';
import { lightPackage } from '../helpers/light-package.js';

let a: TestGateway;
let b: TestGateway;
/** The owners of test 1's accounts (base58). */
const owners: string[] = [];
const bDir = tempDir();

before(async () => {
  const pkg = await lightPackage();
  const lightKeys = [join(pkg.keys, 'mainnet_inclusion_26_1.key')];
  a = await startTestGateway(
    { provingKeys: 'light', lightKeys, lightPackage: pkg.root, slotTimeMs: 200 },
    {},
    { prover: true, ledger: true, linkKeys: false },
  );
  // B proves with the same imported key: A's keys folder, not a second import.
  symlinkSync(join(a.dataDir, 'keys'), join(bDir, 'keys'), 'dir');
  b = await startTestGateway(
    { clusterRpc: a.url, provingKeys: 'light', lightKeys, upstreamTimeoutMs: 5000 },
    {},
    { prover: true, dataDir: bDir, linkKeys: false },
  );
});
after(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(bDir, { recursive: true, force: true });
});

test(
  "B's proof with Light's key, from B's own index, lands on Light's unpatched 0.27.0 programs",
  { timeout: 600_000 },
  async () => {
    const rpcA = rpcOf(a, a);
    const payer = Keypair.generate();
    const bob = Keypair.generate();
    await rpcA.confirmTransaction(await rpcA.requestAirdrop(payer.publicKey, 5_000_000_000), 'confirmed');
    const smt1 = (await rpcA.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    await compress(rpcA, payer, 1_000_000_000, payer.publicKey, smt1);
    await caughtUp(a, b);
    await transfer(rpcOf(a, b), payer, 300_000_000, payer, bob.publicKey);
    await caughtUp(a, b);
    for (const rpc of [rpcA, rpcOf(a, b)]) {
      assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '700000000');
      assert.equal((await rpc.getCompressedBalanceByOwner(bob.publicKey)).toString(), '300000000');
    }
    owners.push(payer.publicKey.toBase58(), bob.publicKey.toBase58());
    const owner = { owner: payer.publicKey.toBase58() };
    const fromA = await call(a.url, 'getCompressedAccountsByOwner', owner);
    const fromB = await call(b.url, 'getCompressedAccountsByOwner', owner);
    assert.deepEqual((fromB.result as { value: unknown }).value, (fromA.result as { value: unknown }).value);
  },
);

test('B refuses a shape without an imported Light key, naming it', async () => {
  // Two accounts at once (payer's change and bob's): v1_inclusion_26_2, whose key B was not given.
  const hashes: string[] = [];
  for (const owner of owners) {
    const r = (await call(b.url, 'getCompressedAccountsByOwner', { owner })).result as {
      value: { items: { hash: string }[] };
    };
    hashes.push(r.value.items[0]!.hash);
  }
  const r = await call(b.url, 'getValidityProof', { hashes });
  assert.ok(r.error, JSON.stringify(r));
  assert.match(r.error.message, /v1_inclusion_26_2/);
});
