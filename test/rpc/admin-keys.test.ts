// Admin-only methods (cheatcodes, requestAirdrop) through real HTTP: with --admin-keys only those
// keys may call them, other keys get -32017 naming the method and the rule, reads and ordinary
// methods stay open; without --admin-keys a gateway bound off loopback refuses them for everyone.
// The websocket serves none of them (subscriptions only); gRPC's key builds and writes are held to
// --build-on-demand and the gRPC token (test/prover/build-on-demand.test.ts, test/grpc/security.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postJson, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { WsClient } from '../helpers/ws-client.js';
import { ApiKeys, keyId } from '../../src/rpc/api-keys.js';

const ADMIN = 'zkgate-admin-key-for-tests-0123';
const ACCOUNT = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

const call = async (url: string, method: string, params: unknown[] = []) =>
  JSON.parse((await postJson(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).text);
const refusal = (message: string) => ({ jsonrpc: '2.0', error: { code: -32017, message }, id: 1 });

describe('with --admin-keys', () => {
  let gw: TestGateway;
  let adminUrl: string;
  before(async () => {
    gw = await startTestGateway({ adminKeys: [ADMIN] }, {}, { ledger: true });
    adminUrl = gw.url.replace(TEST_KEY, ADMIN);
  });
  after(() => gw?.stop());

  test('the websocket serves subscriptions only: no admin method is reachable there, with any key', async () => {
    for (const key of [TEST_KEY, ADMIN]) {
      const ws = await WsClient.open(`${gw.gateway.wsUrl}?api-key=${key}`);
      try {
        for (const [i, method] of ['requestAirdrop', 'surfnet_setAccount', 'surfnet_timeTravel'].entries())
          assert.deepEqual(await ws.call(i, method, [ACCOUNT, 5]), {
            jsonrpc: '2.0',
            error: { code: -32601, message: 'Method not found' },
            id: i,
          });
      } finally {
        ws.close();
      }
    }
    assert.equal((await call(gw.url, 'getBalance', [ACCOUNT])).result.value, 0, 'nothing was written');
  });

  test('other keys are refused the admin methods; reads and ordinary methods stay open', async () => {
    assert.deepEqual(
      await call(gw.url, 'requestAirdrop', [ACCOUNT, 1_000_000_000]),
      refusal('requestAirdrop changes the chain for every caller: it needs one of the --admin-keys'),
    );
    assert.deepEqual(
      await call(gw.url, 'surfnet_setAccount', [ACCOUNT, { lamports: 5 }]),
      refusal('surfnet_setAccount changes the chain for every caller: it needs one of the --admin-keys'),
    );
    assert.equal((await call(gw.url, 'getBalance', [ACCOUNT])).result.value, 0, 'nothing was written');
    assert.ok((await call(gw.url, 'surfnet_getSurfnetInfo')).result, 'a cheatcode that only reads');
    // In a batch, only the admin method is refused.
    const batch = JSON.parse(
      (
        await postJson(
          gw.url,
          JSON.stringify([
            { jsonrpc: '2.0', id: 1, method: 'getHealth' },
            { jsonrpc: '2.0', id: 2, method: 'surfnet_pauseClock' },
          ]),
        )
      ).text,
    );
    assert.deepEqual(batch, [
      { jsonrpc: '2.0', result: 'ok', id: 1 },
      {
        jsonrpc: '2.0',
        error: {
          code: -32017,
          message: 'surfnet_pauseClock changes the chain for every caller: it needs one of the --admin-keys',
        },
        id: 2,
      },
    ]);
  });

  test("Light's trees, queues and programs are refused to cheatcodes unless forced", async () => {
    const amt2 = 'amt2kaJA14v3urZbZvnc5v2np8jqvc4Z8zDep5wbtzx';
    const system = 'SySTEM1eSU2p4BGQfQpimFEWWSC1XDFeun3Nqzz3rT7';
    const before = (await call(adminUrl, 'getAccountInfo', [amt2, { encoding: 'base64' }])).result.value;
    const zeroed = '00'.repeat(Buffer.from(before.data[0], 'base64').length);
    assert.deepEqual(await call(adminUrl, 'surfnet_setAccount', [amt2, { data: zeroed }]), {
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: `Invalid params: surfnet_setAccount would change ${amt2}, one of Light's trees and queues (account-compression's): refused, as the gateway could no longer index Light's state; pass {"force": true} as the last param to write it anyway`,
      },
      id: 1,
    });
    assert.match(
      (await call(adminUrl, 'surfnet_setProgramAuthority', [system, ACCOUNT])).error.message,
      /surfnet_setProgramAuthority would change \w+, a Light program's program data: refused/,
    );
    assert.match(
      (await call(adminUrl, 'surfnet_resetAccount', [amt2])).error.message,
      /surfnet_resetAccount would change amt2\w+, one of Light's trees and queues/,
    );
    const after = (await call(adminUrl, 'getAccountInfo', [amt2, { encoding: 'base64' }])).result.value;
    assert.deepEqual(after, before, 'the tree is as it was');
    // Forced, the write goes through (here: the tree's own bytes back).
    const same = Buffer.from(before.data[0], 'base64').toString('hex');
    const forced = await call(adminUrl, 'surfnet_setAccount', [amt2, { data: same }, { force: true }]);
    assert.equal(forced.error, undefined, JSON.stringify(forced));
  });

  test('an admin key is an API key that may call them', async () => {
    assert.equal(typeof (await call(adminUrl, 'requestAirdrop', [ACCOUNT, 1_000_000_000])).result, 'string');
    assert.equal((await call(adminUrl, 'surfnet_setAccount', [ACCOUNT, { lamports: 7 }])).error, undefined);
    assert.equal((await call(adminUrl, 'getBalance', [ACCOUNT])).result.value, 7);
    assert.equal((await call(gw.url, 'getBalance', [ACCOUNT])).result.value, 7, 'seen by every key');
  });
});

test('without --admin-keys, a gateway bound off loopback refuses the admin methods to every key', async () => {
  const gw = await startTestGateway({ host: '0.0.0.0', grpcToken: 'grpc-token-for-tests-0123' }, {}, { ledger: true });
  try {
    assert.deepEqual(
      await call(gw.url, 'requestAirdrop', [ACCOUNT, 1_000_000_000]),
      refusal(
        'requestAirdrop changes the chain for every caller: refused on a gateway bound off loopback without --admin-keys',
      ),
    );
    assert.equal((await call(gw.url, 'getBalance', [ACCOUNT])).result.value, 0);
  } finally {
    await gw.stop();
  }
});

test("a key sharing an admin key's short id is no admin: the whole key decides", async () => {
  // Two keys with one 4-byte id, found by a birthday search (about 2^16 tries).
  const seen = new Map<string, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const key = `zkgate-collide-${i}-0123456789`;
    const other = seen.get(keyId(key));
    if (other) pair = [other, key];
    else seen.set(keyId(key), key);
  }
  const [admin, user] = pair;
  assert.equal(keyId(admin), keyId(user));
  const keys = new ApiKeys([user], [admin]);
  assert.deepEqual(keys.identify(user), { id: keyId(user), admin: false });
  assert.deepEqual(keys.identify(admin), { id: keyId(admin), admin: true });
  const gw = await startTestGateway({ apiKeys: [user], adminKeys: [admin] }, {}, { ledger: true });
  try {
    const userUrl = gw.url.replace(TEST_KEY, user);
    assert.deepEqual(
      await call(userUrl, 'requestAirdrop', [ACCOUNT, 1_000_000_000]),
      refusal('requestAirdrop changes the chain for every caller: it needs one of the --admin-keys'),
    );
    assert.equal((await call(userUrl, 'getBalance', [ACCOUNT])).result.value, 0, 'nothing was written');
    assert.equal(typeof (await call(gw.url.replace(TEST_KEY, admin), 'requestAirdrop', [ACCOUNT, 5])).result, 'string');
  } finally {
    await gw.stop();
  }
});
