// Loads the .proto files of proto/ once; every gRPC server and client in zkgate goes through here.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';

/** proto/ sits next to src/ and dist/, so the same relative path works from sources and build. */
export const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));

const LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
  includeDirs: [PROTO_DIR],
};

const cache = new Map<string, grpc.GrpcObject>();

export function loadProto(file: string): grpc.GrpcObject {
  let pkg = cache.get(file);
  if (!pkg) {
    pkg = grpc.loadPackageDefinition(protoLoader.loadSync(file, LOADER_OPTIONS));
    cache.set(file, pkg);
  }
  return pkg;
}

/** The generated client class of a service, e.g. clientConstructor('grpc/health/v1/health.proto', 'grpc.health.v1.Health'). */
export function clientConstructor(file: string, path: string): grpc.ServiceClientConstructor {
  let node: unknown = loadProto(file);
  for (const part of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  const ctor = node as grpc.ServiceClientConstructor | undefined;
  if (!ctor?.service) throw new Error(`gRPC service ${path} not found in ${file}`);
  return ctor;
}

export const serviceDefinition = (file: string, path: string): grpc.ServiceDefinition =>
  clientConstructor(file, path).service;
