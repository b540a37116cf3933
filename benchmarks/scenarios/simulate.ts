// simulateBundle throughput and latency: bundles of 5 SOL transfers through HTTP with auth (a gateway
// in a child process, autocannon here), with and without signature verification; in the same run
// the in-process ceilings: zkgate's BundleSimulator called directly, and litesvm simulating the same
// 5 transactions with nothing around it.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, transfer } from '../../test/sim/helpers.js';
import { Ledger, parseTransaction } from '../../src/ledger/index.js';
import { BundleSimulator } from '../../src/sim/index.js';
import { decodeBase58 } from '../../src/zk/base58.js';
import { measure, printTable, type LoadResult } from '../lib/load.js';
import { startProcess } from '../lib/processes.js';
import { ROOT as root, BENCH_KEY as KEY, QUIET_GATEWAY_ARGS } from '../lib/paths.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);

function post(url: string, body: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, ...(body as object) }));
  });
}

/** 5 transfers from 5 funded payers to 5 fresh recipients (built as the tests build them). */
async function bundle(recent: { blockhash: string; lastValidBlockHeight: bigint }) {
  const payers = await Promise.all(Array.from({ length: 5 }, () => generateKeyPairSigner()));
  const txs: string[] = [];
  for (const p of payers) txs.push(await transfer(p, (await generateKeyPairSigner()).address, 1_000_000n, recent));
  return { payers: payers.map((p) => p.address), txs };
}

const params = (txs: string[], skipSigVerify: boolean) => [
  { encodedTransactions: txs },
  {
    preExecutionAccountsConfigs: txs.map(() => null),
    postExecutionAccountsConfigs: txs.map(() => null),
    skipSigVerify,
  },
];

function rate(n: number, fn: () => void): number {
  for (let i = 0; i < Math.min(200, n); i++) fn();
  const t = performance.now();
  for (let i = 0; i < n; i++) fn();
  return n / ((performance.now() - t) / 1000);
}

export const simulateScenario = {
  name: 'simulate',
  describe: `simulateBundle of 5 SOL transfers through HTTP + auth (${DURATION} s per run), vs in-process ceilings`,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-sim-'));
    try {
      const gw = await startProcess(
        [
          join(root, 'dist/main.js'),
          'start',
          ...['--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--data-dir', join(dir, 'data')],
          ...QUIET_GATEWAY_ARGS,
        ],
        /JSON-RPC\s+(http:\S+)\?api-key=/,
        { timeoutMs: 60_000 },
      );
      const url = `${gw.match[1]!}?api-key=${KEY}`;
      const rows: LoadResult[] = [];
      let b: Awaited<ReturnType<typeof bundle>>;
      try {
        const recent = (await post(url, { method: 'getLatestBlockhash' })).result.value;
        b = await bundle({ blockhash: recent.blockhash, lastValidBlockHeight: BigInt(recent.lastValidBlockHeight) });
        for (const p of b.payers) await post(url, { method: 'requestAirdrop', params: [p, 10_000_000_000] });
        for (const skip of [true, false]) {
          const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'simulateBundle', params: params(b.txs, skip) });
          const check = await post(url, JSON.parse(body));
          if (check.result?.value?.summary !== 'succeeded')
            throw new Error(`bundle does not succeed: ${JSON.stringify(check)}`);
          for (const connections of [8, 32]) {
            rows.push(
              await measure(`HTTP, skipSigVerify ${skip}, ${connections} clients`, {
                url,
                body,
                connections,
                durationSec: DURATION,
              }),
            );
          }
        }
      } finally {
        await gw.stop();
      }
      console.log('\nsimulateBundle, 5 SOL transfers per bundle (bundles/s = req/s)');
      printTable(rows);

      // In-process ceilings over the same transactions.
      const ledger = Ledger.open({ dir: join(dir, 'inproc'), slotMs: 0 });
      try {
        for (const p of b.payers) ledger.airdrop(decodeBase58(p), 10_000_000_000n);
        // The bundle's blockhash came from the gateway's ledger; replace it so this ledger runs it.
        const sim = new BundleSimulator(ledger, 'bench');
        const replaced = (skip: boolean) => ({
          request: { encodedTransactions: b.txs },
          config: {
            preExecutionAccountsConfigs: b.txs.map(() => null),
            postExecutionAccountsConfigs: b.txs.map(() => null),
            skipSigVerify: skip,
            replaceRecentBlockhash: skip,
          },
        });
        const simRate = rate(2000, () => void sim.simulateBundle(replaced(true)));
        const parsed = b.txs.map((t) => parseTransaction(new Uint8Array(Buffer.from(t, 'base64'))));
        ledger.vm.setBlockhashCheck(false);
        const rawRate = rate(2000, () => {
          for (const tx of parsed) ledger.vm.simulateVersionedTransaction(tx.bytes);
        });
        const http = rows.find((r) => r.label.startsWith('HTTP, skipSigVerify true, 8'))!;
        console.log(
          `\nin process: BundleSimulator ${simRate.toFixed(0)} bundles/s; bare litesvm (5 simulate calls, no overlay) ` +
            `${rawRate.toFixed(0)} bundles/s. HTTP (skipSigVerify, 8 clients) / bare litesvm = ${(http.rps / rawRate).toFixed(2)}; ` +
            `/ BundleSimulator = ${(http.rps / simRate).toFixed(2)}`,
        );
      } finally {
        await ledger.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
