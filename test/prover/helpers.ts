// Shared by the prover tests: Light's localnet tree pubkeys, JSON-RPC calls and proof checks.
import assert from 'node:assert/strict';
import type { ProverClient } from '../../src/prover/index.js';
import { base58ToBigInt, decompressProof, KeyStore, publicInputHash } from '../../src/zk/index.js';
import { postJson, proverClientOf, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { assertVerifies, KEY_CACHE } from '../helpers/zk.js';

export const SMT1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
export const NFQ1 = 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148';
export const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
export const AQ1 = 'aq1S9z4reTSQAdgWHGD2zDaS39sjGrAxbR31vxJ2F4F';
export const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
export const OQ1 = 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto';
export const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';

/** The shapes the prover tests prove (keys built once into the suite's cache). */
export const TEST_SHAPES = [
  'v1_inclusion_26_1',
  'v1_non-inclusion_26_1',
  'v1_combined_26_26_1_1',
  'v2_inclusion_32_1',
  'v2_non-inclusion_40_1',
  'v2_combined_32_40_1_1',
];

export const keys = new KeyStore(KEY_CACHE);

export async function warmKeys(): Promise<void> {
  for (const s of TEST_SHAPES) await keys.ensure(s);
}

export interface ProverGateway extends TestGateway {
  client: ProverClient;
  rpc(method: string, params: unknown): Promise<any>;
}

export async function startProverGateway(
  overrides: Parameters<typeof startTestGateway>[0] = {},
  dataDir?: string,
): Promise<ProverGateway> {
  const gw = await startTestGateway(overrides, {}, { prover: true, ...(dataDir ? { dataDir } : {}) });
  const client = proverClientOf(gw.gateway);
  let id = 0;
  return {
    ...gw,
    client,
    async rpc(method, params) {
      const res = await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }));
      assert.equal(res.status, 200, res.text);
      return JSON.parse(res.text);
    },
    async stop() {
      client.close();
      await gw.stop();
    },
  };
}

const big = (s: string) => base58ToBigInt(s);

/** Verifies a V1 getValidityProof result: public inputs are its roots and leaves, accounts first. */
export async function verifyV1(result: any, nAccounts: number, circuit: string, store = keys): Promise<void> {
  const v = result.value;
  const roots: bigint[] = v.roots.map(big);
  const leaves: bigint[] = v.leaves.map(big);
  const inputs = [
    ...roots.slice(0, nAccounts),
    ...leaves.slice(0, nAccounts),
    ...roots.slice(nAccounts),
    ...leaves.slice(nAccounts),
  ];
  await assertVerifies(await store.verificationKey(circuit), inputs, decompressProof(v.compressedProof));
}

/** Verifies a V2 result against the public input hash recomputed from its roots, hashes and addresses. */
export async function verifyV2(result: any, circuit: string, store = keys): Promise<void> {
  const v = result.value;
  const hash = publicInputHash({
    roots: v.accounts.map((a: any) => big(a.root)),
    leaves: v.accounts.map((a: any) => big(a.hash)),
    addressRoots: v.addresses.map((a: any) => big(a.root)),
    addresses: v.addresses.map((a: any) => big(a.address)),
  });
  await assertVerifies(await store.verificationKey(circuit), [hash], decompressProof(v.compressedProof));
}
