// The dev chain on Light's 0.27.0 localnet as Light shipped it (--light-package: that package's
// programs, byte for byte, never patched, and its genesis accounts) and Light's own key
// (--light-keys): a compressed transfer proved by zkgate lands and the balances move to the
// lamport; the same transfer with another account's proof (other public inputs) is refused with
// Light's ProofVerificationFailed (6043). A data dir made with that package refuses a start
// with another.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  merkletreePubkey,
  sendAndConfirmTx,
  type Rpc,
} from '@lightprotocol/stateless.js';
import { ACCOUNT_COMPRESSION_PROGRAM_FILE, LIGHT_SYSTEM_PROGRAM_FILE } from '../../src/ledger/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { transferWithProofOf } from '../helpers/light-transfer.js';
import { lightPackage } from '../helpers/light-package.js';

let gw: TestGateway;
let rpc: Rpc;
let shipped: Buffer;
let shippedCompression: Buffer;

before(async () => {
  const pkg = await lightPackage();
  shipped = readFileSync(join(pkg.bin, LIGHT_SYSTEM_PROGRAM_FILE));
  shippedCompression = readFileSync(join(pkg.bin, ACCOUNT_COMPRESSION_PROGRAM_FILE));
  gw = await startTestGateway(
    {
      provingKeys: 'light',
      // One of the package's keys (all 18 import by default): the one this transfer proves with.
      lightKeys: [join(pkg.keys, 'mainnet_inclusion_26_1.key')],
      lightPackage: pkg.root,
      // Asked for, and not started: the package's account-compression program verifies none of zkgate's batch keys.
      forester: 'on',
    },
    {},
    // A data dir of its own: Light's key imported into the shared key cache would serve every test.
    { prover: true, ledger: true, linkKeys: false },
  );
  rpc = createRpc(gw.url, gw.url);
});
after(() => gw?.stop());

test(
  "Light's 0.27.0 localnet, unpatched, verifies zkgate's proof made with Light's key",
  { timeout: 600_000 },
  async () => {
    const chain = gw.gateway.chain!;
    const health = (await (await fetch(`${gw.base}health`)).json()) as {
      components: Record<string, { detail: string }>;
    };
    assert.match(health.components.lightPrograms!.detail, /Light's system program as shipped .*unpatched/);
    const payer = Keypair.generate();
    await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
    const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
    await compress(rpc, payer, 2_000_000_000, payer.publicKey, smt1);
    const { items } = await rpc.getCompressedAccountsByOwner(payer.publicKey);
    const a = items.find((x) => x.lamports.toString() === '1000000000')!;
    const b = items.find((x) => x.lamports.toString() === '2000000000')!;

    // The programs are Light's files, and the system program holds the key zkgate proves v1_inclusion_26_1 with.
    assert.ok(Buffer.from(chain.lightSystem.bytes()).equals(shipped));
    assert.ok(Buffer.from(chain.accountCompression.bytes()).equals(shippedCompression));
    assert.equal(chain.forester, undefined);
    assert.ok(gw.logs.some((l) => l.includes('forester: not started')));
    const good = await transferWithProofOf(rpc, payer, a, a);
    assert.equal(
      chain.lightSystem.keyId('v1_inclusion_26_1'),
      gw.gateway.prover!.keys.light.get('v1_inclusion_26_1')!.entry.sourceSha256,
    );
    const other = await transferWithProofOf(rpc, payer, a, b);
    assert.deepEqual(
      (await rpc.simulateTransaction(other)).value.err,
      { InstructionError: [1, { Custom: 6043 }] },
      "another account's proof: Light's ProofVerificationFailed",
    );
    assert.equal((await rpc.simulateTransaction(good)).value.err, null);
    await sendAndConfirmTx(rpc, good);
    assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '2900000000');
  },
);

test('a data dir made with one Light package refuses a start with another', async () => {
  await assert.rejects(
    startTestGateway({}, {}, { ledger: true, dataDir: gw.dataDir, linkKeys: false }),
    /this data dir's ledger was made with Light's genesis accounts of .*package\/accounts, and this start loads .*zk-compression-cli\/accounts: use another --data-dir/,
  );
});
