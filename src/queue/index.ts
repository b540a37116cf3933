export {
  JobQueue,
  QueueRefusedError,
  redactRedisUrl,
  type ClaimedJob,
  type JobStatus,
  type QueueStats,
} from './job-queue.js';
export { HOST_KINDS, layoutOf, type QueueFormat } from './layout.js';
export { QueueProver } from './queue-prover.js';
export { QueueWorker, reap } from './worker.js';
export { HOST_INTAKE, hostJobProver } from './host-jobs.js';
export { QueueMonitor } from './monitor.js';
