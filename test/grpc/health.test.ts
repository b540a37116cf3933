// The standard grpc.health.v1 service on the gateway's gRPC port, through a real gRPC client.
import * as grpc from '@grpc/grpc-js';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HEALTH_PROTO, HEALTH_SERVICE } from '../../src/grpc/health.js';
import { clientConstructor } from '../../src/grpc/protos.js';
import { startGrpcServer } from '../../src/grpc/server.js';
import { createLogger } from '../../src/obs/log.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

type Client = grpc.Client & {
  Check(req: { service: string }, cb: (e: grpc.ServiceError | null, r?: { status: string }) => void): void;
  Watch(req: { service: string }): grpc.ClientReadableStream<{ status: string }>;
};

let gw: TestGateway;
let client: Client;
before(async () => {
  gw = await startTestGateway();
  const Ctor = clientConstructor(HEALTH_PROTO, HEALTH_SERVICE);
  client = new Ctor(gw.gateway.grpcAddress, grpc.credentials.createInsecure()) as unknown as Client;
});
after(async () => {
  client.close();
  await gw.stop();
});

const check = (service: string) =>
  new Promise<{ status?: string; code?: number }>((resolve) =>
    client.Check({ service }, (e, r) => resolve(e ? { code: e.code } : { status: r!.status })),
  );

test('Check of the server as a whole answers SERVING', async () => {
  assert.deepEqual(await check(''), { status: 'SERVING' });
});

test('Check of an unknown service answers NOT_FOUND', async () => {
  assert.deepEqual(await check('no.such.Service'), { code: grpc.status.NOT_FOUND });
});

test('Watch streams the current status, then NOT_SERVING when the gateway shuts down', async () => {
  const other = await startTestGateway();
  const Ctor = clientConstructor(HEALTH_PROTO, HEALTH_SERVICE);
  const c = new Ctor(other.gateway.grpcAddress, grpc.credentials.createInsecure()) as unknown as Client;
  try {
    const stream = c.Watch({ service: '' });
    const seen: string[] = [];
    const ended = new Promise<void>((resolve) => {
      stream.on('data', (m: { status: string }) => {
        seen.push(m.status);
        if (seen.length === 1) void other.stop();
      });
      stream.on('end', resolve);
      stream.on('error', () => resolve());
    });
    await ended;
    assert.deepEqual(seen, ['SERVING', 'NOT_SERVING']);
  } finally {
    c.close();
  }
});

test('Watch streams of made-up service names leave nothing behind when they end', async () => {
  const server = await startGrpcServer(
    '127.0.0.1',
    0,
    createLogger('error', () => {}),
  );
  const Ctor = clientConstructor(HEALTH_PROTO, HEALTH_SERVICE);
  const c = new Ctor(server.address, grpc.credentials.createInsecure()) as unknown as Client;
  try {
    const streams = Array.from({ length: 50 }, (_, i) => c.Watch({ service: `made.up.Service${i}` }));
    const first = await Promise.all(
      streams.map(
        (s) => new Promise<string>((resolve) => s.once('data', (m: { status: string }) => resolve(m.status))),
      ),
    );
    assert.deepEqual(new Set(first), new Set(['SERVICE_UNKNOWN']));
    assert.equal(server.health.watchedNames(), 50);
    for (const s of streams) {
      s.on('error', () => {});
      s.cancel();
    }
    const until = Date.now() + 5000;
    while (server.health.watchedNames() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(server.health.watchedNames(), 0);
  } finally {
    c.close();
    await server.close(1000);
  }
});
