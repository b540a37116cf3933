// grpc.health.v1.Health: the server side (statuses per service, Check and Watch) and a client check.
import * as grpc from '@grpc/grpc-js';
import type { ChannelSecurity } from './security.js';
import { clientConstructor } from './protos.js';

export const HEALTH_PROTO = 'grpc/health/v1/health.proto';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

interface CheckRequest {
  service: string;
}
interface CheckResponse {
  status: ServingStatus;
}

export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Map<string, Set<grpc.ServerWritableStream<CheckRequest, CheckResponse>>>();

  /** The empty service name stands for the server as a whole. */
  constructor(initial: Record<string, ServingStatus> = { '': 'SERVING' }) {
    for (const [name, status] of Object.entries(initial)) this.statuses.set(name, status);
  }

  set(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const call of this.watchers.get(service) ?? []) call.write({ status });
  }

  /** Every service stops serving (graceful shutdown) and watchers are told. */
  setAllNotServing(): void {
    for (const name of this.statuses.keys()) this.set(name, 'NOT_SERVING');
  }

  implementation(): grpc.UntypedServiceImplementation {
    return {
      Check: (call: grpc.ServerUnaryCall<CheckRequest, CheckResponse>, cb: grpc.sendUnaryData<CheckResponse>) => {
        const status = this.statuses.get(call.request.service);
        if (status === undefined)
          cb({ code: grpc.status.NOT_FOUND, details: `unknown service ${JSON.stringify(call.request.service)}` });
        else cb(null, { status });
      },
      Watch: (call: grpc.ServerWritableStream<CheckRequest, CheckResponse>) => {
        const service = call.request.service;
        let set = this.watchers.get(service);
        if (!set) this.watchers.set(service, (set = new Set()));
        set.add(call);
        call.write({ status: this.statuses.get(service) ?? 'SERVICE_UNKNOWN' });
        // The last watcher of a name takes its entry along: names come from unauthenticated callers.
        const leave = () => {
          set!.delete(call);
          if (set!.size === 0 && this.watchers.get(service) === set) this.watchers.delete(service);
        };
        call.on('cancelled', leave);
        call.on('close', leave);
      },
    };
  }

  /** Names with an open Watch stream (for tests). */
  watchedNames(): number {
    return this.watchers.size;
  }

  /** Ends open Watch streams so the server can stop without waiting for them. */
  endWatches(): void {
    for (const set of this.watchers.values()) for (const call of set) call.end();
    this.watchers.clear();
  }
}

type HealthClient = grpc.Client & {
  Check(
    req: CheckRequest,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: CheckResponse) => void,
  ): void;
};

const clients = new Map<string, HealthClient>();

/** Asks the gRPC server at `address` (host:port) how `service` is; rejects with the transport's reason. */
export function checkHealth(
  address: string,
  service = '',
  timeoutMs = 1000,
  security?: ChannelSecurity,
): Promise<ServingStatus> {
  // The health service needs no token, but a TLS server needs a TLS client.
  const cacheKey = `${address} ${security ? 'secured' : 'plain'}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const Ctor = clientConstructor(HEALTH_PROTO, HEALTH_SERVICE);
    client = new Ctor(
      address,
      security?.credentials ?? grpc.credentials.createInsecure(),
      security?.options ?? {},
    ) as unknown as HealthClient;
    clients.set(cacheKey, client);
  }
  return new Promise((resolve, reject) => {
    client!.Check({ service }, { deadline: Date.now() + timeoutMs }, (err, res) => {
      if (err) reject(new Error(`gRPC health check of ${address} failed: ${err.details || err.message}`));
      else resolve(res!.status);
    });
  });
}

export function closeHealthClients(): void {
  for (const c of clients.values()) c.close();
  clients.clear();
}
