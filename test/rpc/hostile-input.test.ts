// Input an attacker controls never reaches an internal error: every registered method, given
// hostile params (over-long, non-base58, empty, deeply nested, huge numbers), answers a JSON-RPC
// error that is not -32603, and nothing is logged as unexpected. HTTP the parser refuses, slow
// clients and over-long URLs get JSON-RPC error bodies; a client that drops mid-body is counted,
// not logged as an error.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { createMethodTable } from '../../src/rpc/index.js';
import { httpRequest, postJson, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth);
const body = (method: string, paramsJson: string, id: unknown = 1) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${paramsJson}}`;

/** Params shapes no method accepts as valid input of its own kind; the answer must still be typed. */
const HOSTILE: string[] = [
  JSON.stringify(['x'.repeat(5000)]),
  JSON.stringify(['1'.repeat(600)]),
  JSON.stringify(['é']),
  JSON.stringify(['']),
  JSON.stringify(['0']),
  JSON.stringify([-1]),
  JSON.stringify([1e300]),
  JSON.stringify([18446744073709551616]),
  JSON.stringify([{}]),
  JSON.stringify([[]]),
  JSON.stringify([['', 'é', '0']]),
  JSON.stringify(['11111111111111111111111111111111', { encoding: 'é', commitment: 'é' }]),
  JSON.stringify(['11111111111111111111111111111111', 'x'.repeat(2000)]),
  JSON.stringify({ id: 'x'.repeat(5000) }),
  JSON.stringify({ hashes: ['é'], newAddressesWithTrees: [{ address: '', tree: 'x'.repeat(3000) }] }),
  JSON.stringify([{ absoluteSlot: 1e300, absoluteTimestamp: -1 }]),
  `[${nested(10_000)}]`,
  `{"a":${nested(200)}}`,
];

describe('hostile params on every method', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ rateLimit: 0, logLevel: 'debug' }, {}, { ledger: true });
  });
  after(async () => gw?.stop());

  test('no method answers -32603 or logs an unexpected failure', async () => {
    const names = [...createMethodTable({ chain: { ledger: gw.gateway.chain!.ledger, endpoints: {} } }, 'x').keys()];
    assert.ok(names.length > 80, `${names.length} methods`);
    const problems: string[] = [];
    for (const method of names) {
      for (const params of HOSTILE) {
        const res = await postJson(gw.url, body(method, params));
        const what = `${method} ${params.slice(0, 50)}`;
        if (res.status !== 200) problems.push(`${what}: HTTP ${res.status}`);
        const r = JSON.parse(res.text);
        if (r.error?.code === -32603) problems.push(`${what}: -32603`);
        else if (r.error && r.error.message.length > 600)
          problems.push(`${what}: message of ${r.error.message.length} characters`);
      }
    }
    assert.deepEqual(problems, []);
    const unexpected = gw.logs.filter((l) => /"level":"error"/.test(l));
    assert.deepEqual(unexpected, [], unexpected.join('\n').slice(0, 2000));
  });

  test('the reported cases answer -32602 naming the field', async () => {
    const call = async (method: string, params: string) =>
      JSON.parse((await postJson(gw.url, body(method, params))).text);
    assert.deepEqual(await call('getAccountInfo', `[${nested(10_000)}]`), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'Invalid params: `params[0]` nested deeper than the limit of 64 levels'.replace(
          '` nested',
          '`: nested',
        ),
      },
      id: 1,
    });
    assert.deepEqual(await call('getBalance', JSON.stringify(['1'.repeat(20_000)])), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'Invalid params: `params[0]`: string of 20000 characters exceeds the limit of 16384',
      },
      id: 1,
    });
    assert.deepEqual(await call('getSignatureStatuses', JSON.stringify([['é']])), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params: invalid signature "é": not base58' },
      id: 1,
    });
    assert.deepEqual(await call('getSignatureStatuses', JSON.stringify([['']])), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params: invalid signature "": 0 bytes, expected 64' },
      id: 1,
    });
    assert.deepEqual(await call('getTransaction', JSON.stringify(['0'])), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params: invalid signature "0": not base58' },
      id: 1,
    });
    const asset = await call('getAsset', JSON.stringify({ id: 'x'.repeat(5000) }));
    assert.deepEqual(asset, {
      jsonrpc: '2.0',
      error: { code: -32000, message: `Pubkey Validation Err: ${'x'.repeat(61)}... is invalid` },
      id: 1,
    });
    // An over-long id is refused before it could be echoed.
    const longId = JSON.parse((await postJson(gw.url, body('getHealth', '[]', 'i'.repeat(2000)))).text);
    assert.deepEqual(longId, {
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid request: `id` of 2000 characters exceeds the limit of 1024' },
      id: null,
    });
  });

  test('airdrops are bounded, simulateTransaction checks its accounts option, and the supply stays a u64', async () => {
    const call = async (method: string, params: unknown) =>
      JSON.parse((await postJson(gw.url, body(method, JSON.stringify(params)))).text);
    const key = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    assert.deepEqual(await call('requestAirdrop', [key, 9007199254740991]), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'Invalid params: lamports: at most 1000000000000000 (1,000,000 SOL) per airdrop, got 9007199254740991',
      },
      id: 1,
    });
    // An account a cheatcode left at u64::MAX: one more lamport would overflow it.
    assert.equal((await call('surfnet_setAccount', [key, { lamports: 18446744073709551615 }])).error, undefined);
    assert.deepEqual(await call('requestAirdrop', [key, 2]), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: `Invalid params: an airdrop may not take an account above 100000000000000000 lamports (100,000,000 SOL): ${key} holds 18446744073709551615`,
      },
      id: 1,
    });
    // simulateTransaction's accounts option, checked before the simulation (a transfer: three
    // account keys).
    const from = Keypair.generate();
    const transfer = new Transaction({ feePayer: from.publicKey, recentBlockhash: key }).add(
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: new PublicKey(key), lamports: 1 }),
    );
    transfer.sign(from);
    const wire = transfer.serialize().toString('base64');
    assert.deepEqual(await call('simulateTransaction', [wire, { encoding: 'base64', accounts: { addresses: 'x' } }]), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'Invalid params: accounts.addresses: expected an array of base58 addresses, got "x"',
      },
      id: 1,
    });
    const four = Array.from({ length: 4 }, () => key);
    assert.deepEqual(await call('simulateTransaction', [wire, { encoding: 'base64', accounts: { addresses: four } }]), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid params: Too many accounts provided; max 3' },
      id: 1,
    });
    // Two balances at u64::MAX (the first one's, above, and another): getSupply saturates.
    const other = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';
    assert.equal((await call('surfnet_setAccount', [other, { lamports: 18446744073709551615 }])).error, undefined);
    const supply = (await postJson(gw.url, body('getSupply', '[]'))).text;
    assert.match(supply, /"total":18446744073709551615,"circulating":18446744073709551615,/);
  });

  test("surfnet_setAccount's account data is not held to the string limit", async () => {
    const key = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';
    const data = 'ab'.repeat(20_000);
    const set = JSON.parse(
      (await postJson(gw.url, body('surfnet_setAccount', JSON.stringify([key, { lamports: 5_000_000, data }])))).text,
    );
    assert.equal(set.error, undefined, JSON.stringify(set));
    const got = JSON.parse(
      (await postJson(gw.url, body('getAccountInfo', JSON.stringify([key, { encoding: 'base64' }])))).text,
    );
    assert.equal(Buffer.from(got.result.value.data[0], 'base64').toString('hex'), data);
    assert.equal(got.result.value.lamports, 5_000_000);
  });
});

/** Writes raw bytes on a fresh connection; what the server answered before closing. */
function rawExchange(port: number, bytes: string, opts: { waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const parts: Buffer[] = [];
    socket.on('data', (d) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(parts).toString('latin1')));
    socket.write(bytes);
    if (opts.waitMs === undefined) socket.end();
  });
}

function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const i = l.indexOf(':');
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(lines[0]!.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

describe('transport refusals carry JSON-RPC bodies', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ requestTimeoutMs: 600, logLevel: 'debug' });
  });
  after(async () => gw?.stop());

  const expectRefusal = (text: string, status: number, message: RegExp) => {
    const r = parseRaw(text);
    assert.equal(r.status, status, text);
    assert.match(r.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.body));
    const parsed = JSON.parse(r.body);
    assert.equal(parsed.jsonrpc, '2.0');
    assert.equal(parsed.id, null);
    assert.equal(parsed.error.code, -32600);
    assert.match(parsed.error.message, message);
  };

  test('malformed framing: 400', async () => {
    const text = await rawExchange(gw.gateway.rpcPort, 'POST / HTTP/1.1\r\nHost: x\r\nbad header line\r\n\r\n');
    expectRefusal(text, 400, /malformed HTTP request/);
  });

  test('a bad Content-Length: 400', async () => {
    const text = await rawExchange(
      gw.gateway.rpcPort,
      `POST /?api-key=${TEST_KEY} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12x\r\n\r\n{}`,
    );
    expectRefusal(text, 400, /invalid Content-Length/);
  });

  test('an over-long URL: 431', async () => {
    const text = await rawExchange(
      gw.gateway.rpcPort,
      `POST /?api-key=${TEST_KEY}&pad=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectRefusal(text, 431, /exceed 16 KB/);
  });

  test('a client too slow to send its body: 408', async () => {
    const text = await rawExchange(
      gw.gateway.rpcPort,
      `POST /?api-key=${TEST_KEY} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
      { waitMs: 0 },
    );
    // The gateway, not this client, ended the exchange: its 408 says its timeout passed.
    expectRefusal(text, 408, /Request timeout/);
  });

  test('a client that drops mid-body is counted, not logged as an error', async () => {
    const before = gw.logs.length;
    for (let i = 0; i < 5; i++) {
      await new Promise<void>((resolve) => {
        const socket = connect(gw.gateway.rpcPort, '127.0.0.1', () => {
          socket.write(
            `POST /?api-key=${TEST_KEY} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`,
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
        socket.on('error', () => {});
      });
    }
    await new Promise((r) => setTimeout(r, 200));
    const fresh = gw.logs.slice(before);
    assert.deepEqual(
      fresh.filter((l) => /"level":"(error|warn)"/.test(l)),
      [],
      'no error lines for dropped clients',
    );
    const metrics = await httpRequest(`${gw.base}metrics`, { method: 'GET' });
    const m = /zkgate_http_transport_refusals_total\{reason="client_closed"\} (\d+)/.exec(metrics.text);
    assert.ok(
      m && Number(m[1]) >= 5,
      metrics.text
        .split('\n')
        .filter((l) => l.includes('refusals'))
        .join('\n'),
    );
    // The server still answers.
    const alive = await postJson(gw.url, '{"jsonrpc":"2.0","id":1,"method":"getHealth"}');
    assert.equal(alive.text, '{"jsonrpc":"2.0","result":"ok","id":1}');
  });
});
