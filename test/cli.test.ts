// The CLI as an operator runs it: generated key persistence, config errors, graceful shutdown.
import assert from 'node:assert/strict';
import { statSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { QUIET_START, runCli, startCli } from './helpers/cli.js';
import { postJson, tempDir } from './helpers/gateway.js';

const HEALTH = '{"jsonrpc":"2.0","id":1,"method":"getHealth"}';
const dirs: string[] = [];
const newDir = () => {
  const d = tempDir('zkgate-cli-');
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('API key generated on first start', () => {
  test('is printed, stored 0600 in the data dir, works, and is reused by later starts', async () => {
    const dataDir = newDir();
    const first = await startCli(['--data-dir', dataDir]);
    assert.ok(first.key && /^[0-9a-f-]{36}$/.test(first.key), first.stderr());
    assert.match(first.stderr(), /generated now and stored in .*api-key/);
    const file = join(dataDir, 'api-key');
    assert.equal(readFileSync(file, 'utf8'), first.key + '\n');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal((await postJson(first.url, HEALTH)).text, '{"jsonrpc":"2.0","result":"ok","id":1}');
    first.child.kill('SIGTERM');
    assert.deepEqual(await first.exited, { code: 0, signal: null });
    assert.ok(!first.stdout().includes(first.key!), 'the key never appears in the JSON logs');
    assert.ok(!first.stderr().includes(first.key!), 'nor in a banner that is not on a terminal');
    assert.match(first.stderr(), /api-key=<the key in .*api-key>/);

    const second = await startCli(['--data-dir', dataDir]);
    assert.equal(second.key, first.key);
    assert.match(second.stderr(), /\(stored in .*api-key\)/);
    assert.equal((await postJson(second.url, HEALTH)).status, 200);
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0);
  });

  test('configured keys (here from a --config file) replace the generated one and are not printed', async () => {
    const dataDir = newDir();
    const cfg = join(dataDir, 'zkgate.json');
    writeFileSync(cfg, JSON.stringify({ apiKeys: ['from-file-key-1'], logLevel: 'warn' }));
    const gw = await startCli(['--data-dir', dataDir, '--config', cfg]);
    assert.equal(gw.key, undefined);
    assert.match(gw.stderr(), /API keys\s+1 configured \(ids key-[0-9a-f]{8}\)/);
    assert.ok(!gw.stderr().includes('from-file-key-1'));
    assert.equal((await postJson(`${gw.base}?api-key=from-file-key-1`, HEALTH)).status, 200);
    gw.child.kill('SIGINT');
    assert.equal((await gw.exited).code, 0);
  });
});

describe('command-line errors', () => {
  test('--help prints usage and every option, exit 0', async () => {
    const p = runCli(['--help']);
    assert.equal((await p.exited).code, 0);
    assert.match(p.stdout(), /zkgate start \[options\]/);
    assert.match(p.stdout(), /^ {2}--rpc-port <port> {2}\(RPC_PORT\)$/m);
  });

  test('an unknown flag exits 2 naming it', async () => {
    const p = runCli(['start', '--rpc-prot', '1']);
    assert.equal((await p.exited).code, 2);
    assert.match(p.stderr(), /^zkgate: .*'--rpc-prot'/);
  });

  test('a bad environment value exits 2 naming the variable', async () => {
    const p = runCli(['start', '--data-dir', newDir()], { RPC_PORT: 'eighty' });
    assert.equal((await p.exited).code, 2);
    assert.equal(
      p.stderr(),
      'zkgate: environment variable RPC_PORT: expected an integer from 0 to 65535, got "eighty"\n',
    );
  });

  test('an unknown command exits 2', async () => {
    const p = runCli(['serve']);
    assert.equal((await p.exited).code, 2);
    assert.match(p.stderr(), /unknown command "serve"/);
  });

  test('a port already in use fails the start with a clear message, exit 1', async () => {
    const a = await startCli(['--data-dir', newDir()]);
    try {
      const port = new URL(a.base).port;
      const b = runCli(['start', '--rpc-port', port, '--grpc-port', '0', ...QUIET_START, '--data-dir', newDir()]);
      assert.equal((await b.exited).code, 1);
      assert.match(b.stderr(), /^zkgate: failed to start: .*EADDRINUSE/);
    } finally {
      a.child.kill('SIGTERM');
      await a.exited;
    }
  });
});

/** Until the gateway counts a request in flight besides the /metrics request asking. */
async function untilInFlight(base: string): Promise<void> {
  await waitFor(async () => {
    const text = await (await fetch(`${base}metrics`)).text();
    return Number(/^zkgate_http_in_flight_requests (\d+)$/m.exec(text)?.[1] ?? 0) >= 2;
  });
}

/** Sends headers and half a body, returning a function that sends the rest and resolves with the response. */
function halfRequest(url: string, body: string): { finish: () => Promise<{ status: number; text: string }> } {
  let resolveRes: (v: { status: number; text: string }) => void;
  let rejectRes: (e: Error) => void;
  const response = new Promise<{ status: number; text: string }>((res, rej) => {
    resolveRes = res;
    rejectRes = rej;
  });
  response.catch(() => {}); // the connection may be cut before anyone awaits the answer
  const req = request(
    url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      agent: false,
    },
    (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolveRes({ status: res.statusCode!, text }));
    },
  );
  req.on('error', (e) => rejectRes(e));
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return {
    finish: () => {
      req.end(body.slice(half));
      return response;
    },
  };
}

// A guard against a hang, not a measure of speed: generous on a machine shared with the suite.
const waitFor = async (cond: () => boolean | Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('graceful shutdown', () => {
  test('SIGTERM: stops accepting, finishes the in-flight request, exits 0', async () => {
    const gw = await startCli(['--data-dir', newDir(), '--api-keys', 'k1']);
    const url = `${gw.base}?api-key=k1`;
    const inflight = halfRequest(url, HEALTH);
    await untilInFlight(gw.base); // the request is being read
    gw.child.kill('SIGTERM');
    await waitFor(() => gw.stdout().includes('"shutting down"'));
    await assert.rejects(postJson(url, HEALTH), /ECONNREFUSED/, 'new connections are refused while draining');
    const res = await inflight.finish();
    assert.deepEqual(res, { status: 200, text: '{"jsonrpc":"2.0","result":"ok","id":1}' });
    assert.deepEqual(await gw.exited, { code: 0, signal: null });
    assert.match(gw.stdout(), /"msg":"stopped","inFlightFinished":true/);
  });

  test('an in-flight request that never finishes is cut off after the shutdown timeout, exit 0', async () => {
    const gw = await startCli(['--data-dir', newDir(), '--api-keys', 'k1', '--shutdown-timeout-ms', '300']);
    const stuck = halfRequest(`${gw.base}?api-key=k1`, HEALTH);
    await untilInFlight(gw.base);
    gw.child.kill('SIGTERM');
    // It exits on its own while the request is still unfinished (this client never sends the
    // rest), and says it cut it off.
    assert.deepEqual(await gw.exited, { code: 0, signal: null });
    assert.match(gw.stdout(), /"msg":"stopped","inFlightFinished":false/);
    await assert.rejects(stuck.finish());
  });
});
