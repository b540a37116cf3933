// Who may call the prover role's gRPC services, and how clients reach it: a bearer token checked
// on every Prover and StateSync call (the health service stays open, as probes expect), TLS from
// a certificate and key, and the client side of both. Split roles expose the port across hosts:
// without the token anyone reaching it could write leaves into the trees or prove without a key.
import * as grpc from '@grpc/grpc-js';
import { createHash, randomBytes, timingSafeEqual, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config.js';
import { loadOrCreateSecret, readSecret } from '../util/secret-file.js';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new ConfigError(`${flag}: cannot read ${file}: ${(e as Error).message}`);
  }
}

export function serverCredentials(tls: TlsFiles | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  const cert = readPem(tls.certFile, '--grpc-tls-cert');
  const key = readPem(tls.keyFile, '--grpc-tls-key');
  try {
    return grpc.ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }], false);
  } catch (e) {
    throw new ConfigError(`--grpc-tls-cert / --grpc-tls-key: ${(e as Error).message}`);
  }
}

/** Where a prover keeps the gRPC token it generated (when --grpc-token is not given). */
export const GRPC_TOKEN_FILE = 'grpc-token';

/**
 * The token this process's gRPC server requires: --grpc-token, else the one generated at the
 * first start into the data dir. There is always one, on loopback too: StateSync writes leaves
 * into the trees, and another local user must not do that past the API keys and rate limits.
 */
export async function serverToken(configured: string, dataDir: string): Promise<string> {
  if (configured) return configured;
  return (await loadOrCreateSecret(join(dataDir, GRPC_TOKEN_FILE), () => randomBytes(24).toString('base64url'))).value;
}

/** The token a command-line client of a local prover sends: --grpc-token, else the data dir's. */
export function localToken(configured: string, dataDir: string): string {
  return configured || readSecret(join(dataDir, GRPC_TOKEN_FILE)) || '';
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * The service with every call checked for `authorization: Bearer <token>` (compared as SHA-256
 * digests in constant time); a missing or wrong token gets UNAUTHENTICATED and reaches nothing.
 */
export function requireToken(
  impl: grpc.UntypedServiceImplementation,
  token: string,
): grpc.UntypedServiceImplementation {
  const expected = digest(`Bearer ${token}`);
  const out: grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(impl)) {
    const unary = handler as (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => void;
    out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const given = call.metadata.get('authorization')[0];
      if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected)) {
        callback({
          code: grpc.status.UNAUTHENTICATED,
          details: given === undefined ? 'missing token: send authorization: Bearer <token>' : 'wrong token',
        });
        return;
      }
      unary(call, callback);
    }) as grpc.UntypedHandleCall;
  }
  return out;
}

/** How a client reaches a prover's gRPC port: credentials, channel options and the token it sends. */
export interface ChannelSecurity {
  credentials: grpc.ChannelCredentials;
  options: grpc.ChannelOptions;
  token?: string;
}

/** The name a certificate is issued to: its first DNS subject alternative name, else its CN. */
function certificateName(pem: Buffer): string | undefined {
  const cert = new X509Certificate(pem);
  const dns = cert.subjectAltName?.split(/,\s*/).find((n) => n.startsWith('DNS:'));
  if (dns) return dns.slice(4);
  return /CN=([^\n,]+)/.exec(cert.subject)?.[1];
}

/**
 * A client of a remote prover: TLS when a CA is given (the server's name checked against the
 * address), plaintext otherwise; the token when given.
 */
export function remoteChannel(opts: { caFile?: string; token?: string }): ChannelSecurity {
  return {
    credentials: opts.caFile
      ? grpc.credentials.createSsl(readPem(opts.caFile, '--grpc-tls-ca'))
      : grpc.credentials.createInsecure(),
    options: {},
    ...(opts.token ? { token: opts.token } : {}),
  };
}

/**
 * A client of this process's own gRPC server (role all): it connects to a loopback address, so
 * with TLS it trusts the CA given (or the server's own certificate) and checks the name the
 * certificate carries rather than the address.
 */
export function ownChannel(opts: { tls?: TlsFiles; caFile?: string; token?: string }): ChannelSecurity {
  if (!opts.tls) return remoteChannel({ ...(opts.token ? { token: opts.token } : {}) });
  const cert = readPem(opts.tls.certFile, '--grpc-tls-cert');
  const name = certificateName(cert);
  return {
    credentials: grpc.credentials.createSsl(opts.caFile ? readPem(opts.caFile, '--grpc-tls-ca') : cert),
    options: name ? { 'grpc.ssl_target_name_override': name, 'grpc.default_authority': name } : {},
    ...(opts.token ? { token: opts.token } : {}),
  };
}

/** The settings that say how to reach the prover (a Config has them). */
export interface ProverReach {
  proverUrl: string;
  proverToken: string;
  grpcToken: string;
  grpcTlsCert: string;
  grpcTlsKey: string;
  grpcTlsCa: string;
}

/**
 * How this process's clients reach the prover: a remote one (--prover-url) with --prover-token
 * and TLS when --grpc-tls-ca is set; its own with its own token and certificate.
 */
export function proverChannel(c: ProverReach): ChannelSecurity {
  if (c.proverUrl) return remoteChannel({ caFile: c.grpcTlsCa, token: c.proverToken });
  return ownChannel({
    ...(c.grpcTlsCert ? { tls: { certFile: c.grpcTlsCert, keyFile: c.grpcTlsKey } } : {}),
    caFile: c.grpcTlsCa,
    token: c.grpcToken,
  });
}

/** Per-call metadata carrying the token, when there is one. */
export function callMetadata(token: string | undefined): grpc.Metadata {
  const m = new grpc.Metadata();
  if (token) m.set('authorization', `Bearer ${token}`);
  return m;
}
