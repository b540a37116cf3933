// Compressed transfers back to back on one V2 tree with the forester on, for as long as it takes
// (the suite's test/forester/transfers.test.ts checks 150 of them for correctness; this measures):
//  - throughput: transfers per second with the forester on, against the rate with it off until
//    the tree's output queue is full (100 outputs, about 50 transfers) in the same run;
//  - a client's latency meanwhile: a validity proof for an account in the tree (by Merkle path,
//    a real proof) sampled once a second during the transfers, against the same proof on the
//    drained gateway (sampled at the start, every BENCH_SUSTAINED_IDLE_EVERY transfers and at
//    the end, so whatever else the machine runs weighs on both alike).
// The transfers go through the unmodified stateless.js (test/helpers/light-transfer.ts). At the
// end the balances and trees are checked as the test checks them.
// BENCH_SUSTAINED_TRANSFERS (1000), BENCH_SUSTAINED_SLOT_MS (1000: a blockhash lives 150 slots,
// the longest a send may wait for queue room), BENCH_SUSTAINED_IDLE_EVERY (200).
import { rmSync } from 'node:fs';
import type { BN254 } from '@lightprotocol/stateless.js';
import { startTransferLoad, type TransferLoad } from '../../test/helpers/compressed-load.js';
import { benchDataDir } from '../lib/paths.js';
import { table } from '../lib/table.js';

const TRANSFERS = Number(process.env.BENCH_SUSTAINED_TRANSFERS ?? 1000);
const SLOT_MS = Number(process.env.BENCH_SUSTAINED_SLOT_MS ?? 1000);
const IDLE_EVERY = Number(process.env.BENCH_SUSTAINED_IDLE_EVERY ?? 200);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function withLoad<T>(forester: 'on' | 'off', fn: (l: TransferLoad) => Promise<T>): Promise<T> {
  const dataDir = benchDataDir(`sustained-${forester}`);
  const load = await startTransferLoad({ forester, slotTimeMs: SLOT_MS, dataDir, linkKeys: false });
  try {
    return await fn(load);
  } finally {
    await load.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The forester off: transfers until the output queue is full (Light's programs then refuse). */
async function baseline(): Promise<{ done: number; perSecond: number }> {
  return withLoad('off', async (l) => {
    const t0 = performance.now();
    for (;;) {
      try {
        await l.transfer();
      } catch {
        break;
      }
    }
    return { done: l.sent, perSecond: l.sent / ((performance.now() - t0) / 1000) };
  });
}

async function sustained() {
  return withLoad('on', async (l) => {
    const forester = l.gw.gateway.chain!.forester!;
    // 20 transfers put bob's first accounts into the tree: a client's proof is then of one of
    // them, by Merkle path.
    for (let i = 0; i < 20; i++) await l.transfer();
    let target: BN254 | undefined;
    while (!target) {
      target = (await l.rpc.getCompressedAccountsByOwner(l.bob.publicKey)).items.find((a) => !a.proveByIndex)?.hash;
      if (!target) await sleep(250);
    }
    const proofMs = async () => {
      const t0 = performance.now();
      const p = await l.rpc.getValidityProofV0([{ hash: target!, tree: l.tree.tree, queue: l.tree.queue }]);
      if (p.compressedProof === null) throw new Error('expected a proof by Merkle path');
      return performance.now() - t0;
    };
    const idle: number[] = [];
    const sampleIdle = async (n: number) => {
      await l.drained();
      for (let i = 0; i < n; i++) idle.push(await proofMs());
    };
    await l.drained();
    for (let i = 0; i < 10; i++) await proofMs(); // a worker's first proofs of a shape are slower
    await sampleIdle(10);

    const busy: number[] = [];
    let done = false;
    let sampling = true;
    let sample: Promise<unknown> = Promise.resolve();
    const sampler = (async () => {
      while (!done) {
        if (sampling) {
          const p = proofMs();
          sample = p;
          busy.push(await p);
        }
        // A sample a second: each client proof pauses the forester's, which must keep up.
        await sleep(1000);
      }
    })();
    const started = performance.now();
    for (let i = 20; i < TRANSFERS; i++) {
      await l.transfer();
      if ((i + 1) % 100 === 0)
        console.error(
          `  ${i + 1} transfers, ${((performance.now() - started) / 1000).toFixed(0)} s, ${forester.status().batches.sent} batches sent`,
        );
      if ((i + 1) % IDLE_EVERY === 0 && i + 1 < TRANSFERS) {
        sampling = false;
        await sample;
        await sampleIdle(8);
        sampling = true;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    done = true;
    await sampler;
    await sampleIdle(10);
    await l.assertExact();
    return { transfers: TRANSFERS - 20, seconds, batches: forester.status().batches, idle, busy };
  });
}

export const foresterSustainedScenario = {
  name: 'forester-sustained',
  describe: `${TRANSFERS} compressed transfers with the forester on (${SLOT_MS} ms slots): transfers/s against the forester off, a client proof's latency under that load against idle`,
  /** Tens of minutes at the default count. */
  explicitOnly: true,
  async run(): Promise<void> {
    const off = await baseline();
    console.error(`  forester off: ${off.done} transfers until the output queue was full`);
    const on = await sustained();
    const perSecond = on.transfers / on.seconds;
    table(
      ['forester', 'transfers', 'seconds', 'transfers/s', 'vs off'],
      [
        [
          'off (until the queue is full)',
          String(off.done),
          (off.done / off.perSecond).toFixed(0),
          off.perSecond.toFixed(2),
          '1.00×',
        ],
        [
          'on',
          String(on.transfers),
          on.seconds.toFixed(0),
          perSecond.toFixed(2),
          `${(perSecond / off.perSecond).toFixed(2)}×`,
        ],
      ],
    );
    console.log(`batches: ${JSON.stringify(on.batches)}`);
    const row = (label: string, xs: number[]) => [
      label,
      String(xs.length),
      quantile(xs, 0.5).toFixed(0),
      quantile(xs, 0.99).toFixed(0),
      `${(quantile(xs, 0.5) / quantile(on.idle, 0.5)).toFixed(2)}×`,
    ];
    table(
      ['client validity proof', 'samples', 'p50 ms', 'p99 ms', 'p50 vs idle'],
      [row('idle (drained)', on.idle), row('during the transfers', on.busy)],
    );
  },
};
