// Child of the ingest crash test: compresses 0.001 SOL at a time into smt1 and oq1 in turn,
// printing each transaction once the ledger has committed it, until the parent kills it.
import { Keypair } from '@solana/web3.js';
import { encodeBase58 } from '../../src/zk/index.js';
import { compressIx, openLightLedger, sendIxs, stateTrees } from './helpers.js';

const l = await openLightLedger(process.argv[2]!);
const { v1, v2 } = stateTrees();
const payer = Keypair.generate();
l.ledger.airdrop(payer.publicKey.toBytes(), 1_000_000_000_000n);
for (let i = 0; ; i++) {
  const r = sendIxs(l.ledger, payer, [await compressIx(payer, 1_000_000, i % 2 ? v2 : v1)]);
  if (r.err) throw new Error(r.err.display);
  process.stdout.write(`sent ${encodeBase58(r.signature)} ${payer.publicKey.toBase58()}\n`);
}
