// A key imported with `zkgate keys import` (here: made by another setup, as a ceremony's would be)
// is what the ledger's Light system program verifies, from the start of the gateway on.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import { compress, confirmTx, createRpc, merkletreePubkey, transfer } from '@lightprotocol/stateless.js';
import { KeyStore } from '../../src/zk/index.js';
import { runCli } from '../helpers/cli.js';
import { startTestGateway, tempDir } from '../helpers/gateway.js';
import { KEY_CACHE } from '../helpers/zk.js';

const dirs = [tempDir(), tempDir()];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const SHAPE = 'v1_inclusion_26_1';

/** A data dir sharing only the suite's compiled circuits (its keys are its own). */
function withCircuits(dir: string): string {
  mkdirSync(join(KEY_CACHE, 'circuits'), { recursive: true });
  symlinkSync(join(KEY_CACHE, 'circuits'), join(dir, 'circuits'), 'dir');
  return dir;
}

test(
  'an imported key is installed into the ledger at start, and its proofs verify there',
  { timeout: 600_000 },
  async () => {
    const [elsewhere, here] = dirs.map(withCircuits) as [string, string];
    const foreign = await new KeyStore(elsewhere, 'a-ceremony-of-our-own').build(SHAPE);
    const cli = runCli(['keys', 'import', SHAPE, foreign.zkeyPath, '--data-dir', here]);
    const { code } = await cli.exited;
    assert.equal(code, 0, cli.stderr());
    const imported = new KeyStore(here).manifest()[SHAPE]!;
    assert.equal(imported.setup, 'imported');
    assert.equal(imported.sha256, foreign.entry.sha256);

    const gw = await startTestGateway({}, {}, { prover: true, ledger: true, dataDir: here, linkKeys: false });
    try {
      assert.equal(gw.gateway.chain!.lightSystem.keyId(SHAPE), imported.sha256, 'installed at start');
      const rpc = createRpc(gw.url, gw.url);
      const payer = Keypair.generate();
      await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 5_000_000_000));
      const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
      await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
      await transfer(rpc, payer, 400_000_000, payer, Keypair.generate().publicKey);
      assert.equal((await rpc.getCompressedBalanceByOwner(payer.publicKey)).toString(), '600000000');
    } finally {
      await gw.stop();
    }
  },
);
