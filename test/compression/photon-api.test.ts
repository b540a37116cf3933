// Photon's indexer API on the embedded ledger: every method's exact JSON (key order included),
// written by hand from Photon's schema, over state made by real Light transactions; Photon's
// errors for bad input; no internal error for any params a caller sends.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey } from '@solana/web3.js';
import {
  compress,
  confirmTx,
  createRpc,
  merkletreePubkey,
  transfer,
  type Rpc,
  type TreeInfo,
} from '@lightprotocol/stateless.js';
import { createMint, mintTo } from '@lightprotocol/compressed-token';
import type { AccountRecord } from '../../src/compression/index.js';
import { zeroValues } from '../../src/state/index.js';
import { decodeBase58, encodeBase58, HIGHEST_ADDRESS_PLUS_ONE, poseidon, bigIntToBytes32 } from '../../src/zk/index.js';
import { httpRequest, postJson, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const SMT1 = 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT';
const NFQ1 = 'nfq1NvQDJ2GEgnS8zt9prAe8rjjpAW1zFkrvZoBR148';
const BMT1 = 'bmt1LryLZUMmF7ZtqESaw7wifBXLfXHQYoE4GAmrahU';
const OQ1 = 'oq1na8gojfdUhsfCpyjNt6h4JaDWtHf1yQj4koBWfto';
const AMT1 = 'amt1Ayt45jfbdw5YSo7iz6WZxUmnZsQTYXy82hVwyC2';
const AMT2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
const CTOKEN = 'cTokenmWW8bLPjZEBAUgYy3zKxQZW6VKi7bqNFEVv3m';
const ZERO = '11111111111111111111111111111111';

let gw: TestGateway;
let rpc: Rpc;
const payer = Keypair.generate();
const bob = Keypair.generate();
const carol = Keypair.generate();
let mint: PublicKey;
/** The accounts: A (V1, spent by the transfer), B (V2, queued), C/D (V1 outputs of the transfer), T1/T2 tokens. */
const acc: Record<'A' | 'B' | 'C' | 'D' | 'T1' | 'T2', AccountRecord> = {} as never;
const sigs: Record<'compressA' | 'compressB' | 'createMint' | 'mintPayer' | 'mintBob' | 'transfer', string> =
  {} as never;

const h = (b: Uint8Array) => encodeBase58(b);
const hx = (v: bigint) => encodeBase58(bigIntToBytes32(v));
const n = (v: bigint | null) => (v === null ? null : Number(v));

async function call(method: string, params: unknown): Promise<{ text: string; json: any }> {
  const res = await postJson(gw.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  assert.equal(res.status, 200, res.text);
  return { text: res.text, json: JSON.parse(res.text) };
}

/** The exact response text: `result` as written here, the context slot taken from the answer. */
async function exact(method: string, params: unknown, result: (slot: number) => unknown): Promise<void> {
  const { text, json } = await call(method, params);
  assert.equal(json.error, undefined, text);
  const slot = json.result?.context?.slot ?? json.result?.slot ?? 0;
  assert.equal(text, JSON.stringify({ jsonrpc: '2.0', result: result(slot), id: 1 }), method);
}

async function fails(method: string, params: unknown, code: number, message: string): Promise<void> {
  const { json } = await call(method, params);
  assert.deepEqual(json.error, { code, message }, `${method} ${JSON.stringify(params)}`);
}

const v1 = (a: AccountRecord) => ({
  hash: h(a.hash),
  address: null,
  data: a.data && {
    discriminator: Number(Buffer.from(a.data.discriminator).readBigUInt64LE()),
    data: Buffer.from(a.data.data).toString('base64'),
    dataHash: h(a.data.dataHash),
  },
  owner: h(a.owner),
  lamports: Number(a.lamports),
  tree: a.tree,
  leafIndex: a.leafIndex,
  seq: n(a.seq),
  slotCreated: Number(a.slotCreated),
});
const ctx = (a: AccountRecord) => ({
  treeType: a.treeType,
  tree: a.tree,
  queue: a.queue,
  cpiContext: null,
  nextTreeContext: null,
});
const v2 = (a: AccountRecord) => {
  const { tree: _tree, ...rest } = v1(a);
  return { ...rest, proveByIndex: a.inOutputQueue, merkleContext: ctx(a) };
};
const tokenData = (owner: Keypair, amount: number) => ({
  mint: mint.toBase58(),
  owner: owner.publicKey.toBase58(),
  amount,
  delegate: null,
  state: 'initialized',
  tlv: null,
});

/** The Merkle path of `index` in a tree holding `leaves`, computed here from the leaves alone. */
function pathOf(leaves: bigint[], index: number, height: number): { path: bigint[]; root: bigint } {
  const z = zeroValues(height);
  let level = new Map(leaves.map((l, i) => [i, l]));
  const path: bigint[] = [];
  let i = index;
  for (let d = 0; d < height; d++) {
    const sib = i % 2 === 0 ? i + 1 : i - 1;
    path.push(level.get(sib) ?? z[d]!);
    const next = new Map<number, bigint>();
    for (const [k] of level) {
      const p = Math.floor(k / 2);
      if (next.has(p)) continue;
      next.set(p, poseidon([level.get(2 * p) ?? z[d]!, level.get(2 * p + 1) ?? z[d]!]));
    }
    level = next;
    i = Math.floor(i / 2);
  }
  return { path, root: level.get(0) ?? z[height]! };
}

before(async () => {
  gw = await startTestGateway({}, {}, { prover: true, ledger: true, keys: ['v1_inclusion_26_1'] });
  rpc = createRpc(gw.url, gw.url);
  const infos = await rpc.getStateTreeInfos();
  const smt1 = infos.find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
  const bmt1 = infos.find((t) => t.tree.toBase58() === BMT1)! as TreeInfo;
  for (const kp of [payer, bob]) await confirmTx(rpc, await rpc.requestAirdrop(kp.publicKey, 10_000_000_000));
  const store = gw.gateway.chain!.compression.store;
  const latest = (owner: Keypair | string) => {
    const o = typeof owner === 'string' ? decodeBase58(owner) : owner.publicKey.toBytes();
    return store.accountsByOwner(o, { limit: 100 });
  };
  sigs.compressA = await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
  acc.A = latest(payer)[0]!;
  sigs.compressB = await compress(rpc, payer, 500_000_000, payer.publicKey, bmt1);
  acc.B = latest(payer).find((a) => a.tree === BMT1)!;
  ({ mint, transactionSignature: sigs.createMint } = await createMint(rpc, payer, payer.publicKey, 2));
  sigs.mintPayer = await mintTo(rpc, payer, mint, payer.publicKey, payer, 1000, smt1);
  sigs.mintBob = await mintTo(rpc, payer, mint, bob.publicKey, payer, 500, bmt1);
  const tokens = latest(CTOKEN);
  acc.T1 = tokens.find((a) => a.tree === SMT1)!;
  acc.T2 = tokens.find((a) => a.tree === BMT1)!;
  sigs.transfer = await transfer(rpc, payer, 100_000_000, payer, carol.publicKey);
  acc.C = latest(payer).find((a) => a.tree === SMT1)!;
  acc.D = latest(carol)[0]!;
});
after(() => gw?.stop());

describe('accounts', () => {
  test('getCompressedAccount(V2), by hash and by address; spent and unknown accounts are null', async () => {
    await exact('getCompressedAccount', { hash: h(acc.C.hash) }, (slot) => ({
      context: { slot },
      value: {
        hash: h(acc.C.hash),
        address: null,
        data: null,
        owner: payer.publicKey.toBase58(),
        lamports: 900_000_000,
        tree: SMT1,
        leafIndex: 2,
        seq: 3,
        slotCreated: Number(acc.C.slotCreated),
      },
    }));
    await exact('getCompressedAccountV2', [null, h(acc.B.hash)], (slot) => ({
      context: { slot },
      value: {
        hash: h(acc.B.hash),
        address: null,
        data: null,
        owner: payer.publicKey.toBase58(),
        lamports: 500_000_000,
        leafIndex: 0,
        seq: null,
        slotCreated: Number(acc.B.slotCreated),
        proveByIndex: true,
        merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null },
      },
    }));
    await exact('getCompressedAccount', { hash: h(acc.A.hash) }, (slot) => ({ context: { slot }, value: null }));
    await exact('getCompressedAccountV2', { address: carol.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: null,
    }));
  });

  test('balances: of an account (0 when unknown) and of an owner', async () => {
    for (const m of ['getCompressedBalance', 'getCompressedAccountBalance'])
      await exact(m, { hash: h(acc.C.hash) }, (slot) => ({ context: { slot }, value: 900_000_000 }));
    await exact('getCompressedBalance', { hash: h(acc.A.hash) }, (slot) => ({ context: { slot }, value: 0 }));
    await exact('getCompressedBalanceByOwner', { owner: payer.publicKey.toBase58(), extra: 1 }, (slot) => ({
      context: { slot },
      value: 1_400_000_000,
    }));
    await exact('getCompressedBalanceByOwner', { owner: Keypair.generate().publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: 0,
    }));
  });

  test("getCompressedAccountsByOwner(V2): leaf index order, Photon's hash cursor, data slices", async () => {
    // B is leaf 0 of bmt1, C leaf 2 of smt1.
    await exact('getCompressedAccountsByOwner', { owner: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [v1(acc.B), v1(acc.C)], cursor: null },
    }));
    await exact('getCompressedAccountsByOwnerV2', { owner: payer.publicKey.toBase58(), limit: 1 }, (slot) => ({
      context: { slot },
      value: { items: [v2(acc.B)], cursor: h(acc.B.hash) },
    }));
    // The next page: hashes above the cursor, still in leaf index order.
    const rest = [acc.B, acc.C].filter((a) => Buffer.compare(Buffer.from(a.hash), Buffer.from(acc.B.hash)) > 0);
    await exact(
      'getCompressedAccountsByOwnerV2',
      { owner: payer.publicKey.toBase58(), cursor: h(acc.B.hash), limit: 1 },
      (slot) => ({
        context: { slot },
        value: { items: rest.map(v2), cursor: rest.length === 1 ? h(rest[0]!.hash) : null },
      }),
    );
    // Token accounts belong to the token program: a memcmp on the mint (offset 0) and a slice of the owner.
    const slice = { offset: 32, length: 32 };
    const sliced = (a: AccountRecord) => {
      const j = v1(a);
      return { ...j, data: { ...j.data!, data: Buffer.from(a.data!.data.subarray(32, 64)).toString('base64') } };
    };
    const tokenAccounts = [acc.T2, acc.T1].sort((x, y) => x.leafIndex - y.leafIndex || Buffer.compare(x.hash, y.hash));
    await exact(
      'getCompressedAccountsByOwner',
      { owner: CTOKEN, filters: [{ memcmp: { offset: 0, bytes: mint.toBase58() } }], dataSlice: slice },
      (slot) => ({ context: { slot }, value: { items: tokenAccounts.map(sliced), cursor: null } }),
    );
    await exact(
      'getCompressedAccountsByOwner',
      { owner: CTOKEN, filters: [{ memcmp: { offset: 0, bytes: payer.publicKey.toBase58() } }] },
      (slot) => ({ context: { slot }, value: { items: [], cursor: null } }),
    );
  });

  test('getMultipleCompressedAccounts(V2): request order, null for spent', async () => {
    const hashes = [h(acc.C.hash), h(acc.A.hash), h(acc.B.hash)];
    await exact('getMultipleCompressedAccounts', { hashes }, (slot) => ({
      context: { slot },
      value: { items: [v1(acc.C), null, v1(acc.B)] },
    }));
    await exact('getMultipleCompressedAccountsV2', { hashes }, (slot) => ({
      context: { slot },
      value: { items: [v2(acc.C), null, v2(acc.B)] },
    }));
  });
});

describe('tokens', () => {
  test('token accounts by owner and by delegate, one balance, balances by owner, holders of a mint', async () => {
    await exact('getCompressedTokenAccountsByOwner', { owner: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [{ account: v1(acc.T1), tokenData: tokenData(payer, 1000) }], cursor: null },
    }));
    await exact(
      'getCompressedTokenAccountsByOwnerV2',
      { owner: bob.publicKey.toBase58(), mint: mint.toBase58(), limit: 1 },
      (slot) => ({
        context: { slot },
        value: {
          items: [{ account: v2(acc.T2), tokenData: tokenData(bob, 500) }],
          cursor: h(Buffer.concat([mint.toBytes(), acc.T2.hash])),
        },
      }),
    );
    await exact('getCompressedTokenAccountsByDelegate', { delegate: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [], cursor: null },
    }));
    await exact('getCompressedTokenAccountsByDelegateV2', { delegate: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [], cursor: null },
    }));
    await exact('getCompressedTokenAccountBalance', { hash: h(acc.T2.hash) }, (slot) => ({
      context: { slot },
      value: { amount: 500 },
    }));
    await exact('getCompressedTokenBalancesByOwner', { owner: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { token_balances: [{ mint: mint.toBase58(), balance: 1000 }], cursor: null },
    }));
    await exact('getCompressedTokenBalancesByOwnerV2', { owner: bob.publicKey.toBase58(), limit: 1 }, (slot) => ({
      context: { slot },
      value: { items: [{ mint: mint.toBase58(), balance: 500 }], cursor: mint.toBase58() },
    }));
    const holderCursor = Buffer.alloc(40);
    holderCursor.writeBigUInt64LE(1000n);
    holderCursor.set(payer.publicKey.toBytes(), 8);
    await exact('getCompressedMintTokenHolders', { mint: mint.toBase58(), limit: 1 }, (slot) => ({
      context: { slot },
      value: { items: [{ owner: payer.publicKey.toBase58(), balance: 1000 }], cursor: h(holderCursor) },
    }));
    await exact('getCompressedMintTokenHolders', { mint: mint.toBase58(), cursor: h(holderCursor) }, (slot) => ({
      context: { slot },
      value: { items: [{ owner: bob.publicKey.toBase58(), balance: 500 }], cursor: null },
    }));
  });
});

describe('proofs', () => {
  // smt1 holds A, T1, C, D at leaves 0..3; its root sequence is 4.
  const smt1Leaves = () =>
    [acc.A.hash, acc.T1.hash, acc.C.hash, acc.D.hash].map((b) => BigInt('0x' + Buffer.from(b).toString('hex')));

  test('getCompressedAccountProof(V2) and the multiple forms, paths recomputed here from the leaves', async () => {
    const { path, root } = pathOf(smt1Leaves(), 2, 26);
    const v1Proof = {
      proof: path.map(hx),
      root: hx(root),
      leafIndex: 2,
      hash: h(acc.C.hash),
      merkleTree: SMT1,
      rootSeq: 4,
    };
    await exact('getCompressedAccountProof', { hash: h(acc.C.hash) }, (slot) => ({
      context: { slot },
      value: v1Proof,
    }));
    const d = pathOf(smt1Leaves(), 3, 26);
    await exact('getMultipleCompressedAccountProofs', [h(acc.C.hash), h(acc.D.hash)], (slot) => ({
      context: { slot },
      value: [
        v1Proof,
        { proof: d.path.map(hx), root: hx(d.root), leafIndex: 3, hash: h(acc.D.hash), merkleTree: SMT1, rootSeq: 4 },
      ],
    }));
    const { merkleTree: _t, ...common } = v1Proof;
    const smt1Context = { treeType: 1, tree: SMT1, queue: NFQ1, cpiContext: null };
    const bmt1Context = { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null };
    await exact('getCompressedAccountProofV2', { hash: h(acc.C.hash) }, (slot) => ({
      context: { slot },
      value: { ...common, proveByIndex: false, treeContext: smt1Context },
    }));
    // B waits in oq1: its path in the (empty) bmt1 at its future leaf index, proved by index.
    const empty = zeroValues(32);
    await exact('getCompressedAccountProofV2', { hash: h(acc.B.hash) }, (slot) => ({
      context: { slot },
      value: {
        proof: empty.slice(0, 32).map(hx),
        root: hx(empty[32]!),
        leafIndex: 0,
        hash: h(acc.B.hash),
        rootSeq: 0,
        proveByIndex: true,
        treeContext: bmt1Context,
      },
    }));
    await exact('getMultipleCompressedAccountProofsV2', [h(acc.B.hash), h(acc.C.hash)], (slot) => ({
      context: { slot },
      value: [
        {
          proof: [],
          root: ZERO,
          leafIndex: 0,
          hash: h(acc.B.hash),
          rootSeq: 0,
          proveByIndex: true,
          treeContext: bmt1Context,
        },
        { ...common, proveByIndex: false, treeContext: smt1Context },
      ],
    }));
  });

  test('getMultipleNewAddressProofs(V2): the low element of a new address in amt1 and amt2', async () => {
    const address = encodeBase58(bigIntToBytes32(123456789n));
    // amt1 at genesis: elements 0 (0 → index 1, 2^248-1) and 1; root sequence 3.
    const z26 = zeroValues(26);
    const low1 = poseidon([0n, 1n, HIGHEST_ADDRESS_PLUS_ONE]);
    const high1 = poseidon([HIGHEST_ADDRESS_PLUS_ONE, 0n, 0n]);
    const amt1 = pathOf([low1, high1], 0, 26);
    assert.equal(amt1.path[0], high1);
    assert.notEqual(amt1.path[1], z26[1]! + 1n);
    await exact('getMultipleNewAddressProofs', [address], (slot) => ({
      context: { slot },
      value: [
        {
          root: hx(amt1.root),
          address,
          lowerRangeAddress: ZERO,
          higherRangeAddress: hx(HIGHEST_ADDRESS_PLUS_ONE),
          nextIndex: 1,
          proof: amt1.path.map(hx),
          merkleTree: AMT1,
          rootSeq: 3,
          lowElementLeafIndex: 0,
        },
      ],
    }));
    const amt2 = pathOf([poseidon([0n, HIGHEST_ADDRESS_PLUS_ONE])], 0, 40);
    await exact('getMultipleNewAddressProofsV2', [{ address, tree: AMT2 }], (slot) => ({
      context: { slot },
      value: [
        {
          root: hx(amt2.root),
          address,
          lowerRangeAddress: ZERO,
          higherRangeAddress: hx(HIGHEST_ADDRESS_PLUS_ONE),
          nextIndex: 0,
          proof: amt2.path.map(hx),
          merkleTree: AMT2,
          rootSeq: 0,
          lowElementLeafIndex: 0,
        },
      ],
    }));
  });
});

describe('signatures and transactions', () => {
  const entry = async (sig: string) => {
    const st = (await rpc.getSignatureStatuses([sig])).value[0]!;
    const tx = await rpc.getTransaction(sig, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    return { signature: sig, slot: st.slot, blockTime: tx!.blockTime! };
  };

  test('signatures by account, owner, token owner, address, and the latest ones with cursors', async () => {
    const [cA, cB, mP, mB, tr, cm] = await Promise.all(
      [sigs.compressA, sigs.compressB, sigs.mintPayer, sigs.mintBob, sigs.transfer, sigs.createMint].map(entry),
    );
    await exact('getCompressionSignaturesForAccount', { hash: h(acc.A.hash) }, (slot) => ({
      context: { slot },
      value: { items: [tr, cA] },
    }));
    await exact('getCompressionSignaturesForOwner', { owner: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [tr, cB, cA], cursor: null },
    }));
    await exact('getCompressionSignaturesForTokenOwner', { owner: bob.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [mB], cursor: null },
    }));
    await exact('getCompressionSignaturesForAddress', { address: payer.publicKey.toBase58() }, (slot) => ({
      context: { slot },
      value: { items: [], cursor: null },
    }));
    const cursorOf = (e: { slot: number; signature: string }) => {
      const b = Buffer.alloc(72);
      b.writeBigUInt64LE(BigInt(e.slot));
      b.set(decodeBase58(e.signature), 8);
      return encodeBase58(b);
    };
    await exact('getLatestCompressionSignatures', { limit: 2 }, (slot) => ({
      context: { slot },
      value: { items: [tr, mB], cursor: cursorOf(mB!) },
    }));
    await exact('getLatestCompressionSignatures', { cursor: cursorOf(mB!) }, (slot) => ({
      context: { slot },
      value: { items: [mP, cB, cA], cursor: null },
    }));
    // All ledger transactions, with their error; no cursor in the answer.
    await exact('getLatestNonVotingSignatures', { cursor: cursorOf(mP!), limit: 1 }, (slot) => ({
      context: { slot },
      value: { items: [{ ...cm, error: null }] },
    }));
  });

  test('getTransactionWithCompressionInfo(V2): the transaction, the accounts it closed and opened', async () => {
    const transaction = (
      await call('getTransaction', [sigs.transfer, { encoding: 'base64', maxSupportedTransactionVersion: 0 }])
    ).json.result;
    await exact('getTransactionWithCompressionInfo', { signature: sigs.transfer }, () => ({
      transaction,
      compressionInfo: {
        closedAccounts: [{ account: v1(acc.A), optionalTokenData: null }],
        openedAccounts: [
          { account: v1(acc.C), optionalTokenData: null },
          { account: v1(acc.D), optionalTokenData: null },
        ],
      },
    }));
    const mintTx = (
      await call('getTransaction', [sigs.mintBob, { encoding: 'base64', maxSupportedTransactionVersion: 0 }])
    ).json.result;
    await exact('getTransactionWithCompressionInfoV2', [sigs.mintBob], () => ({
      transaction: mintTx,
      compressionInfo: {
        closedAccounts: [],
        openedAccounts: [{ account: v2(acc.T2), optionalTokenData: tokenData(bob, 500) }],
      },
    }));
    const closed = (await call('getTransactionWithCompressionInfoV2', { signature: sigs.transfer })).json.result
      .compressionInfo.closedAccounts;
    // A V1 spend has no nullifier or transaction hash: Photon's placeholders.
    assert.deepEqual(closed, [
      { account: { account: v2(acc.A), nullifier: ZERO, txHash: ZERO }, optionalTokenData: null },
    ]);
  });
});

describe('indexer status and queues', () => {
  test('slot, health, liveness, readiness', async () => {
    const { json } = await call('getIndexerSlot', []);
    assert.ok(Number.isInteger(json.result) && json.result >= Number(acc.D.slotCreated));
    const confirmed = await rpc.getSlot('confirmed');
    assert.ok((await rpc.getIndexerSlot()) >= confirmed);
    await exact('getIndexerHealth', [], () => 'ok');
    await exact('liveness', null, () => null);
    await exact('readiness', [], () => null);
    for (const path of ['liveness', 'readiness']) {
      const res = await httpRequest(`${gw.base}${path}`, { method: 'GET' });
      assert.deepEqual([res.status, res.text], [200, 'null'], path);
    }
  });

  test('getQueueInfo, getQueueLeafIndices and getQueueElements over the V2 queues', async () => {
    const { json } = await call('getQueueInfo', { trees: [BMT1, AMT2] });
    assert.deepEqual(json.result, {
      queues: [
        { tree: AMT2, queue: ZERO, queueType: 4, queueSize: 0 },
        { tree: BMT1, queue: OQ1, queueType: 3, queueSize: 0 },
        { tree: BMT1, queue: OQ1, queueType: 5, queueSize: 2 },
      ].sort((a, b) => (a.tree < b.tree ? -1 : a.tree > b.tree ? 1 : a.queueType - b.queueType)),
      slot: json.result.slot,
    });
    await exact('getQueueLeafIndices', { tree: BMT1, limit: 10 }, (slot) => ({ context: { slot }, value: [] }));
    // oq1 holds B (leaf 0) and T2 (leaf 1); one zkp batch of 2, over an empty bmt1.
    const z = zeroValues(32);
    const B = BigInt('0x' + Buffer.from(acc.B.hash).toString('hex'));
    const T2 = BigInt('0x' + Buffer.from(acc.T2.hash).toString('hex'));
    const nodes = [
      { index: 0, hash: hx(z[0]!) },
      { index: 1, hash: hx(z[0]!) },
      ...Array.from({ length: 31 }, (_, l) => ({ index: (BigInt(l + 1) << 56n) | 1n, hash: hx(z[l + 1]!) })),
    ];
    const { text, json: q } = await call('getQueueElements', {
      tree: BMT1,
      outputQueue: { limit: 10, zkpBatchSize: 2 },
      inputQueue: { limit: 10, zkpBatchSize: 2 },
    });
    const expected = {
      jsonrpc: '2.0',
      result: {
        context: { slot: q.result.context.slot },
        stateQueue: {
          nodes: nodes.map((x) => ({ index: `@${x.index}@`, hash: x.hash })),
          initialRoot: hx(z[32]!),
          rootSeq: 0,
          outputQueue: {
            leafIndices: [0, 1],
            accountHashes: [h(acc.B.hash), h(acc.T2.hash)],
            leaves: [hx(0n), hx(0n)],
            firstQueueIndex: 0,
            nextIndex: 0,
            leavesHashChains: [hx(poseidon([B, T2]))],
          },
          inputQueue: {
            leafIndices: [],
            accountHashes: [],
            leaves: [],
            txHashes: [],
            nullifiers: [],
            firstQueueIndex: 0,
            leavesHashChains: [],
          },
        },
      },
      id: 1,
    };
    // Node indices exceed 2^53: exact integer literals.
    assert.equal(text, JSON.stringify(expected).replace(/"@(\d+)@"/g, '$1'));
  });
});

describe('bad input: Photon errors, never an internal error', () => {
  const owner = () => payer.publicKey.toBase58();
  test('params errors (-32602) name the problem and the field', async () => {
    const cases: [string, unknown, string][] = [
      ['getCompressedAccount', { hash: 'xyz0' }, 'Invalid hash input at `params.hash`'],
      ['getCompressedAccount', { hash: 'abc' }, 'String is the wrong size at `params.hash`'],
      [
        'getCompressedAccount',
        { hash: 5 },
        'invalid type: integer `5`, expected a base58 encoded string at `params.hash`',
      ],
      ['getCompressedAccount', { foo: 1 }, 'unknown field `foo`, expected `address` or `hash` at `params`'],
      ['getCompressedAccountsByOwner', {}, 'missing field `owner` at `params`'],
      [
        'getCompressedAccountsByOwner',
        null,
        'invalid type: null, expected struct GetCompressedAccountsByOwnerRequest at `params`',
      ],
      [
        'getCompressedAccountsByOwner',
        { owner: owner(), limit: 1001 },
        'invalid value: integer `1001`, expected a value less than or equal to 1000 at `params.limit`',
      ],
      [
        'getCompressedAccountsByOwner',
        { owner: owner(), limit: '10' },
        'invalid type: string "10", expected u64 at `params.limit`',
      ],
      [
        'getCompressedAccountsByOwner',
        { owner: owner(), filters: null },
        'invalid type: null, expected a sequence at `params.filters`',
      ],
      ['getCompressedBalanceByOwner', { owner: 'O' + owner().slice(1) }, 'Invalid Base58 string at `params.owner`'],
      ['getMultipleCompressedAccountProofs', { hashes: [] }, 'invalid type: map, expected a sequence at `params`'],
      [
        'getTransactionWithCompressionInfo',
        { signature: 'abc' },
        'string decoded to wrong size for signature at `params.signature`',
      ],
      [
        'getCompressedMintTokenHolders',
        [mint.toBase58()],
        'invalid length 1, expected struct GetCompressedMintTokenHoldersRequest with 3 elements at `params`',
      ],
    ];
    for (const [m, p, msg] of cases) await fails(m, p, -32602, msg);
  });

  test("application errors (-32000) with Photon's messages", async () => {
    const unknownHash = encodeBase58(bigIntToBytes32(42n));
    const short = encodeBase58(Buffer.alloc(10, 7));
    const cases: [string, unknown, string][] = [
      ['getCompressedAccount', {}, 'Validation Error: Either address or hash must be provided'],
      [
        'getCompressedAccountsByOwner',
        { owner: owner(), filters: Array(6).fill({ memcmp: { offset: 0, bytes: '' } }) },
        'Validation Error: Too many filters. The maximum number of filters allowed is 5',
      ],
      [
        'getCompressedAccountsByOwner',
        { owner: owner(), filters: [{ dataSize: 5 }] },
        'Validation Error: Filter instance cannot be null',
      ],
      [
        'getMultipleCompressedAccounts',
        { hashes: [], addresses: [] },
        'Validation Error: Cannot provide both hashes and addresses',
      ],
      [
        'getMultipleCompressedAccountsV2',
        { hashes: [], addresses: [] },
        'Validation Error: Either hashes or addresses must be provided',
      ],
      [
        'getCompressedTokenAccountsByOwner',
        { owner: owner(), cursor: short },
        'Validation Error: Invalid cursor length. Expected 64. Received 10.',
      ],
      [
        'getCompressedMintTokenHolders',
        { mint: mint.toBase58(), cursor: owner() },
        'Validation Error: Invalid cursor length. Expected 40. Received 32.',
      ],
      [
        'getCompressedTokenBalancesByOwner',
        { owner: owner(), cursor: short },
        'Validation Error: Invalid cursor length. Expected 32. Received 10.',
      ],
      ['getCompressionSignaturesForOwner', { owner: owner(), cursor: '0OIl' }, 'Validation Error: Invalid cursor 0OIl'],
      [
        'getCompressionSignaturesForOwner',
        { owner: owner(), cursor: short },
        'Validation Error: Invalid cursor length. Expected 72. Received 10.',
      ],
      [
        'getCompressedAccountProof',
        { hash: unknownHash },
        'Record Not Found: Leaf nodes not found for hashes. Got 0 hashes. Expected 1.',
      ],
      ['getCompressedAccountProofV2', { hash: unknownHash }, 'Record Not Found: Account not found'],
      [
        'getMultipleCompressedAccountProofs',
        [h(acc.C.hash), h(acc.C.hash)],
        'Record Not Found: Leaf nodes not found for hashes. Got 1 hashes. Expected 2.',
      ],
      ['getMultipleCompressedAccountProofsV2', [unknownHash], 'Record Not Found: Some accounts not found'],
      ['getCompressionSignaturesForAccount', { hash: unknownHash }, 'Record Not Found: Account not found'],
      ['getMultipleNewAddressProofs', [], 'Validation Error: No addresses provided'],
      ['getMultipleNewAddressProofsV2', [{ address: owner(), tree: SMT1 }], `Invalid Public Key: field '${SMT1}'`],
      ['getQueueElements', { tree: BMT1 }, 'Validation Error: At least one queue must be requested'],
      [
        'getQueueElements',
        { tree: BMT1, outputQueue: { limit: 40000 } },
        'Validation Error: Too many queue elements requested 40000. Maximum allowed: 30000',
      ],
      ['getQueueInfo', { trees: ['abc'] }, 'Validation Error: Invalid pubkey: String is the wrong size'],
      [
        'getTransactionWithCompressionInfo',
        { signature: encodeBase58(Buffer.alloc(64, 9)) },
        `Record Not Found: Transaction ${encodeBase58(Buffer.alloc(64, 9))} is not in the ledger`,
      ],
    ];
    for (const [m, p, msg] of cases) await fails(m, p, -32000, msg);
  });

  test('validity proofs: a spent account is refused; an account in an output queue is proved by index', async () => {
    const { json } = await call('getValidityProofV2', { hashes: [h(acc.A.hash)] });
    assert.equal(json.error.code, -32000);
    assert.match(json.error.message, /^Validation Error: Account \w+ is spent/);
    const { text, json: ok } = await call('getValidityProofV2', { hashes: [h(acc.B.hash)] });
    assert.equal(
      text,
      JSON.stringify({
        jsonrpc: '2.0',
        result: {
          value: {
            compressedProof: null,
            accounts: [
              {
                hash: h(acc.B.hash),
                root: ZERO,
                rootIndex: { rootIndex: 0, proveByIndex: true },
                leafIndex: 0,
                merkleContext: { treeType: 3, tree: BMT1, queue: OQ1, cpiContext: null, nextTreeContext: null },
              },
            ],
            addresses: [],
          },
          context: { slot: ok.result.context.slot },
        },
        id: 1,
      }),
    );
  });

  test('a thousand random params to every Photon method: never an internal error', async () => {
    let s = 7;
    const r = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const atoms = [null, 0, -1, 1.5, 2 ** 60, '', 'x', 'O0Il', h(acc.C.hash), owner(), BMT1, true, [], {}];
    const value = (d: number): unknown =>
      d > 2 || r() < 0.5
        ? pick(atoms)
        : r() < 0.5
          ? Array.from({ length: Math.floor(r() * 3) }, () => value(d + 1))
          : Object.fromEntries(
              Array.from({ length: Math.floor(r() * 3) }, () => [
                pick([
                  'hash',
                  'owner',
                  'mint',
                  'cursor',
                  'limit',
                  'filters',
                  'tree',
                  'address',
                  'outputQueue',
                  'signature',
                ]),
                value(d + 1),
              ]),
            );
    const methods = (await import('../../src/rpc/methods/photon/index.js')).photonMethods({}).map((m) => m.name);
    assert.ok(methods.length >= 35, `${methods.length} Photon methods`);
    for (let i = 0; i < 1000; i++) {
      const method = methods[i % methods.length]!;
      const { json } = await call(method, value(0));
      if (json.error) assert.notEqual(json.error.code, -32603, `${method}: ${JSON.stringify(json.error)}`);
    }
  });
});
