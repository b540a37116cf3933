// The README's "ZK compression in 5 minutes" snippet, run as written (a Node ESM script using the
// unmodified stateless.js from npm) against a real gateway with the embedded ledger; its printed
// balances and account are checked against zkgate's index.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { decodeBase58 } from '../../src/zk/index.js';
import { startTestGateway } from '../helpers/gateway.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function quickstart(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const m = readme.match(/<!-- quickstart:begin -->\n```js\n([\s\S]*?)```\n<!-- quickstart:end -->/);
  assert.ok(m, 'README has the quickstart snippet between its markers');
  return m[1]!;
}

test(
  "the README's ZK-compression quickstart runs as written and prints the indexed balances",
  { timeout: 600_000 },
  async (t) => {
    const gw = await startTestGateway({}, {}, { prover: true, ledger: true, keys: ['v1_inclusion_26_1'] });
    // Inside the checkout so the script resolves the pinned clients from node_modules, as in a user's project.
    const dir = join(root, 'node_modules/.cache/zkgate-test');
    mkdirSync(dir, { recursive: true });
    const script = join(dir, `quickstart-${process.pid}.mjs`);
    try {
      writeFileSync(script, quickstart());
      const { stdout } = await promisify(execFile)(process.execPath, [script], {
        env: { ...process.env, ZKGATE_URL: gw.url },
        timeout: 300_000,
      });
      const lines = stdout.trimEnd().split('\n');
      t.diagnostic(lines.join(' / '));
      assert.equal(lines[0], 'alice compressed 700000000');
      assert.equal(lines[1], 'bob compressed 300000000');
      const m = lines[2]!.match(/^bob account (\w+) leaf (\d+) in (\w+)$/);
      assert.ok(m, lines[2]);
      assert.equal(m[3], 'smt1NamzXdq4AMqS2fS2F1i5KTYPZRhoHgWx38d8WsT');
      // The account it printed is bob's 0.3 SOL in zkgate's index, at the leaf it printed.
      const record = gw.gateway.chain!.compression.store.account(decodeBase58(m[1]!));
      assert.ok(record);
      assert.equal(record.lamports, 300_000_000n);
      assert.equal(record.leafIndex, Number(m[2]));
      assert.equal(record.tree, m[3]);
      assert.equal(record.spent, false);
      assert.equal(gw.gateway.chain!.compression.store.ownerBalance(record.owner), 300_000_000n);
      assert.equal(gw.gateway.chain!.compression.ingester.divergent.size, 0);
    } finally {
      rmSync(script, { force: true });
      await gw.stop();
    }
  },
);
