// A real Redis server for a test: Debian's redis-server on a free loopback port, in a temporary
// directory, with its append-only file on so a restart keeps what it held (as an operator's would).
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tempDir } from './gateway.js';

export interface TestRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM: it writes what it holds) and starts it again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A free loopback port (for a test's own server). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** `args`: more redis-server options (e.g. `--cluster-enabled yes`). */
export async function startRedis(args: readonly string[] = []): Promise<TestRedis> {
  const dir = tempDir('zkgate-redis-');
  const port = await freePort();
  let proc: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const p = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', ...args],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      proc = p;
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) {
          p.stdout!.off('data', onData);
          p.stdout!.resume();
          resolve();
        }
      };
      p.stdout!.on('data', onData);
      p.stderr!.resume();
      p.once('error', (e) =>
        reject(
          new Error(`redis-server could not start (${e.message}): npm test installs it (apt-get install redis-server)`),
        ),
      );
      p.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
    });
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
    });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
