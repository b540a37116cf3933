// The adapter's bound on proofs in flight (proof-admission.ts): what is over it is refused before
// the prover is called; a finished call frees its place; other callers are not held back by one.
// The backend here is an object whose calls finish when the test says: the end-to-end path through
// a real gateway is covered in test/prover/service.test.ts (per-key share of the queue).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClientValidityProof } from '../../src/prover/index.js';
import { admitProofs } from '../../src/rpc/proof-admission.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';

test('refused at once past the per-caller and total bounds, counted; places free as calls finish', async () => {
  const pending: (() => void)[] = [];
  let calls = 0;
  const backend = {
    getValidityProof: () =>
      new Promise<ClientValidityProof>((resolve) => {
        calls++;
        pending.push(() =>
          resolve({ accounts: [], addresses: [], slot: 0n, circuit: '', publicInputs: [], keySha256: '' }),
        );
      }),
  };
  const metrics = new MetricsRegistry();
  const admitted = admitProofs(backend, { perCaller: 2, total: 3 }, metrics);
  const req = (caller: string) => ({ hashes: [], addresses: [], api: 2 as const, caller });
  const a1 = admitted.getValidityProof(req('a'));
  const a2 = admitted.getValidityProof(req('a'));
  await assert.rejects(admitted.getValidityProof(req('a')), (e: Error & { kind?: string }) => {
    assert.equal(e.kind, 'prover_busy');
    assert.equal(
      e.message,
      'Prover busy: this client already has 2 proofs running or queued, the most one client may have; retry when they finish',
    );
    return true;
  });
  const b1 = admitted.getValidityProof(req('b'));
  await assert.rejects(
    admitted.getValidityProof(req('c')),
    /^ProverError: Prover busy: 3 proofs running or queued \(the limit\); retry shortly$/,
  );
  assert.equal(calls, 3, 'the refused calls never reached the backend');
  pending.shift()!();
  await a1;
  const a3 = admitted.getValidityProof(req('a'));
  assert.equal(calls, 4);
  for (const done of pending.splice(0)) done();
  await Promise.all([a2, b1, a3]);
  const text = metrics.render();
  assert.match(text, /zkgate_proofs_shed_total\{limit="caller"\} 1/);
  assert.match(text, /zkgate_proofs_shed_total\{limit="total"\} 1/);
});
