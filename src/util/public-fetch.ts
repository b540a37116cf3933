// GET of a URL a caller chose (an asset's metadata `uri`), reaching public addresses only: the
// host is resolved here and every address it resolves to must be public (public-address.ts), and
// the connection goes to the address that was checked, so a name cannot resolve to a public
// address for the check and a private one for the connection. Redirects are followed by hand, each
// hop checked the same way, at most `maxRedirects`; the body is capped at `maxBytes`.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './public-address.js';

/** Why a fetch was refused or failed; `kind` for metrics, `permanent` where retrying cannot help. */
export class FetchRefused extends Error {
  constructor(
    message: string,
    readonly kind: 'private_address' | 'too_large' | 'redirects' | 'bad_url',
    readonly permanent = true,
  ) {
    super(message);
  }
}

export interface PublicFetchOptions {
  signal: AbortSignal;
  maxBytes: number;
  maxRedirects: number;
  /** Which resolved addresses may be connected to: public ones (the default), or any (a dev chain serving its own metadata). */
  allowed?: (address: string) => boolean;
}

export interface PublicFetchResult {
  status: number;
  body: Buffer;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** dns.lookup, every answer checked: an error naming the host when one is not allowed. */
function guardedLookup(allowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((a) => !allowed(a.address));
      if (refused)
        return callback(
          new FetchRefused(`${hostname} resolves to ${refused.address}, not a public address`, 'private_address'),
          '',
          0,
        );
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}

function checkUrl(url: URL, allowed: (address: string) => boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchRefused(`${url.protocol} is not http or https`, 'bad_url');
  // An address literal (the URL parser has already turned 127.1 and 2130706433 into 127.0.0.1)
  // is not looked up: it is checked here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !allowed(host)) throw new FetchRefused(`${host} is not a public address`, 'private_address');
}

function get(url: URL, o: PublicFetchOptions, allowed: (address: string) => boolean): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(url, { signal: o.signal, lookup: guardedLookup(allowed) }, resolve);
    req.on('error', reject);
  });
}

/** The status and body of `uri`, following up to `maxRedirects` redirects, public addresses only. */
export async function fetchPublic(uri: string, o: PublicFetchOptions): Promise<PublicFetchResult> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new FetchRefused('not a URL', 'bad_url');
  }
  const allowed = o.allowed ?? isPublicAddress;
  for (let hop = 0; ; hop++) {
    checkUrl(url, allowed);
    const res = await get(url, o, allowed);
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode ?? 0) && location) {
      res.resume();
      if (hop >= o.maxRedirects) throw new FetchRefused(`more than ${o.maxRedirects} redirects`, 'redirects');
      try {
        url = new URL(location, url);
      } catch {
        throw new FetchRefused(`redirect to ${location}, not a URL`, 'bad_url');
      }
      continue;
    }
    const declared = Number(res.headers['content-length'] ?? 0);
    if (declared > o.maxBytes) {
      res.destroy();
      throw new FetchRefused(`larger than ${o.maxBytes} bytes`, 'too_large');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > o.maxBytes) {
        res.destroy();
        throw new FetchRefused(`larger than ${o.maxBytes} bytes`, 'too_large');
      }
      chunks.push(chunk);
    }
    return { status: res.statusCode ?? 0, body: Buffer.concat(chunks) };
  }
}
