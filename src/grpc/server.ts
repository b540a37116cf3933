// The gRPC server of the prover role: the standard health service plus the services given (Prover,
// StateSync), which must be added before the server starts.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../obs/log.js';
import { HEALTH_PROTO, HEALTH_SERVICE, HealthService } from './health.js';
import { serviceDefinition } from './protos.js';
import { requireToken, serverCredentials, type TlsFiles } from './security.js';

export interface GrpcServer {
  readonly address: string;
  readonly port: number;
  readonly health: HealthService;
  /** Stops taking calls, lets running ones finish within `timeoutMs`, then cancels the rest. */
  close(timeoutMs: number): Promise<void>;
}

export interface GrpcServiceSpec {
  proto: string;
  service: string;
  implementation: grpc.UntypedServiceImplementation;
}

export interface GrpcServerSecurity {
  /** Serve TLS with this certificate and key. */
  tls?: TlsFiles;
  /** Every call of the given services must carry `authorization: Bearer <token>` (health stays open). */
  token?: string;
}

export async function startGrpcServer(
  host: string,
  port: number,
  log: Logger,
  services: readonly GrpcServiceSpec[] = [],
  security: GrpcServerSecurity = {},
): Promise<GrpcServer> {
  const credentials = serverCredentials(security.tls);
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  const health = new HealthService();
  server.addService(serviceDefinition(HEALTH_PROTO, HEALTH_SERVICE), health.implementation());
  for (const s of services)
    server.addService(
      serviceDefinition(s.proto, s.service),
      security.token ? requireToken(s.implementation, security.token) : s.implementation,
    );
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p)));
  });
  const address = `${bindHost}:${boundPort}`;
  log.debug('grpc server listening', { address, tls: !!security.tls, token: !!security.token });
  return {
    address,
    port: boundPort,
    health,
    close: (timeoutMs) =>
      new Promise<void>((resolve) => {
        health.setAllNotServing();
        health.endWatches();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, timeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
