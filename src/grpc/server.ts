// The gRPC server of the prover role. Issue-by-issue it gains services (Prover, StateSync); today
// it serves the standard health service.
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../obs/log.js';
import { HEALTH_PROTO, HEALTH_SERVICE, HealthService } from './health.js';
import { serviceDefinition } from './protos.js';

export interface GrpcServer {
  readonly address: string;
  readonly port: number;
  readonly health: HealthService;
  /** Stops taking calls, lets running ones finish within `timeoutMs`, then cancels the rest. */
  close(timeoutMs: number): Promise<void>;
}

export async function startGrpcServer(host: string, port: number, log: Logger): Promise<GrpcServer> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  const health = new HealthService();
  server.addService(serviceDefinition(HEALTH_PROTO, HEALTH_SERVICE), health.implementation());
  const bindHost = host.includes(':') ? `[${host}]` : host;
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  const address = `${bindHost}:${boundPort}`;
  log.debug('grpc server listening', { address });
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
