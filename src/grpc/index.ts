export { startGrpcServer, type GrpcServer } from './server.js';
export { checkHealth, closeHealthClients, HealthService, type ServingStatus } from './health.js';
