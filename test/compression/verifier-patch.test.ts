// Light's system program on the ledger verifies zkgate's proofs because zkgate's verifying keys are
// patched into it: the program as Light ships it rejects the same proof (6043), the patched one
// accepts it, and a proof of other public inputs is rejected.
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
import {
  LIGHT_SYSTEM_PROGRAM_FILE,
  LIGHT_SYSTEM_PROGRAM_ID,
  locateVkRecords,
  expectedRecords,
} from '../../src/ledger/index.js';
import { solanaVerifyingKeyBytes, type KeyEntry, type SnarkjsVerificationKey } from '../../src/zk/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { transferWithProofOf } from '../helpers/light-transfer.js';

let gw: TestGateway;
let rpc: Rpc;

before(async () => {
  gw = await startTestGateway({}, {}, { prover: true, ledger: true, keys: ['v1_inclusion_26_1'] });
  rpc = createRpc(gw.url, gw.url);
});
after(() => gw?.stop());

const PROOF_VERIFICATION_FAILED = { InstructionError: [1, { Custom: 6043 }] };

test(
  'Light as shipped rejects a zkgate proof; the patched program accepts it; other inputs are rejected',
  { timeout: 600_000 },
  async () => {
    const chain = gw.gateway.chain!;
    const payer = Keypair.generate();
    await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
    const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
    await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
    await compress(rpc, payer, 2_000_000_000, payer.publicKey, smt1);
    const { items } = await rpc.getCompressedAccountsByOwner(payer.publicKey);
    const a = items.find((x) => x.lamports.toString() === '1000000000')!;
    const b = items.find((x) => x.lamports.toString() === '2000000000')!;

    const tx = await transferWithProofOf(rpc, payer, a, a);
    chain.ledger.deployProgram(LIGHT_SYSTEM_PROGRAM_ID, chain.lightSystem.pristineBytes());
    assert.deepEqual((await rpc.simulateTransaction(tx)).value.err, PROOF_VERIFICATION_FAILED, 'unpatched');
    chain.ledger.deployProgram(LIGHT_SYSTEM_PROGRAM_ID, chain.lightSystem.bytes());
    assert.equal((await rpc.simulateTransaction(tx)).value.err, null, 'patched');

    // B's proof is a valid proof, of other public inputs (B's leaf): rejected for A.
    assert.deepEqual(
      (await rpc.simulateTransaction(await transferWithProofOf(rpc, payer, a, b))).value.err,
      PROOF_VERIFICATION_FAILED,
    );

    await sendAndConfirmTx(rpc, tx);
    assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '2900000000');

    // The record carries the key the prover used, and nothing but it changed in that record.
    const manifest = JSON.parse(readFileSync(join(gw.dataDir, 'keys', 'manifest.json'), 'utf8')) as Record<
      string,
      KeyEntry
    >;
    const entry = manifest['v1_inclusion_26_1']!;
    assert.equal(chain.lightSystem.keyId('v1_inclusion_26_1'), entry.sha256);
    const vk = solanaVerifyingKeyBytes(
      JSON.parse(readFileSync(join(gw.dataDir, 'keys', entry.vk), 'utf8')) as SnarkjsVerificationKey,
    );
    const loc = locateVkRecords(
      chain.lightSystem.pristineBytes(),
      LIGHT_SYSTEM_PROGRAM_FILE,
      expectedRecords(LIGHT_SYSTEM_PROGRAM_FILE),
    ).get('v1_inclusion_26_1')!;
    const deployed = chain.lightSystem.bytes();
    assert.deepEqual(
      Buffer.from(deployed.subarray(loc.recordOffset + 344, loc.recordOffset + 472)),
      Buffer.from(vk.delta),
    );
    vk.ic.forEach((p, i) =>
      assert.deepEqual(
        Buffer.from(deployed.subarray(loc.icOffset + 64 * i, loc.icOffset + 64 * (i + 1))),
        Buffer.from(p),
      ),
    );
    // The patched program is written out for users who run their own validator.
    assert.deepEqual(readFileSync(join(gw.dataDir, 'programs', LIGHT_SYSTEM_PROGRAM_FILE)), Buffer.from(deployed));
  },
);
