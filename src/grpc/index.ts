export { startGrpcServer, type GrpcServer } from './server.js';
export { checkHealth, closeHealthClients, HealthService, type ServingStatus } from './health.js';
export { proverChannel, type ChannelSecurity, type TlsFiles } from './security.js';
