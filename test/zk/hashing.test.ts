// Every hashing vector of validity-proof.md: Poseidon, zero values, indexed-tree leaves, account
// hashes, address derivation and the V2 public-input hash chain.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { compressedAccountHash, deriveAddressV1, deriveAddressV2 } from '../../src/zk/account.js';
import { base58ToBigInt, bigIntToBase58, decodeBase58 } from '../../src/zk/base58.js';
import { bytesToBigInt, fromHex, HIGHEST_ADDRESS_PLUS_ONE } from '../../src/zk/field.js';
import { publicInputHash, twoInputsHashChain } from '../../src/zk/hash-chain.js';
import { hashToBn254 } from '../../src/zk/hash-to-field.js';
import { loadPoseidon, poseidon } from '../../src/zk/poseidon.js';

before(async () => {
  await loadPoseidon();
});

describe('Poseidon (circomlib-compatible)', () => {
  test('circomlib reference vector H(1, 2)', () => {
    assert.equal(poseidon([1n, 2n]), fromHex('0x115cc0f5e7d690413df64c6b9662e9cf2a3617f2743245519e19607a4417189a'));
  });

  test('state-tree zero values: Z[1], empty V1 root Z[26], empty V2 root Z[32]', () => {
    const z = [0n];
    for (let k = 0; k < 32; k++) z.push(poseidon([z[k]!, z[k]!]));
    assert.equal(z[1], fromHex('0x2098f5fb9e239eab3ceac3f27b81e481dc3124d55ffed523a839ee8446b64864'));
    assert.equal(z[26], fromHex('0x120c58f143d491e95902f7f5277778a2e0ad5168f6add75669932630ce611518'));
    assert.equal(z[32], fromHex('0x2f68a1c58e257e42a17a6c61dff5551ed560b9922ab119d5ac8e184c9734ead9'));
  });

  test('V1 address-tree initial leaves', () => {
    assert.equal(
      HIGHEST_ADDRESS_PLUS_ONE,
      452312848583266388373324160190187140051835877600158453279131187530910662655n,
    );
    assert.equal(
      poseidon([0n, 1n, HIGHEST_ADDRESS_PLUS_ONE]),
      fromHex('0x2808c0864bc64dbb81f9857936bdf21c7547ff209b3488c46392ccaea0ee006e'),
    );
    assert.equal(
      poseidon([HIGHEST_ADDRESS_PLUS_ONE, 0n, 0n]),
      fromHex('0x1ea416eeb40218b540c1cfb8dbe91f6d54e8a29edc30a39e326b4057a7d963f5'),
    );
  });

  test('rejects values outside the field and bad arity', () => {
    assert.throws(() => poseidon([]), /1 to 16 inputs/);
    assert.throws(() => poseidon([-1n]), /not a field element/);
    assert.throws(
      () => poseidon([21888242871839275222246405745257275088548364400416034343698204186575808495617n]),
      /not a field element/,
    );
  });
});

describe('hash to field (keccak)', () => {
  test('first byte is zeroed, so results are below 2^248', () => {
    const h = hashToBn254(new Uint8Array([1, 2, 3]));
    assert.equal(h.length, 32);
    assert.equal(h[0], 0);
  });
});

describe('compressed account hashes (Photon snapshot vectors, V1 tree)', () => {
  const tree = decodeBase58('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
  test('lamports only', () => {
    const h = compressedAccountHash(
      { owner: decodeBase58('J6ULJViDpQTRntYTmfkpUZZ71KTVkZNJFSDcQhFCo5Ef'), tree, leafIndex: 3, lamports: 999998000n },
      1,
    );
    assert.equal(bigIntToBase58(h), '2veKUPKieajFG7yzPNGARHq7jYS1FiXcXG8P9Txhvhcn');
  });

  test('with data (discriminator 2) and no lamports', () => {
    const h = compressedAccountHash(
      {
        owner: decodeBase58('cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m'),
        tree,
        leafIndex: 6,
        lamports: 0n,
        data: {
          discriminator: new Uint8Array([2, 0, 0, 0, 0, 0, 0, 0]),
          dataHash: decodeBase58('4C8Wy6GxRZhiUfR6aSDejhYhnyixhtsNUFbKdPCUcNoq'),
        },
      },
      1,
    );
    assert.equal(bigIntToBase58(h), 'JReC6h68m3EdCKP7S35e7BE4pBPwQz1HfjUkboeQy9r');
  });

  test('V2 trees encode integers big-endian, so the hash differs', () => {
    const a = { owner: new Uint8Array(32).fill(7), tree, leafIndex: 3, lamports: 5n };
    assert.notEqual(compressedAccountHash(a, 1), compressedAccountHash(a, 2));
  });
});

describe('address derivation', () => {
  test('V2 vector (stateless.js address-v2 test)', () => {
    const { seed, address } = deriveAddressV2(
      ['foo', 'bar'],
      new Uint8Array(32),
      decodeBase58('7yucc7fL3JGbyMwg4neUaenNSdySS39hbAk89Ao3t1Hz'),
    );
    assert.deepEqual([...seed.slice(0, 4)], [0, 177, 134, 198]);
    assert.deepEqual([...seed.slice(30)], [136, 56]);
    assert.deepEqual([...address.slice(0, 4)], [0, 16, 227, 141]);
    assert.deepEqual([...address.slice(30)], [1, 240]);
  });

  test('V1 (legacy) addresses are below 2^248 and depend on tree, program and seeds', () => {
    const program = decodeBase58('7yucc7fL3JGbyMwg4neUaenNSdySS39hbAk89Ao3t1Hz');
    const a = deriveAddressV1(['foo'], new Uint8Array(32), program).address;
    const b = deriveAddressV1(['foo'], new Uint8Array(32).fill(1), program).address;
    assert.equal(a[0], 0);
    assert.notDeepEqual(a, b);
  });
});

describe('V2 public input hash (Photon regression vector)', () => {
  const accountHash = fromHex('0x0b26682444a98d769a7ff67246359645e3a8bcd7c60c44e3ae88ff150fed6a5f');
  const accountRoot = fromHex('0x2a2e7bc4a92749c2ace23a629e9b94f0ff711c599d5d9b29a77a8c3ca472e32e');
  const address = fromHex('0x00a81478ab4cebeb0d511fe3bce110da0ba9de22d27490cf7ce75bcd1c5480a2');
  const addressRoot = fromHex('0x088a2982293bb2e1d553828b0569ff1ed98e3c6cdf7630ccf6873261680c4e97');
  const inc = fromHex('0x1e02c9194b3ab84c7f2b9b5cc4c94962a6f1d3c846aca99e07a4c46cea458314');
  const non = fromHex('0x2cc2562021e8c9a74011d875b1b94716bfec485bb542fb9538e393a2a715dafa');
  const combined = fromHex('0x2c441fc8afea1faf14f07939538a97bcd48caf752e6097176bb81cfa666fb771');

  test('inclusion, non-inclusion and combined', () => {
    assert.equal(twoInputsHashChain([accountRoot], [accountHash]), inc);
    assert.equal(twoInputsHashChain([addressRoot], [address]), non);
    assert.equal(publicInputHash({ roots: [accountRoot], leaves: [accountHash] }), inc);
    assert.equal(publicInputHash({ addressRoots: [addressRoot], addresses: [address] }), non);
    assert.equal(
      publicInputHash({
        roots: [accountRoot],
        leaves: [accountHash],
        addressRoots: [addressRoot],
        addresses: [address],
      }),
      combined,
    );
  });

  test('longer chains use Poseidon3 after the first pair; empty is zero', () => {
    assert.equal(twoInputsHashChain([1n, 3n], [2n, 4n]), poseidon([poseidon([1n, 2n]), 3n, 4n]));
    assert.equal(twoInputsHashChain([], []), 0n);
    assert.throws(() => twoInputsHashChain([1n], []), /differ in length/);
  });
});

test('base58 round trip of 32-byte values', () => {
  const v = base58ToBigInt('smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
  assert.equal(bigIntToBase58(v), 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
  assert.equal(bytesToBigInt(decodeBase58('11111111111111111111111111111111')), 0n);
});
