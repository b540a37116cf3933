// Background proofs (the forester's) step aside while client proofs run (native/src/preempt.hpp):
// a background proof on another thread of the process pauses at its next preemption point when a
// client proof starts, resumes when none is left, and makes the same proof as without pauses.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { decodeProof } from '../../src/zk/native-addon.js';
import { witnessValues } from '../../src/prover/witness-calculator.js';
import { addonPath, le32, loadNativeAddon, type NativeAddon } from '../../src/zk/native-addon.js';
import { loadPoseidon, shutdownZk } from '../../src/zk/index.js';
import { assertVerifies } from '../helpers/zk.js';
import { keyCopy, type KeyCopy } from './key-copy.js';

const status = loadNativeAddon();
let addon: NativeAddon;
let background: KeyCopy;
let client: KeyCopy;

before(async () => {
  await loadPoseidon();
  if (!status.ok) return;
  addon = status.addon;
  background = await keyCopy('v2_combined_32_40_1_1', 1);
  client = await keyCopy('v1_inclusion_26_1', 1);
});
after(async () => {
  for (const c of [background, client]) if (c) rmSync(c.dir, { recursive: true, force: true });
  await shutdownZk();
});

// A worker thread of this process proves with the key the test thread registered under `name`
// (the addon is one library: keys and the client count are the process's), at "background".
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const addon = require(workerData.addonPath);
const key = addon.findKey(workerData.name);
parentPort.postMessage({ started: true });
const proof = addon.prove(key, workerData.witness, workerData.zero, workerData.zero, 1, 'snarkjs', 'background');
parentPort.postMessage({ proof });
`;

describe('client proofs preempt background proofs', { skip: !status.ok && `native addon unavailable` }, () => {
  test('a background proof pauses while client proofs run, then finishes the same proof', async (t) => {
    const name = `preempt-test:${process.pid}`;
    const bgKey = addon.loadKey(readFileSync(background.zkeyPath), 1 << 30, 2, false, name);
    addon.waitTables(bgKey);
    const clientKey = addon.loadKey(readFileSync(client.zkeyPath), 1 << 30, 2, false, '');
    addon.waitTables(clientKey);
    const bgSample = background.samples[0]!;
    const bgWitness = witnessValues(bgSample.wtns);
    const clientSample = client.samples[0]!;
    const clientWitness = witnessValues(clientSample.wtns);
    // Blinding r = s = 0: deterministic, so the paused proof can be compared byte for byte.
    const expected = addon.prove(bgKey, bgWitness, le32(0n), le32(0n), 1, 'snarkjs');

    // Alone, a background proof never pauses.
    const alone = addon.preemptStats();
    assert.deepEqual(addon.prove(bgKey, bgWitness, le32(0n), le32(0n), 1, 'snarkjs', 'background'), expected);
    assert.equal(addon.preemptStats().pauses, alone.pauses);

    const before = addon.preemptStats();
    const worker = new Worker(WORKER, {
      eval: true,
      workerData: { addonPath, name, witness: bgWitness, zero: le32(0n) },
    });
    let proof: Uint8Array | undefined;
    let failure: unknown;
    const done = new Promise<void>((resolve) => {
      worker.on('message', (m: { proof?: Uint8Array }) => {
        if (m.proof) {
          proof = m.proof;
          resolve();
        }
      });
      worker.on('error', (e) => {
        failure = e;
        resolve();
      });
    });
    await new Promise<void>((resolve) => worker.once('message', () => resolve()));
    // Client proofs back to back until the background one is done (each a macrotask apart, so the
    // worker's messages come through).
    let clientProofs = 0;
    while (!proof && !failure) {
      const p = decodeProof(addon.prove(clientKey, clientWitness, le32(5n), le32(6n), 2, 'rerandomized'));
      if (clientProofs++ === 0) await assertVerifies(client.key.vk, clientSample.publicSignals, p);
      await new Promise((r) => setImmediate(r));
    }
    await done;
    await worker.terminate();
    assert.equal(failure, undefined);
    assert.deepEqual(proof, expected, 'the paused background proof is the same proof');
    await assertVerifies(background.key.vk, bgSample.publicSignals, decodeProof(proof!));
    const after = addon.preemptStats();
    assert.ok(
      after.pauses > before.pauses,
      `paused ${after.pauses - before.pauses} times beside ${clientProofs} client proofs`,
    );
    assert.ok(after.pausedMs > before.pausedMs);
    t.diagnostic(
      `${clientProofs} client proofs; the background proof paused ${after.pauses - before.pauses} times, ${(after.pausedMs - before.pausedMs).toFixed(0)} ms in all`,
    );
    assert.equal(after.clients, 0, 'no client proof left counted');
  });

  test('a priority other than client or background is refused with a message', () => {
    const key = addon.loadKey(readFileSync(client.zkeyPath), 0, 1, false, '');
    const w = witnessValues(client.samples[0]!.wtns);
    assert.throws(
      () => addon.prove(key, w, le32(1n), le32(2n), 1, 'snarkjs', 'urgent' as 'client'),
      /priority must be "client" or "background"/,
    );
    assert.equal(addon.preemptStats().clients, 0);
  });
});
