// getValidityProof / getValidityProofV2 end to end: real HTTP → adapter → gRPC → prover service →
// worker threads, on Light's localnet trees (bootstrapped from the genesis accounts), with state
// ingested through StateSync. Every proof is verified (snarkjs and the independent verifier)
// against public inputs taken from the response.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { demoAccountHashes, demoAddress } from '../../src/prover/index.js';
import { bigIntToBase58, loadPoseidon } from '../../src/zk/index.js';
import {
  AMT1,
  AMT2,
  AQ1,
  BMT1,
  NFQ1,
  OQ1,
  SMT1,
  startProverGateway,
  verifyV1,
  verifyV2,
  warmKeys,
  type ProverGateway,
} from './helpers.js';

const b58 = bigIntToBase58;
let gw: ProverGateway;
let v1: bigint[];
let v2: bigint[];
const SPENT = 5;

before(async () => {
  await loadPoseidon();
  await warmKeys();
  gw = await startProverGateway({ proofTimeoutMs: 120_000 });
  v1 = demoAccountHashes(SMT1, 1, 0, 6);
  v2 = demoAccountHashes(BMT1, 2, 0, 4);
  assert.equal((await gw.client.appendLeaves(SMT1, v1, 100n)).firstLeafIndex, 0);
  await gw.client.appendLeaves(BMT1, v2, 101n);
  await gw.client.insertAddresses(AMT1, [demoAddress(1), demoAddress(2)], 102n);
  await gw.client.insertAddresses(AMT2, [demoAddress(3)], 103n);
  await gw.client.nullifyLeaves(SMT1, [{ hash: v1[SPENT]! }], 104n);
});

after(async () => {
  await gw?.stop();
});

describe('V1 getValidityProof (Photon shape)', () => {
  test('inclusion: exact shape, root index = root sequence % 2400, proof verifies', async () => {
    const res = await gw.rpc('getValidityProof', { hashes: [b58(v1[2]!)] });
    const tree = await gw.client.getTree(SMT1);
    // 6 appends and 1 nullification: V1 trees take one sequence number per leaf change.
    assert.equal(tree.rootSeq, 7n);
    assert.deepEqual(Object.keys(res.result), ['value', 'context']);
    assert.deepEqual(Object.keys(res.result.value), [
      'compressedProof',
      'roots',
      'rootIndices',
      'leafIndices',
      'leaves',
      'merkleTrees',
    ]);
    const { compressedProof, ...rest } = res.result.value;
    assert.deepEqual(rest, {
      roots: [b58(tree.root)],
      rootIndices: [7],
      leafIndices: [2],
      leaves: [b58(v1[2]!)],
      merkleTrees: [SMT1],
    });
    assert.deepEqual(res.result.context, { slot: 104 });
    assert.equal(compressedProof.a.length, 32);
    assert.equal(compressedProof.b.length, 64);
    assert.equal(compressedProof.c.length, 32);
    assert.ok(
      [...compressedProof.a, ...compressedProof.b, ...compressedProof.c].every((x: number) => x >= 0 && x < 256),
    );
    await verifyV1(res.result, 1, 'v1_inclusion_26_1');
  });

  test('non-inclusion of a new address in amt1: low element, address-tree root and its own root index', async () => {
    const addr = demoAddress(10);
    const res = await gw.rpc('getValidityProof', { newAddressesWithTrees: [{ address: b58(addr), tree: AMT1 }] });
    const tree = await gw.client.getTree(AMT1);
    // Genesis sequence 3, then two inserts of two tree operations each.
    assert.equal(tree.rootSeq, 7n);
    const { compressedProof, ...rest } = res.result.value;
    assert.ok(compressedProof);
    assert.deepEqual(rest.roots, [b58(tree.root)]);
    assert.deepEqual(rest.rootIndices, [7]);
    assert.deepEqual(rest.leaves, [b58(addr)]);
    assert.deepEqual(rest.merkleTrees, [AMT1]);
    assert.equal(rest.leafIndices.length, 1);
    assert.deepEqual(res.result.context, { slot: 102 });
    await verifyV1(res.result, 0, 'v1_non-inclusion_26_1');
  });

  test('the deprecated newAddresses field proves against amt1', async () => {
    const res = await gw.rpc('getValidityProof', { newAddresses: [b58(demoAddress(11))] });
    assert.deepEqual(res.result.value.merkleTrees, [AMT1]);
    await verifyV1(res.result, 0, 'v1_non-inclusion_26_1');
  });

  test("combined: accounts first, then addresses, each with its own tree's root index", async () => {
    const addr = demoAddress(12);
    const res = await gw.rpc('getValidityProof', {
      hashes: [b58(v1[0]!)],
      newAddressesWithTrees: [{ address: b58(addr), tree: AMT1 }],
    });
    const v = res.result.value;
    assert.deepEqual(v.leaves, [b58(v1[0]!), b58(addr)]);
    assert.deepEqual(v.merkleTrees, [SMT1, AMT1]);
    assert.deepEqual(v.rootIndices, [7, 7]);
    assert.equal(v.leafIndices[0], 0);
    assert.deepEqual(res.result.context, { slot: 104 });
    await verifyV1(res.result, 1, 'v1_combined_26_26_1_1');
  });
});

describe('V2 getValidityProofV2 (Photon V2 shape)', () => {
  test('inclusion in bmt1: merkle context with the output queue, proof verifies against the public input hash', async () => {
    const res = await gw.rpc('getValidityProofV2', { hashes: [b58(v2[1]!)] });
    const tree = await gw.client.getTree(BMT1);
    assert.equal(tree.rootHistoryCapacity, 200, 'capacity read from the genesis account');
    assert.equal(tree.rootSeq, 1n, 'V2 trees take one sequence number per batch');
    const { compressedProof, ...rest } = res.result.value;
    assert.deepEqual(Object.keys(res.result.value), ['compressedProof', 'accounts', 'addresses']);
    assert.deepEqual(rest, {
      accounts: [
        {
          hash: b58(v2[1]!),
          root: b58(tree.root),
          rootIndex: { rootIndex: 1, proveByIndex: false },
          leafIndex: 1,
          merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null },
        },
      ],
      addresses: [],
    });
    assert.deepEqual(res.result.context, { slot: 101 });
    await verifyV2(res.result, 'v2_inclusion_32_1');
  });

  test('non-inclusion in amt2: the tree is its own queue, rootIndex is a plain number', async () => {
    const addr = demoAddress(20);
    const res = await gw.rpc('getValidityProofV2', { newAddressesWithTrees: [{ address: b58(addr), tree: AMT2 }] });
    const tree = await gw.client.getTree(AMT2);
    assert.deepEqual(res.result.value.addresses, [
      {
        address: b58(addr),
        root: b58(tree.root),
        rootIndex: 1,
        merkleContext: { treeType: 4, tree: AMT2, queue: AMT2, cpiContext: null, nextTreeContext: null },
      },
    ]);
    await verifyV2(res.result, 'v2_non-inclusion_40_1');
  });

  test('combined V2 proof verifies against Poseidon(inclusion chain, non-inclusion chain)', async () => {
    const res = await gw.rpc('getValidityProofV2', {
      hashes: [b58(v2[3]!)],
      newAddressesWithTrees: [{ address: b58(demoAddress(21)), tree: AMT2 }],
    });
    assert.equal(res.result.value.accounts.length, 1);
    assert.equal(res.result.value.addresses.length, 1);
    await verifyV2(res.result, 'v2_combined_32_40_1_1');
  });

  test('V1 trees through getValidityProofV2: V1 proof, tree types 1 and 2, V1 queues', async () => {
    const res = await gw.rpc('getValidityProofV2', {
      hashes: [b58(v1[1]!)],
      newAddressesWithTrees: [{ address: b58(demoAddress(22)), tree: AMT1 }],
    });
    const v = res.result.value;
    assert.deepEqual(v.accounts[0].merkleContext, {
      treeType: 1,
      tree: SMT1,
      queue: NFQ1,
      cpiContext: null,
      nextTreeContext: null,
    });
    assert.deepEqual(v.addresses[0].merkleContext, {
      treeType: 2,
      tree: AMT1,
      queue: AQ1,
      cpiContext: null,
      nextTreeContext: null,
    });
    const asV1 = {
      value: {
        compressedProof: v.compressedProof,
        roots: [v.accounts[0].root, v.addresses[0].root],
        leaves: [v.accounts[0].hash, v.addresses[0].address],
      },
    };
    await verifyV1(asV1, 1, 'v1_combined_26_26_1_1');
  });

  test('an empty request succeeds with a null proof and slot 0', async () => {
    const res = await gw.rpc('getValidityProofV2', {});
    assert.deepEqual(res.result, {
      value: { compressedProof: null, accounts: [], addresses: [] },
      context: { slot: 0 },
    });
  });
});

describe('concurrency', () => {
  test('16 concurrent requests all answer with proofs that verify', async () => {
    const reqs = Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0
        ? gw.rpc('getValidityProof', { hashes: [b58(v1[i % 5]!)] })
        : gw.rpc('getValidityProof', { newAddressesWithTrees: [{ address: b58(demoAddress(100 + i)), tree: AMT1 }] }),
    );
    const results = await Promise.all(reqs);
    for (const [i, r] of results.entries()) {
      assert.ok(r.result, JSON.stringify(r.error));
      await verifyV1(r.result, i % 2 === 0 ? 1 : 0, i % 2 === 0 ? 'v1_inclusion_26_1' : 'v1_non-inclusion_26_1');
    }
  });
});

describe('bad input: a stable code and a message naming the problem', () => {
  const cases: [string, string, () => unknown, number, () => string][] = [
    [
      'empty V1 request',
      'getValidityProof',
      () => ({}),
      -32000,
      () => 'Validation Error: No hashes or new addresses provided for proof generation',
    ],
    [
      'both address fields',
      'getValidityProof',
      () => ({
        newAddresses: [b58(demoAddress(30))],
        newAddressesWithTrees: [{ address: b58(demoAddress(31)), tree: AMT1 }],
      }),
      -32000,
      () => 'Validation Error: Cannot provide both newAddresses and newAddressesWithTree',
    ],
    [
      'unknown hash (V1 wording)',
      'getValidityProof',
      () => ({ hashes: [b58(v1[0]!), b58(123456789n)] }),
      -32000,
      () =>
        `Record Not Found: Leaf nodes not found for hashes. Got 1 hashes. Expected 2. Not found: ["${b58(123456789n)}"]`,
    ],
    [
      'unknown hash (V2 wording)',
      'getValidityProofV2',
      () => ({ hashes: [b58(123456789n)] }),
      -32000,
      () =>
        `Validation Error: Not all requested account hashes exist or are available (might be spent). Requested: ["${b58(123456789n)}"], Found in DB: []`,
    ],
    [
      'duplicate hash',
      'getValidityProof',
      () => ({ hashes: [b58(v1[0]!), b58(v1[0]!)] }),
      -32000,
      () => `Validation Error: Duplicate hash ${b58(v1[0]!)} at hashes[0] and hashes[1]`,
    ],
    [
      'spent account',
      'getValidityProof',
      () => ({ hashes: [b58(v1[SPENT]!)] }),
      -32000,
      () => `Validation Error: Account ${b58(v1[SPENT]!)} is spent: leaf ${SPENT} of state tree ${SMT1} was nullified`,
    ],
    [
      'unknown tree',
      'getValidityProof',
      () => ({ newAddressesWithTrees: [{ address: b58(demoAddress(32)), tree: b58(77n) }] }),
      -32000,
      () => `Invalid Public Key: field '${b58(77n)}' (newAddressesWithTrees[0].tree is not a known address tree)`,
    ],
    [
      'a state tree given as address tree',
      'getValidityProof',
      () => ({ newAddressesWithTrees: [{ address: b58(demoAddress(33)), tree: SMT1 }] }),
      -32000,
      () => `Invalid Public Key: field '${SMT1}' (newAddressesWithTrees[0].tree is a state tree, not an address tree)`,
    ],
    [
      'mixed V1 and V2 heights',
      'getValidityProofV2',
      () => ({ hashes: [b58(v1[0]!), b58(v2[0]!)] }),
      -32000,
      () => 'Validation Error: All state trees for account proofs must have the same height',
    ],
    [
      'V1 state with V2 address tree',
      'getValidityProofV2',
      () => ({ hashes: [b58(v1[0]!)], newAddressesWithTrees: [{ address: b58(demoAddress(34)), tree: AMT2 }] }),
      -32000,
      () =>
        'Validation Error: Cannot mix V1 and V2 trees in one proof: state trees of height 26 with address trees of height 40',
    ],
    [
      'address already in its tree',
      'getValidityProof',
      () => ({ newAddressesWithTrees: [{ address: b58(demoAddress(1)), tree: AMT1 }] }),
      -32000,
      () => `Validation Error: Address ${b58(demoAddress(1))} already exists`,
    ],
    [
      'address not below 2^248',
      'getValidityProof',
      () => ({ newAddressesWithTrees: [{ address: b58(1n << 248n), tree: AMT1 }] }),
      -32000,
      () => `Validation Error: Address ${b58(1n << 248n)} at newAddressesWithTrees[0] is not below 2^248`,
    ],
    [
      '5 hashes (no V1 circuit)',
      'getValidityProof',
      () => ({ hashes: v1.slice(0, 5).map((h) => b58(h)) }),
      -32000,
      () => 'Validation Error: Invalid number of compressed accounts: 5. Allowed numbers for V1 trees: 1, 2, 3, 4, 8',
    ],
    [
      '3 new V1 addresses',
      'getValidityProof',
      () => ({ newAddresses: [40, 41, 42].map((i) => b58(demoAddress(i))) }),
      -32000,
      () => 'Validation Error: Invalid number of new addresses: 3. Allowed numbers for V1 trees: 1, 2',
    ],
    [
      '5 accounts with an address',
      'getValidityProof',
      () => ({ hashes: v1.slice(0, 5).map((h) => b58(h)), newAddresses: [b58(demoAddress(43))] }),
      -32000,
      () =>
        'Validation Error: Invalid numbers for a combined proof: 5 compressed accounts with 1 new addresses. Allowed for V1 trees: 1-4 compressed accounts with 1-2 new addresses',
    ],
    [
      'unknown field',
      'getValidityProofV2',
      () => ({ hashes: [], newAddresses: [] }),
      -32602,
      () => 'Invalid params: unknown field `params.newAddresses`, expected one of `hashes`, `newAddressesWithTrees`',
    ],
    [
      'malformed base58',
      'getValidityProof',
      () => ({ hashes: ['0OIl'] }),
      -32602,
      () => 'Invalid params: `params.hashes[0]`: expected a base58 string of 32 bytes, got string "0OIl"',
    ],
  ];
  for (const [name, method, params, code, message] of cases) {
    test(name, async () => {
      const res = await gw.rpc(method, params());
      assert.equal(res.result, undefined);
      assert.equal(res.error.code, code);
      assert.equal(res.error.message, message());
      assert.equal(res.error.data, undefined);
    });
  }
});
