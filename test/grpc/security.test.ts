// The prover role's gRPC port: a bearer token on every Prover and StateSync call (health stays
// open), TLS across hosts, and a configuration that would expose either port without
// authentication refused at start.
import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import selfsigned from 'selfsigned';
import { resolveConfig } from '../../src/config.js';
import { checkHealth, closeHealthClients, GRPC_TOKEN_FILE } from '../../src/grpc/index.js';
import { clientConstructor } from '../../src/grpc/protos.js';
import { ProverClient, RemoteProverError } from '../../src/prover/index.js';
import { STATE_SYNC_PROTO, STATE_SYNC_SERVICE } from '../../src/prover/grpc-services.js';
import { encodeBase58 } from '../../src/zk/base58.js';
import { runCliToEnd } from '../helpers/cli.js';
import { proverClientOf, rpcCall, startTestGateway, tempDir, type TestGateway } from '../helpers/gateway.js';

const TOKEN = 'grpc-token-0123456789abcdef';
const TREE = encodeBase58(new Uint8Array(32).fill(7));
const UNKNOWN_HASH = encodeBase58(new Uint8Array(32).fill(9));

describe('exposure is refused without authentication', () => {
  const resolve = (flags: Record<string, unknown>) => resolveConfig(flags, {}, undefined);

  test('off loopback the gRPC port needs --grpc-token and /prove needs --prover-api-key', () => {
    assert.throws(() => resolve({ host: '0.0.0.0' }), /0\.0\.0\.0 \(--host\) without authentication: set --grpc-token/);
    assert.throws(
      () => resolve({ host: '0.0.0.0', grpcToken: TOKEN }),
      /Light's \/prove API would listen on 0\.0\.0\.0 \(--host\) without authentication: set --prover-api-key/,
    );
    assert.throws(() => resolve({ proverHost: '10.1.2.3' }), /10\.1\.2\.3 \(--prover-host\)/);
    // With a token, off loopback wants TLS too, or an explicit --grpc-insecure on.
    assert.throws(
      () => resolve({ host: '0.0.0.0', grpcToken: TOKEN, proverApiKey: 'k' }),
      /would listen on 0\.0\.0\.0 \(--host\) without TLS, its token in plaintext: set --grpc-tls-cert and --grpc-tls-key, or --grpc-insecure on/,
    );
    const exposed = { host: '0.0.0.0', grpcToken: TOKEN, proverApiKey: 'k' };
    assert.equal(resolve({ ...exposed, grpcInsecure: 'on' }).host, '0.0.0.0');
    assert.equal(resolve({ ...exposed, grpcTlsCert: '/c.pem', grpcTlsKey: '/k.pem' }).host, '0.0.0.0');
    // The JSON-RPC port may be public while the prover's ports stay on loopback.
    assert.equal(resolve({ host: '0.0.0.0', proverHost: '127.0.0.1' }).proverHost, '127.0.0.1');
    assert.equal(resolve({ host: '::1' }).host, '::1');
    // --role rpc serves no prover ports.
    assert.equal(resolve({ host: '0.0.0.0', role: 'rpc', proverUrl: '127.0.0.1:1' }).role, 'rpc');
    assert.equal(resolve({ role: 'rpc', proverUrl: '[::1]:1' }).role, 'rpc');
    // A client of a prover elsewhere sends its token with TLS, or is told it would not.
    assert.throws(
      () => resolve({ role: 'rpc', proverUrl: 'p:1' }),
      /--prover-url p:1 is not on loopback: its token would cross the network in plaintext; set --grpc-tls-ca/,
    );
    assert.equal(resolve({ role: 'rpc', proverUrl: 'p:1', grpcTlsCa: '/ca.pem' }).role, 'rpc');
    assert.equal(resolve({ role: 'rpc', proverUrl: '10.0.0.2:1', grpcInsecure: 'on' }).role, 'rpc');
    assert.throws(() => resolve({ grpcToken: 'short' }), /grpcToken \(--grpc-token\) must be at least 16 characters/);
    assert.throws(() => resolve({ grpcTlsCert: '/x.pem' }), /grpcTlsCert and grpcTlsKey .* go together/);
  });

  test('zkgate start refuses to start, naming the flag', async () => {
    const r = await runCliToEnd(['start', '--host', '0.0.0.0', '--data-dir', tempDir(), '--rpc-port', '0']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--grpc-token/);
  });
});

type RawClient = grpc.Client & Record<string, (...a: unknown[]) => void>;

/** A StateSync call made with grpc-js directly: the status code the server answered. */
function rawCall(address: string, method: string, req: object, metadata = new grpc.Metadata()): Promise<number> {
  const Sync = clientConstructor(STATE_SYNC_PROTO, STATE_SYNC_SERVICE);
  const c = new Sync(address, grpc.credentials.createInsecure()) as unknown as RawClient;
  return new Promise((resolve) =>
    c[method]!(req, metadata, { deadline: Date.now() + 5000 }, (err: grpc.ServiceError | null) => {
      c.close();
      resolve(err ? err.code : grpc.status.OK);
    }),
  );
}

describe('the token a prover generates for itself', () => {
  test('on loopback, without --grpc-token: StateSync and Prover calls need the data dir token, kept across restarts', async () => {
    const dataDir = tempDir();
    const first = await startTestGateway({ role: 'prover' }, {}, { prover: true, dataDir });
    let token: string;
    try {
      const file = join(dataDir, GRPC_TOKEN_FILE);
      token = readFileSync(file, 'utf8').trim();
      assert.equal(first.gateway.grpcToken, token);
      assert.ok(token.length >= 32, token);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const address = first.gateway.grpcAddress;
      const register = {
        pubkey: Buffer.alloc(32, 7),
        treeType: 'TREE_TYPE_STATE_V1',
        height: 0,
        rootHistoryCapacity: 0,
        queue: Buffer.alloc(0),
      };
      assert.equal(await rawCall(address, 'RegisterTree', register), grpc.status.UNAUTHENTICATED);
      const append = { tree: Buffer.alloc(32, 7), leaves: [Buffer.alloc(32, 1)], slot: '0' };
      assert.equal(await rawCall(address, 'AppendLeaves', append), grpc.status.UNAUTHENTICATED);
      const anonymous = new ProverClient(address);
      await assert.rejects(anonymous.listCircuits(), /refused this client's token \(missing token/);
      anonymous.close();
    } finally {
      await first.stop();
    }
    // The same token on the next start: clients configured with it keep working.
    const again = await startTestGateway({ role: 'prover' }, {}, { prover: true, dataDir });
    try {
      assert.equal(again.gateway.grpcToken, token);
      const client = proverClientOf(again.gateway);
      const t = await client.registerTree({ pubkey: TREE, treeType: 1 });
      assert.equal(t.nextIndex, 0);
      assert.equal((await client.appendLeaves(TREE, [5n])).firstLeafIndex, 0);
      client.close();
    } finally {
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('role all proves through its own port with the generated token', async () => {
    const gw = await startTestGateway({}, {}, { prover: true });
    try {
      assert.ok(gw.gateway.grpcToken);
      const r = await rpcCall(gw.url, 'getValidityProof', { hashes: [UNKNOWN_HASH] });
      // Answered by the prover's service: the adapter's own client got through.
      assert.match(r.error.message, /^Record Not Found/);
    } finally {
      await gw.stop();
    }
  });
});

describe('--grpc-token', () => {
  let prover: TestGateway;
  before(async () => {
    prover = await startTestGateway({ role: 'prover', grpcToken: TOKEN }, {}, { prover: true });
  });
  after(async () => {
    await prover?.stop();
    closeHealthClients();
  });

  test('calls without the token or with a wrong one are refused with UNAUTHENTICATED, and change nothing', async () => {
    const address = prover.gateway.grpcAddress;
    const tree = Buffer.from(new Uint8Array(32).fill(7));
    const register = {
      pubkey: tree,
      treeType: 'TREE_TYPE_STATE_V1',
      height: 0,
      rootHistoryCapacity: 0,
      queue: Buffer.alloc(0),
    };
    const wrong = new grpc.Metadata();
    wrong.set('authorization', 'Bearer not-the-token-at-all');
    const lower = new grpc.Metadata();
    lower.set('authorization', TOKEN);
    assert.equal(await rawCall(address, 'RegisterTree', register), grpc.status.UNAUTHENTICATED);
    assert.equal(await rawCall(address, 'RegisterTree', register, wrong), grpc.status.UNAUTHENTICATED);
    assert.equal(await rawCall(address, 'RegisterTree', register, lower), grpc.status.UNAUTHENTICATED);
    const append = { tree, leaves: [Buffer.alloc(32, 1)], slot: '0' };
    assert.equal(await rawCall(address, 'AppendLeaves', append, wrong), grpc.status.UNAUTHENTICATED);

    const anonymous = new ProverClient(address);
    await assert.rejects(anonymous.listCircuits(), (e: RemoteProverError) => {
      assert.equal(e.kind, 'prover_unavailable');
      assert.match(e.message, /refused this client's token \(missing token/);
      return true;
    });
    await assert.rejects(anonymous.prove({}), /refused this client's token/);
    anonymous.close();

    // With the token: the tree registered by none of the refused calls is registered now, once.
    const client = new ProverClient(address, 11_000, {
      credentials: grpc.credentials.createInsecure(),
      options: {},
      token: TOKEN,
    });
    await assert.rejects(client.getTree(TREE), (e: RemoteProverError) => e.kind === 'tree_not_found');
    const t = await client.registerTree({ pubkey: TREE, treeType: 1 });
    assert.equal(t.nextIndex, 0);
    const r = await client.appendLeaves(TREE, [5n, 6n]);
    assert.equal(r.firstLeafIndex, 0);
    assert.equal((await client.getTree(TREE)).nextIndex, 2);
    client.close();
  });

  test('the health service stays open', async () => {
    assert.equal(await checkHealth(prover.gateway.grpcAddress), 'SERVING');
  });

  test('--role rpc sends --prover-token; a wrong one is a clear -32014', async () => {
    const good = await startTestGateway({ role: 'rpc', proverUrl: prover.gateway.grpcAddress, proverToken: TOKEN });
    const bad = await startTestGateway({
      role: 'rpc',
      proverUrl: prover.gateway.grpcAddress,
      proverToken: 'another-token-0123456789',
    });
    try {
      const ok = await rpcCall(good.url, 'getValidityProof', { hashes: [UNKNOWN_HASH] });
      // Answered by the prover's service itself: the call got through.
      assert.equal(ok.error.code, -32000);
      assert.match(ok.error.message, /^Record Not Found/);
      const refused = await rpcCall(bad.url, 'getValidityProof', { hashes: [UNKNOWN_HASH] });
      assert.equal(refused.error.code, -32014);
      assert.match(refused.error.message, /refused this client's token \(wrong token\): check --prover-token/);
    } finally {
      await good.stop();
      await bad.stop();
    }
  });
});

describe('TLS', () => {
  const dir = tempDir();
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  before(() => {
    // A certificate for a name and the loopback address, as an operator's would be for the prover host.
    const pems = selfsigned.generate([{ name: 'commonName', value: 'prover.test' }], {
      days: 2,
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'prover.test' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private);
  });
  after(() => closeHealthClients());

  test('--role rpc reaches a TLS prover with --grpc-tls-ca and the token; plaintext clients cannot', async () => {
    const prover = await startTestGateway(
      { role: 'prover', grpcToken: TOKEN, grpcTlsCert: certFile, grpcTlsKey: keyFile },
      {},
      { prover: true },
    );
    const rpc = await startTestGateway({
      role: 'rpc',
      proverUrl: prover.gateway.grpcAddress,
      proverToken: TOKEN,
      grpcTlsCa: certFile,
    });
    try {
      const r = await rpcCall(rpc.url, 'getValidityProof', { hashes: [UNKNOWN_HASH] });
      assert.match(r.error.message, /^Record Not Found/);
      const health = (await (await fetch(`${rpc.base}health`)).json()) as {
        components: Record<string, { status: string }>;
      };
      assert.equal(health.components.grpc?.status, 'ready', JSON.stringify(health.components.grpc));
      // A plaintext client gets no answer from a TLS port, with or without the token.
      const plain = new ProverClient(prover.gateway.grpcAddress, 3000, {
        credentials: grpc.credentials.createInsecure(),
        options: {},
        token: TOKEN,
      });
      await assert.rejects(plain.listCircuits(), (e: RemoteProverError) => e.kind === 'prover_unavailable');
      plain.close();
    } finally {
      await rpc.stop();
      await prover.stop();
    }
  });

  test('role all serves TLS and reaches its own port by the name in the certificate', async () => {
    const gw = await startTestGateway(
      { grpcToken: TOKEN, grpcTlsCert: certFile, grpcTlsKey: keyFile },
      {},
      { prover: true },
    );
    try {
      const r = await rpcCall(gw.url, 'getValidityProof', { hashes: [UNKNOWN_HASH] });
      assert.match(r.error.message, /^Record Not Found/);
      const health = (await (await fetch(`${gw.base}health`)).json()) as {
        components: Record<string, { status: string }>;
      };
      assert.equal(health.components.grpc?.status, 'ready');
    } finally {
      await gw.stop();
    }
  });
});
