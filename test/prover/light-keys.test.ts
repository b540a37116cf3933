// A zkgate prover started with Light's own key files (--light-keys, --proving-keys light) is a
// drop-in for Light's prover: POST /prove answers Light's bodies (from Light's own generator) with
// proofs that verify under Light's verifying keys, inputs the circuit rejects and shapes without a
// Light key get Light's error shapes, and getValidityProof over its own trees proves with Light's key.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FR, toHex32 } from '../../src/zk/field.js';
import { LightKeyStore } from '../../src/zk/light/store.js';
import { sampleLightInputs } from '../../src/zk/light/sample-inputs.js';
import { loadPoseidon } from '../../src/zk/poseidon.js';
import { fromRaw } from '../../src/zk/proof-format.js';
import { shapeByName } from '../../src/zk/shapes.js';
import { verifyGroth16 } from '../../src/zk/verify.js';
import { demoAccountHashes } from '../../src/prover/index.js';
import { httpRequest, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';
import { runCliToEnd } from '../helpers/cli.js';
import { keyFileV014 } from '../helpers/gnark-v014.js';
import { SMT1 } from './helpers.js';
import { lightPackage, type LightPackage } from '../helpers/light-package.js';

const FILES = ['mainnet_inclusion_26_1.key', 'non-inclusion_40_1.key'];

describe("a prover on Light's keys", () => {
  let pkg: LightPackage;
  let gw: TestGateway;
  let store: LightKeyStore;
  before(async () => {
    pkg = await lightPackage();
    await loadPoseidon();
    gw = await startTestGateway(
      { role: 'prover', provingKeys: 'light', lightKeys: FILES.map((f) => join(pkg.keys, f)) },
      {},
      // A data dir of its own: Light's keys imported into the suite's shared key cache would be
      // used by every other test's gateway ("auto" takes them).
      { prover: true, linkKeys: false },
    );
    store = new LightKeyStore(gw.dataDir);
  });
  after(async () => {
    if (process.env.DEBUG_LOGS) console.log(gw.logs.join('\n'));
    await gw?.stop();
  });

  const prove = (body: unknown) =>
    httpRequest(`http://127.0.0.1:${gw.gateway.provePort}/prove`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test("a body from Light's own generator is proved with Light's key", async () => {
    const out = execFileSync(pkg.prover, ['gen-test-params', '--tree-height', '26', '--compressed-accounts', '1'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    const body = JSON.parse(out) as { inputCompressedAccounts: { root: string; leaf: string }[] };
    // Light's generator adds a hash that V1 bodies do not carry (stateless.js sends none).
    delete (body as Record<string, unknown>).publicInputHash;
    const res = await prove(body);
    assert.equal(res.status, 200, res.text);
    const raw = JSON.parse(res.text);
    assert.deepEqual(Object.keys(raw), ['ar', 'bs', 'krs']);
    const { root, leaf } = body.inputCompressedAccounts[0]!;
    const vk = store.get('v1_inclusion_26_1')!.vk;
    assert.ok(verifyGroth16(vk, [BigInt(root), BigInt(leaf)], fromRaw(raw)));
    assert.equal(verifyGroth16(vk, [BigInt(root), BigInt(leaf) + 1n], fromRaw(raw)), false);
    // The leaf plus r (a 32-byte hex value above the field): reduced as Light's prover reduces it.
    const wide = structuredClone(body);
    wide.inputCompressedAccounts[0]!.leaf = toHex32(BigInt(leaf) + FR);
    const reduced = await prove(wide);
    assert.equal(reduced.status, 200, reduced.text);
    assert.ok(verifyGroth16(vk, [BigInt(root), BigInt(leaf)], fromRaw(JSON.parse(reduced.text))));
    // The leaf changed: Light's circuit rejects it, naming the constraint (the root's comparison).
    const tampered = structuredClone(body);
    tampered.inputCompressedAccounts[0]!.leaf = toHex32(BigInt(leaf) + 1n);
    const bad = await prove(tampered);
    assert.equal(bad.status, 400);
    assert.deepEqual(JSON.parse(bad.text), {
      code: 'proving_error',
      message: "v1_inclusion_26_1: the inputs do not satisfy Light's circuit (constraint #6319 is not satisfied)",
    });
  });

  test('a V2 non-inclusion body is proved with its Light key', async () => {
    const shape = shapeByName('v2_non-inclusion_40_1');
    const inputs = sampleLightInputs(shape);
    const hex = (v: string) => toHex32(BigInt(v));
    const body = {
      circuitType: 'non-inclusion',
      addressTreeHeight: 40,
      publicInputHash: hex(inputs.publicInputHash as string),
      newAddresses: [
        {
          root: hex((inputs.addressRoots as string[])[0]!),
          value: hex((inputs.values as string[])[0]!),
          pathIndex: Number((inputs.addrPathIndices as string[])[0]),
          pathElements: (inputs.addrPathElements as string[][])[0]!.map(hex),
          leafLowerRangeValue: hex((inputs.lowValues as string[])[0]!),
          leafHigherRangeValue: hex((inputs.nextValues as string[])[0]!),
        },
      ],
    };
    const res = await prove(body);
    assert.equal(res.status, 200, res.text);
    const vk = store.get('v2_non-inclusion_40_1')!.vk;
    assert.ok(verifyGroth16(vk, [BigInt(inputs.publicInputHash as string)], fromRaw(JSON.parse(res.text))));
  });

  test('a shape without a Light key is refused as Light refuses it, naming the shape', async () => {
    const out = execFileSync(pkg.prover, ['gen-test-params', '--tree-height', '26', '--compressed-accounts', '2'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    const body = JSON.parse(out) as Record<string, unknown>;
    delete body.publicInputHash;
    const res = await prove(body);
    assert.equal(res.status, 400);
    const err = JSON.parse(res.text);
    assert.equal(err.code, 'proving_error');
    assert.match(
      err.message,
      /^no Light key for v1_inclusion_26_2: --proving-keys light proves only with Light's keys/,
    );
  });

  test("getValidityProof over the prover's own trees proves with Light's key", async () => {
    const prover = gw.gateway.prover!;
    // Light's localnet V1 state tree, which the prover registers at start.
    const leaves = demoAccountHashes(SMT1, 1, 0, 3, 'light-keys');
    prover.store.stateTree(SMT1).append(leaves);
    const r = await prover.service.getValidityProof(
      { hashes: [leaves[1]!], addresses: [], api: 1 },
      { deadline: Date.now() + 60_000 },
    );
    assert.equal(r.circuit, 'v1_inclusion_26_1');
    const light = store.get('v1_inclusion_26_1')!;
    assert.equal(r.proof!.keySha256, light.entry.sourceSha256);
    assert.ok(verifyGroth16(light.vk, r.proof!.publicInputs, r.proof!.points));
    assert.deepEqual(r.proof!.publicInputs[1], leaves[1]);
  });
});

test('zkgate keys import-light imports a file once, lists it, and refuses what is not a key file', async () => {
  const pkg = await lightPackage();
  const dataDir = tempDir('zkgate-import-light-');
  try {
    const file = join(pkg.keys, 'mainnet_inclusion_26_1.key');
    const first = await runCliToEnd(['keys', 'import-light', file, '--data-dir', dataDir]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /^v1_inclusion_26_1: imported .* \(6320 constraints, test proof verified\), sha256 [0-9a-f]{64}\n1 imported/,
    );
    const again = await runCliToEnd(['keys', 'import-light', file, '--data-dir', dataDir]);
    assert.match(again.stdout, /^v1_inclusion_26_1: .* imported before, unchanged\n0 imported/);
    const list = await runCliToEnd(['keys', 'list', '--data-dir', dataDir]);
    assert.match(list.stdout, /\nv1_inclusion_26_1 +ready +light +[0-9a-f]{64}\n/);
    const bad = join(dataDir, 'inclusion_32_1.key');
    writeFileSync(bad, readFileSync(file).subarray(0, 5000));
    const refused = await runCliToEnd(['keys', 'import-light', bad, '--data-dir', dataDir]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /inclusion_32_1\.key: its header says \[26, 1, 0, 0\], its name \[32, 1, 0, 0\]/);
    // A 0.27 file under a current-release name is refused; a current-release file (gnark v0.14,
    // rewritten from the same file: test/helpers/gnark-v014.ts) imports in its place.
    const current = join(dataDir, 'v1_inclusion_26_1.key');
    writeFileSync(current, readFileSync(file));
    const misnamed = await runCliToEnd(['keys', 'import-light', current, '--data-dir', dataDir]);
    assert.notEqual(misnamed.code, 0);
    assert.match(misnamed.stderr, /v1_inclusion_26_1\.key: its name is a current-release \(gnark v0\.14\) name/);
    writeFileSync(current, keyFileV014('mainnet_inclusion_26_1.key', readFileSync(file)));
    const newer = await runCliToEnd(['keys', 'import-light', current, '--data-dir', dataDir]);
    assert.equal(newer.code, 0, newer.stderr);
    assert.match(newer.stdout, /^v1_inclusion_26_1: imported \S*v1_inclusion_26_1\.key in .*test proof verified/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
