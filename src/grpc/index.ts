export { startGrpcServer, type GrpcServer } from './server.js';
export { checkHealth, closeHealthClients, HealthService, type ServingStatus } from './health.js';
export {
  GRPC_TOKEN_FILE,
  localToken,
  proverChannel,
  serverToken,
  type ChannelSecurity,
  type TlsFiles,
} from './security.js';
