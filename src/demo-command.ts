// `zkgate demo --accounts N`: ingests N realistic compressed accounts (Light's hash rules) into two
// demo state trees (V1 and V2, registered through StateSync on first use) of a running gateway,
// and prints ready-to-paste curl commands for getValidityProof and getValidityProofV2. Light's own
// localnet trees follow the embedded ledger's transactions, so the demo keeps to trees of its own.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, resolveConfig, flagName, OPTIONS, proverUrls } from './config.js';
import { demoAccountHashes, demoAddress, ProverClient } from './prover/index.js';
import { localToken, proverChannel } from './grpc/index.js';
import { API_KEY_FILE } from './rpc/api-keys.js';
import { bigIntToBase58, encodeBase58, loadPoseidon } from './zk/index.js';

export const DEMO_HELP = `Usage:
  zkgate demo [--accounts N]    ingest N demo accounts (default 100) into two demo trees (V1, V2) of a
                                running gateway and print curl commands for both validity-proof methods
Options: as for zkgate start (--rpc-port, --grpc-port or --prover-url, --host, --data-dir, --api-keys).
`;

/** The demo's own state trees: pubkeys derived from fixed labels, so every run finds the same trees. */
const demoTree = (label: string) => encodeBase58(createHash('sha256').update(`zkgate-demo:${label}`).digest());
export const DEMO_V1_TREE = demoTree('state-v1');
export const DEMO_V2_TREE = demoTree('state-v2');
const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
const BATCH = 5000;

export async function demoCommand(argv: string[]): Promise<number> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    accounts: { type: 'string' },
    help: { type: 'boolean' },
    config: { type: 'string' },
  };
  for (const o of OPTIONS) options[flagName(o.key)] = { type: 'string' };
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ args: argv, options, strict: true }).values;
  } catch (e) {
    throw new ConfigError((e as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  if (values.help) {
    process.stdout.write(DEMO_HELP);
    return 0;
  }
  const n = Number(values.accounts ?? 100);
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000_000)
    throw new ConfigError(`--accounts: expected an integer from 1 to 10000000, got ${JSON.stringify(values.accounts)}`);
  const flags: Record<string, unknown> = {};
  for (const o of OPTIONS) if (values[flagName(o.key)] !== undefined) flags[o.key] = values[flagName(o.key)];
  const config = resolveConfig(flags, process.env, (values.config as string | undefined) ?? process.env.CONFIG);
  const bound = config.proverHost || config.host;
  const host = bound === '0.0.0.0' || bound === '::' ? '127.0.0.1' : bound;
  const address = proverUrls(config.proverUrl)[0] ?? `${host}:${config.grpcPort}`;
  const key = config.apiKeys[0] ?? readKey(config.dataDir);

  await loadPoseidon();
  // A prover of its own (no --prover-url) wants the token kept in its data dir.
  const grpcToken = config.proverUrl ? config.grpcToken : localToken(config.grpcToken, config.dataDir);
  const client = new ProverClient(address, 11_000, proverChannel({ ...config, grpcToken }));
  try {
    const samples: Record<string, bigint> = {};
    for (const [tree, version] of [
      [DEMO_V1_TREE, 1],
      [DEMO_V2_TREE, 2],
    ] as const) {
      const state = await client.getTree(tree).catch((e: Error & { kind?: string }) => {
        if (e.kind === 'tree_not_found') return client.registerTree({ pubkey: tree, treeType: version === 1 ? 1 : 3 });
        throw new ConfigError(`cannot reach the prover at ${address} (is zkgate start running?): ${e.message}`);
      });
      let slot = state.slot + 1n;
      let next = state.nextIndex;
      const started = Date.now();
      for (let done = 0; done < n; done += BATCH) {
        const hashes = demoAccountHashes(tree, version, next, Math.min(BATCH, n - done));
        const r = await client.appendLeaves(tree, hashes, slot++);
        next = r.tree.nextIndex;
        samples[tree] ??= hashes[0]!;
        if (process.stderr.isTTY) process.stderr.write(`${tree}: ${done + hashes.length}/${n} accounts\r`);
      }
      process.stderr.write(
        `${tree}: ${n} accounts appended in ${((Date.now() - started) / 1000).toFixed(1)} s (leaves ${next - n}..${next - 1})\n`,
      );
    }
    const url = `http://${host}:${config.rpcPort}/?api-key=${key}`;
    const fresh = (i: number) => bigIntToBase58(demoAddress(Date.now() + i, 'fresh'));
    const curl = (method: string, params: unknown) =>
      `curl -s '${url}' -H 'content-type: application/json' -d '${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}'`;
    process.stdout.write(
      [
        '',
        '# V1: inclusion of a demo account and non-inclusion of a new address in amt1 (combined proof)',
        curl('getValidityProof', {
          hashes: [bigIntToBase58(samples[DEMO_V1_TREE]!)],
          newAddressesWithTrees: [{ address: fresh(1), tree: AMT1 }],
        }),
        '',
        '# V2: inclusion of a demo account and non-inclusion of a new address in amt2',
        curl('getValidityProofV2', {
          hashes: [bigIntToBase58(samples[DEMO_V2_TREE]!)],
          newAddressesWithTrees: [{ address: fresh(2), tree: AMT2 }],
        }),
        '',
      ].join('\n'),
    );
    return 0;
  } finally {
    client.close();
  }
}

function readKey(dataDir: string): string {
  try {
    return readFileSync(join(dataDir, API_KEY_FILE), 'utf8').trim();
  } catch {
    return '<your-api-key>';
  }
}
