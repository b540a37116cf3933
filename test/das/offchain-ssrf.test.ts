// Off-chain metadata is fetched from public addresses only: whoever writes a metadata account
// chooses its URI, and the JSON comes back in getAsset. Real loopback listeners stand in for the
// private targets; each refusal is checked to have never reached its listener (direct, numeric
// and IPv6 forms, a host name resolving to loopback, a redirect hop), and counted in the metrics.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { open, type RootDatabase } from 'lmdb';
import { MetadataFetcher } from '../../src/das/offchain.js';
import { MetricsRegistry } from '../../src/obs/metrics.js';
import { isPublicAddress } from '../../src/util/public-address.js';
import { FetchRefused, fetchPublic } from '../../src/util/public-fetch.js';
import { tempDir } from '../helpers/gateway.js';

let secret: Server;
let hits = 0;
let port = 0;
let redirector: Server;
let redirectPort = 0;
const dir = tempDir('zkgate-ssrf-');
let root: RootDatabase;

const listen = (s: Server, host: string) =>
  new Promise<number>((r) => s.listen(0, host, () => r((s.address() as AddressInfo).port)));

before(async () => {
  secret = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"description":"internal secret"}');
  });
  port = await listen(secret, '127.0.0.1');
  // On another loopback address: the one hop a test policy lets through, redirecting to the secret.
  redirector = createServer((req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${port}${req.url}` });
    res.end();
  });
  redirectPort = await listen(redirector, '127.0.0.2');
  root = open({ path: dir, compression: false });
});

after(async () => {
  secret.close();
  redirector.close();
  await root.close();
  rmSync(dir, { recursive: true, force: true });
});

test('public and non-public addresses: IPv4, IPv6, mapped and NAT64 forms', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '192.0.2.1',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    // Every IPv6 form that carries an IPv4 address is judged by it.
    '::ffff:0:127.0.0.1',
    '::ffff:0:a9fe:a9fe',
    '64:ff9b:1::7f00:1',
    '64:ff9b:1:7f00:0:100::',
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::',
    '2001:0:7f00:1::808:808',
    '2001:0:808:808::80ff:fffe',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '[::1]',
    'not an address',
  ];
  for (const a of blocked) assert.equal(isPublicAddress(a), false, a);
  const allowed = [
    '1.1.1.1',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '::ffff:0:8.8.8.8',
    '64:ff9b:1:808:8:800:808:808',
    '2002:808:808::1',
    '2001:0:808:808::f7f7:f7f7',
  ];
  for (const a of allowed) assert.equal(isPublicAddress(a), true, a);
});

const refusedPrivate = async (uri: string, o: { allowed?: (a: string) => boolean } = {}) => {
  await assert.rejects(
    fetchPublic(uri, { signal: AbortSignal.timeout(5000), maxBytes: 1000, maxRedirects: 3, ...o }),
    (e: unknown) => e instanceof FetchRefused && e.kind === 'private_address' && /not a public address/.test(e.message),
    uri,
  );
};

test('loopback targets are refused before any connection: direct, numeric, IPv6 and named forms', async () => {
  for (const host of [`127.0.0.1`, `127.1`, `2130706433`, `0x7f.1`, `[::1]`, `[::ffff:127.0.0.1]`, `localhost`])
    await refusedPrivate(`http://${host}:${port}/x.json`);
  assert.equal(hits, 0, 'the listener was never reached');
  // Allowed on purpose (a dev chain serving its own metadata), the same URL is fetched.
  const ok = await fetchPublic(`http://127.0.0.1:${port}/x.json`, {
    signal: AbortSignal.timeout(5000),
    maxBytes: 1000,
    maxRedirects: 3,
    allowed: () => true,
  });
  assert.equal(ok.status, 200);
  assert.equal(hits, 1);
});

test('every redirect hop is checked: a hop to loopback is refused, and redirects are bounded', async () => {
  hits = 0;
  // The first hop's address passes this policy; the redirect's target does not.
  const policy = { allowed: (a: string) => a === '127.0.0.2' };
  await refusedPrivate(`http://127.0.0.2:${redirectPort}/y.json`, policy);
  assert.equal(hits, 0, 'the redirect target was never reached');
  await assert.rejects(
    fetchPublic(`http://127.0.0.2:${redirectPort}/z.json`, {
      signal: AbortSignal.timeout(5000),
      maxBytes: 1000,
      maxRedirects: 0,
      allowed: () => true,
    }),
    (e: unknown) => e instanceof FetchRefused && e.kind === 'redirects',
  );
  assert.equal(hits, 0);
});

test('the metadata fetcher records a loopback URI as failed, never fetched, and counts the refusal', async () => {
  hits = 0;
  const metrics = new MetricsRegistry();
  const fetcher = new MetadataFetcher(root, { timeoutMs: 2000, maxBytes: 10_000, metrics });
  try {
    const uri = `http://127.0.0.1:${port}/meta.json`;
    fetcher.want(uri);
    for (let i = 0; i < 500 && fetcher.get(uri)?.status !== 'failed'; i++) await new Promise((r) => setTimeout(r, 10));
    const rec = fetcher.get(uri)!;
    assert.equal(rec.status, 'failed');
    assert.equal(rec.json, undefined);
    assert.match(rec.error!, /127\.0\.0\.1 is not a public address/);
    assert.equal(rec.attempts, 1, 'refused for good: no retries');
    assert.equal(hits, 0);
    assert.match(metrics.render(), /zkgate_offchain_fetches_total\{outcome="private_address"\} 1\n/);
  } finally {
    fetcher.close();
  }
});
