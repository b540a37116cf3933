// The websocket endpoint on the wire: exact JSON of answers, notifications and errors, the API-key
// rule, and the bounds (subscriptions per connection and per key, message size, slow consumers,
// keep-alive), each of which must leave other clients and the HTTP side untouched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { decodeBase58 } from '../../src/zk/base58.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { rpcCall, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { WsClient as Client } from '../helpers/ws-client.js';

describe('websocket protocol', () => {
  let gw: TestGateway;
  let url: string;
  const clients: Client[] = [];
  const open = async (opts?: WebSocket.ClientOptions) => {
    const c = await Client.open(url, opts);
    clients.push(c);
    return c;
  };

  before(async () => {
    gw = await startTestGateway(
      { wsMaxSubscriptionsPerConnection: 3, wsMaxSubscriptionsPerKey: 5, wsMaxMessageBytes: 2048 },
      {},
      { ledger: true },
    );
    url = `${gw.gateway.wsUrl}?api-key=${TEST_KEY}`;
  });
  after(async () => {
    for (const c of clients) c.close();
    await gw?.stop();
  });

  test('a missing or wrong API key is refused at the upgrade with 401 and a JSON-RPC error', async () => {
    for (const [q, message] of [
      ['', 'Unauthorized: missing API key; pass it as the query parameter `api-key`'],
      ['?api-key=nope', 'Unauthorized: invalid API key'],
    ] as const) {
      const res = await upgradeRefusal(`${gw.gateway.wsUrl}${q}`);
      assert.equal(res.status, 401);
      assert.equal(res.body, JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }));
    }
  });

  test('accountSubscribe: exact answers and notifications (binary by default, base64), unsubscribe', async () => {
    const c = await open();
    const kp = Keypair.generate();
    const key = kp.publicKey.toBase58();
    const idBinary = ((await c.call(1, 'accountSubscribe', [key, { commitment: 'processed' }])) as { result: number })
      .result;
    const answer = await c.call(2, 'accountSubscribe', [key, { commitment: 'processed', encoding: 'base64' }]);
    const idBase64 = (answer as { result: number }).result;
    assert.deepEqual(answer, { jsonrpc: '2.0', result: idBase64, id: 2 });
    const ledger = gw.gateway.chain!.ledger;
    ledger.airdrop(kp.publicKey.toBytes(), 5_000_000n);
    const slot = Number(ledger.slot);
    const notes = await c.until((m) => m.length >= 4);
    const value = {
      executable: false,
      lamports: 5_000_000,
      owner: '11111111111111111111111111111111',
      rentEpoch: 0,
      space: 0,
    };
    assert.deepEqual(notes.slice(2), [
      {
        jsonrpc: '2.0',
        method: 'accountNotification',
        params: { result: { context: { slot }, value: { data: '', ...value } }, subscription: idBinary },
      },
      {
        jsonrpc: '2.0',
        method: 'accountNotification',
        params: { result: { context: { slot }, value: { data: ['', 'base64'], ...value } }, subscription: idBase64 },
      },
    ]);
    // Key order as Agave writes it.
    assert.deepEqual(Object.keys((notes[3] as any).params.result.value), ['data', ...Object.keys(value)]);
    assert.deepEqual(await c.call(3, 'accountUnsubscribe', [idBinary]), { jsonrpc: '2.0', result: true, id: 3 });
    assert.deepEqual(await c.call(4, 'accountUnsubscribe', [idBinary]), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid subscription id.' },
      id: 4,
    });
    assert.deepEqual(await c.call(5, 'accountUnsubscribe', [idBase64]), { jsonrpc: '2.0', result: true, id: 5 });
  });

  test('signatureSubscribe: received, then once at its commitment, then gone', async () => {
    const c = await open();
    const kp = Keypair.generate();
    const ledger = gw.gateway.chain!.ledger;
    // Landed before the subscription and already processed: notified right after the answer.
    const early = encodeBase58(ledger.airdrop(kp.publicKey.toBytes(), 1n));
    const a = (await c.call(1, 'signatureSubscribe', [early, { commitment: 'processed' }])) as { result: number };
    await c.until((m) => m.length >= 2);
    assert.deepEqual(c.messages[1], {
      jsonrpc: '2.0',
      method: 'signatureNotification',
      params: {
        result: { context: { slot: (c.messages[1] as any).params.result.context.slot }, value: { err: null } },
        subscription: a.result,
      },
    });
    // A confirmed subscription on a signature that lands later: received at once, confirmed a slot on.
    const { signature, submit } = pendingTransfer(gw);
    const b = (await c.call(2, 'signatureSubscribe', [
      signature,
      { commitment: 'confirmed', enableReceivedNotification: true },
    ])) as { result: number };
    const landedIn = await submit();
    await c.until((m) => m.length >= 5);
    assert.deepEqual(c.messages.slice(3), [
      {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { result: { context: { slot: landedIn }, value: 'receivedSignature' }, subscription: b.result },
      },
      {
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { result: { context: { slot: landedIn }, value: { err: null } }, subscription: b.result },
      },
    ]);
    assert.ok(Number(gw.gateway.chain!.ledger.slotAt('confirmed')) >= landedIn);
    // Removed after it fired.
    assert.deepEqual(await c.call(3, 'signatureUnsubscribe', [b.result]), {
      jsonrpc: '2.0',
      error: { code: -32602, message: 'Invalid subscription id.' },
      id: 3,
    });
  });

  test('bad requests get Agave-form errors and the connection stays usable', async () => {
    const c = await open();
    c.send('{not json');
    await c.until((m) => m.length >= 1);
    assert.deepEqual(c.messages[0], { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
    assert.deepEqual(await c.call(1, 'nopeSubscribe', []), {
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id: 1,
    });
    const bad = (await c.call(2, 'accountSubscribe', ['xyz'])) as { error: { code: number; message: string } };
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /^Invalid params: invalid pubkey "xyz"/);
    const enc = (await c.call(3, 'accountSubscribe', [
      Keypair.generate().publicKey.toBase58(),
      { encoding: 'hex' },
    ])) as {
      error: { code: number; message: string };
    };
    assert.deepEqual(enc.error, {
      code: -32602,
      message:
        'Invalid params: unknown variant "hex", expected one of `binary`, `base58`, `base64`, `base64+zstd`, `jsonParsed`',
    });
    const filt = (await c.call(4, 'programSubscribe', [
      Keypair.generate().publicKey.toBase58(),
      { filters: [{ memcmp: { offset: 0 } }] },
    ])) as { error: { code: number; message: string } };
    assert.deepEqual(filt.error, {
      code: -32602,
      message: 'Invalid params: filters[0].memcmp.bytes: expected an encoded string',
    });
    const mentions = (await c.call(5, 'logsSubscribe', [{ mentions: [] }])) as { error: { code: number } };
    assert.equal(mentions.error.code, -32602);
    // Oversized: an error naming the limit, and the socket stays open.
    c.send({ jsonrpc: '2.0', id: 6, method: 'slotSubscribe', params: [], pad: 'x'.repeat(3000) });
    await c.until((m) => m.length >= 7);
    assert.deepEqual((c.messages[6] as { error: unknown }).error, {
      code: -32600,
      message: `Invalid Request: message of ${JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'slotSubscribe', params: [], pad: 'x'.repeat(3000) }).length} bytes, the most accepted is 2048 (--ws-max-message-bytes)`,
    });
    const ok = (await c.call(7, 'slotSubscribe')) as { result: number };
    assert.equal(typeof ok.result, 'number');
    // A notification (no id) is not answered.
    c.send({ jsonrpc: '2.0', method: 'ping' });
    assert.deepEqual(await c.call(8, 'slotUnsubscribe', [ok.result]), { jsonrpc: '2.0', result: true, id: 8 });
    assert.equal(c.messages.filter((m) => (m as { id?: unknown }).id === undefined && !(m as any).method).length, 0);
  });

  test('methods named after Object.prototype members are unknown: no subscription, no metric label, no crash', async () => {
    const c = await open();
    const names = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf'];
    let id = 0;
    for (const method of names)
      for (const params of [{ kind: 'slot', method: 'evilSubscribe' }, [], 'x'])
        assert.deepEqual(await c.call(++id, method, params), {
          jsonrpc: '2.0',
          error: { code: -32601, message: 'Method not found' },
          id,
        });
    assert.deepEqual(await c.call(++id, 'toStringUnsubscribe', [0]), {
      jsonrpc: '2.0',
      error: { code: -32601, message: 'Method not found' },
      id,
    });
    // Closing the connection removes nothing that was never added (it used to throw in the close handler).
    c.close();
    const again = await open();
    const ok = (await again.call(1, 'slotSubscribe')) as { result: number };
    assert.equal(typeof ok.result, 'number');
    const metrics = await (await fetch(`${gw.base}metrics`)).text();
    assert.doesNotMatch(metrics, /evil/);
  });

  test('subscription limits per connection and per key (-32016); other connections unaffected', async () => {
    for (const c of clients.splice(0)) c.close();
    while (gw.gateway.pubsub!.size > 0) await new Promise((r) => setTimeout(r, 10));
    const a = await open();
    for (let i = 0; i < 3; i++) assert.equal(typeof ((await a.call(i, 'slotSubscribe')) as any).result, 'number');
    assert.deepEqual(await a.call(9, 'slotSubscribe'), {
      jsonrpc: '2.0',
      error: {
        code: -32016,
        message:
          'Subscription refused: this connection holds 3 subscriptions, the most one may hold (--ws-max-subscriptions-per-connection)',
      },
      id: 9,
    });
    const b = await open();
    for (let i = 0; i < 2; i++) assert.equal(typeof ((await b.call(i, 'rootSubscribe')) as any).result, 'number');
    const refused = (await b.call(5, 'rootSubscribe')) as { error: { code: number; message: string } };
    assert.equal(refused.error.code, -32016);
    assert.match(refused.error.message, /this API key holds 5 subscriptions/);
    // Closing a connection frees its subscriptions for the key.
    a.close();
    await b.until(() => gw.gateway.pubsub!.size === 2);
    assert.equal(typeof ((await b.call(6, 'rootSubscribe')) as any).result, 'number');
    b.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(gw.gateway.pubsub!.size, 0);
  });
});

describe('websocket bounds on the outgoing side', () => {
  let gw: TestGateway;
  let url: string;
  before(async () => {
    gw = await startTestGateway({ wsMaxBufferedBytes: 256 * 1024 }, {}, { ledger: true });
    url = `${gw.gateway.wsUrl}?api-key=${TEST_KEY}`;
  });
  after(() => gw?.stop());

  test('a client that stops reading is disconnected; another client and HTTP carry on', async () => {
    const big = Keypair.generate().publicKey;
    const slow = await Client.open(url);
    const fast = await Client.open(url);
    const ledger = gw.gateway.chain!.ledger;
    for (const c of [slow, fast])
      await c.call(1, 'accountSubscribe', [big.toBase58(), { commitment: 'processed', encoding: 'base64' }]);
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const data = new Uint8Array(32 * 1024).fill(7);
    const writes = 400;
    for (let i = 0; i < writes; i++) {
      ledger.writeAccounts([
        {
          pubkey: big.toBytes(),
          account: {
            lamports: BigInt(1_000_000 + i),
            data,
            owner: new Uint8Array(32),
            executable: false,
            rentEpoch: 0n,
          },
        },
      ]);
      // Let the server flush between writes, as between transactions.
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    await fast.until((m) => m.length >= 1 + writes, 20_000);
    const last = fast.messages[writes] as any;
    assert.equal(last.params.result.value.lamports, 1_000_000 + writes - 1);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await slow.until(() => slow.closed !== undefined, 10_000).catch(() => {});
    assert.ok(slow.closed !== undefined, 'the slow client was disconnected');
    assert.ok(slow.messages.length < 1 + writes, `the slow client got ${slow.messages.length} messages`);
    const metrics = await (await fetch(`${gw.base}metrics`)).text();
    assert.match(metrics, /zkgate_ws_disconnects_total\{reason="slow_consumer"\} 1/);
    assert.equal((await rpcCall(gw.url, 'getHealth', [])).result, 'ok');
    assert.equal(fast.closed, undefined);
    fast.close();
  });

  describe('websocket keep-alive', () => {
    let gw: TestGateway;
    let url: string;
    before(async () => {
      gw = await startTestGateway({ wsPingIntervalMs: 500 }, {}, { ledger: true });
      url = `${gw.gateway.wsUrl}?api-key=${TEST_KEY}`;
    });
    after(() => gw?.stop());

    test('a client that does not answer pings is dropped; one that does stays', async () => {
      const mute = await Client.open(url, { autoPong: false });
      const live = await Client.open(url);
      await mute.until(() => mute.closed !== undefined, 5000).catch(() => {});
      assert.ok(mute.closed !== undefined, 'the client without pongs was dropped');
      assert.equal(live.closed, undefined);
      assert.deepEqual(((await live.call(1, 'slotSubscribe')) as any).id, 1);
      live.close();
    });
  });
});

/** A signed SOL transfer and the function that sends it; resolves with the slot it landed in. */
function pendingTransfer(gw: TestGateway): { signature: string; submit: () => Promise<number> } {
  const ledger = gw.gateway.chain!.ledger;
  const from = Keypair.generate();
  ledger.airdrop(from.publicKey.toBytes(), 1_000_000_000n);
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: ledger.latestBlockhash().blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 }),
  );
  tx.sign(from);
  const wire = tx.serialize().toString('base64');
  return {
    signature: encodeBase58(tx.signature!),
    submit: async () => {
      const r = await rpcCall(gw.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
      assert.equal(r.result, encodeBase58(tx.signature!), JSON.stringify(r.error));
      return Number(ledger.transaction(decodeBase58(r.result))!.slot);
    },
  };
}

describe('websocket connections per API key', () => {
  const OTHER = 'other-key-0123456789abcdef';
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ wsMaxConnectionsPerKey: 2, apiKeys: [TEST_KEY, OTHER] }, {}, { ledger: true });
  });
  after(() => gw?.stop());

  test('beyond the limit the upgrade is refused with 429; another key is unaffected; a closed one frees its place', async () => {
    const url = (k: string) => `${gw.gateway.wsUrl}?api-key=${k}`;
    const a = await Client.open(url(TEST_KEY));
    const b = await Client.open(url(TEST_KEY));
    const res = await upgradeRefusal(url(TEST_KEY));
    assert.equal(res.status, 429);
    assert.equal(
      res.body,
      JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32016,
          message:
            'Too many websocket connections: this API key holds 2, the most allowed (--ws-max-connections-per-key)',
        },
        id: null,
      }),
    );
    const other = await Client.open(url(OTHER));
    assert.equal(typeof ((await other.call(1, 'slotSubscribe')) as { result: number }).result, 'number');
    a.close();
    const until = Date.now() + 5000;
    let c: Client | undefined;
    while (!c && Date.now() < until) c = await Client.open(url(TEST_KEY)).catch(() => undefined);
    assert.ok(c, 'a place freed by a closed connection is taken again');
    const metrics = await (await fetch(`${gw.base}metrics`)).text();
    assert.match(metrics, /^zkgate_ws_disconnects_total\{reason="connection_limit"\} [1-9]\d*$/m);
    for (const x of [b, c, other]) x.close();
  });
});

/** The HTTP answer to a websocket upgrade the server refuses (rejects if the socket opens). */
function upgradeRefusal(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, r) => {
      let body = '';
      r.on('data', (d: Buffer) => (body += d.toString()));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
    });
    ws.on('open', () => reject(new Error('opened')));
    ws.on('error', () => {});
  });
}
