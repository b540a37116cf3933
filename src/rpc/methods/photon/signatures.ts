// Photon's signature lists: the transactions that created or spent an account, touched an address,
// an owner's or a token owner's accounts, and the latest ones. Newest first; cursor = base58(slot
// u64 LE ‖ signature) of the last item.
import { decodeBase58 } from '../../../zk/base58.js';
import type { SigIndex } from '../../../compression/index.js';
import type { Backends, CompressionIndex } from '../backends.js';
import type { MethodDef } from '../types.js';
import { photonMethod, withContext } from './define.js';
import { notFound, validation } from './errors.js';
import { signatureCursor, signatureJson, signatureWithErrorJson } from './json.js';
import { field, hash, limit, pubkey, string, struct } from './params.js';

function parseCursor(cursor: string | undefined): { slot: bigint; signature: Uint8Array } | undefined {
  if (cursor === undefined) return undefined;
  let b: Buffer;
  try {
    b = Buffer.from(decodeBase58(cursor));
  } catch {
    throw validation(`Invalid cursor ${cursor}`);
  }
  if (b.length !== 72) throw validation(`Invalid cursor length. Expected 72. Received ${b.length}.`);
  return { slot: b.readBigUInt64LE(0), signature: b.subarray(8) };
}

function page(
  index: CompressionIndex,
  list: Parameters<CompressionIndex['store']['signatures']>[0],
  p: { limit?: number | undefined; cursor?: string | undefined },
) {
  const max = p.limit ?? 1000;
  const before = parseCursor(p.cursor);
  const items = index.store.signatures(list, { limit: max, ...(before ? { before } : {}) });
  return { items, cursor: signatureCursor(items, max) };
}

export function signatureMethods(backends: Backends): MethodDef[] {
  const m = photonMethod;
  const pageFields = { limit: field(limit, { default: true }), cursor: field(string, { default: true }) };
  const byAddress = struct(
    'GetCompressionSignaturesForAddressRequest',
    { address: field(pubkey, { required: true }), ...pageFields },
    true,
  );
  const byOwner = (name: string) => struct(name, { owner: field(pubkey, { required: true }), ...pageFields }, true);
  const list = (ix: CompressionIndex, index: SigIndex, key: Uint8Array, p: { limit?: number; cursor?: string }) => {
    const r = page(ix, { index, key }, p);
    return withContext(ix, { items: r.items.map(signatureJson), cursor: r.cursor });
  };
  const latest = struct(
    'GetLatestSignaturesRequest',
    { limit: field(limit, { default: true }), cursor: field(string, { default: true }) },
    true,
  );
  return [
    m(
      backends,
      'getCompressionSignaturesForAccount',
      struct('HashRequest', { hash: field(hash, { required: true }) }, false),
      (ix, p) => {
        const items = ix.store.signatures({ index: 'account', key: p.hash }, { limit: 1000 });
        if (items.length === 0) throw notFound('Account not found');
        return withContext(ix, { items: items.map(signatureJson) });
      },
    ),
    m(backends, 'getCompressionSignaturesForAddress', byAddress, (ix, p) => list(ix, 'address', p.address, p)),
    m(backends, 'getCompressionSignaturesForOwner', byOwner('GetCompressionSignaturesForOwnerRequest'), (ix, p) =>
      list(ix, 'owner', p.owner, p),
    ),
    m(
      backends,
      'getCompressionSignaturesForTokenOwner',
      byOwner('GetCompressionSignaturesForTokenOwnerRequest'),
      (ix, p) => list(ix, 'tokenOwner', p.owner, p),
    ),
    m(backends, 'getLatestCompressionSignatures', latest, (ix, p) => {
      const r = page(ix, 'compression', p);
      return withContext(ix, { items: r.items.map(signatureJson), cursor: r.cursor });
    }),
    // Photon answers this one without a cursor, though it takes one.
    m(backends, 'getLatestNonVotingSignatures', latest, (ix, p) =>
      withContext(ix, { items: page(ix, 'all', p).items.map(signatureWithErrorJson) }),
    ),
  ];
}
