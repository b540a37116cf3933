// Loads the iden3 libraries (ffjavascript, circomlibjs, snarkjs) inside worker threads.
// They depend on the `web-worker` package, which on import decides that any non-main thread is
// one of its own web-worker shims and crashes reading workerData it never got. Presenting the
// thread as the main one while the libraries load avoids that; nothing else reads the flag then.
import threads from 'node:worker_threads';

export async function importInWorker<T>(load: () => Promise<T>): Promise<T> {
  if (threads.isMainThread) return load();
  const desc = Object.getOwnPropertyDescriptor(threads, 'isMainThread')!;
  Object.defineProperty(threads, 'isMainThread', { ...desc, value: true });
  try {
    return await load();
  } finally {
    Object.defineProperty(threads, 'isMainThread', desc);
  }
}
