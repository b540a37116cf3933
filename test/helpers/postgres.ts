// A real Postgres server for a test: Debian's postgresql (initdb + pg_ctl) on a free loopback port,
// in a temporary directory, trusting local connections. Postgres refuses to run as root, so as
// root the directory is handed to the `postgres` user the package creates and the tools run as it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
// @ts-expect-error: a plain ES module of the test runner's, without types (the path holds compiled too)
import { postgresBin } from '../../test/ensure-postgres.mjs';
import { tempDir } from './gateway.js';
import { freePort } from './redis.js';

export interface TestPostgres {
  /** postgres://zkgate@127.0.0.1:PORT/zkgate */
  url: string;
  port: number;
  /** Stops the server at once (as a crash would) and starts it again on the same port. */
  stop(): void;
  start(): void;
  /**
   * Freezes the server and every backend (SIGSTOP): connections stay open and nothing answers,
   * as a hung host or a cut network; thaw() lets them go on.
   */
  freeze(): void;
  thaw(): void;
  close(): void;
}

/** `durable`: fsync on, as an operator's server (benchmarks); tests run without it. */
export async function startPostgres(opts: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = postgresBin() as string | undefined;
  if (bin === undefined) throw new Error('postgresql is missing: npm test installs it (apt-get install postgresql)');
  const dir = tempDir('zkgate-pg-');
  const data = join(dir, 'data');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]) => {
    const cmd = asRoot ? 'runuser' : `${bin}${tool}`;
    const full = asRoot ? ['-u', 'postgres', '--', `${bin}${tool}`, ...args] : args;
    const r = spawnSync(cmd, full, { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${r.stderr || r.stdout || r.error}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'zkgate', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${opts.durable ? 'on' : 'off'} -c max_connections=50`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'zkgate', 'zkgate']);
  let closed = false;
  const signal = (sig: 'STOP' | 'CONT') => {
    const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    const children = spawnSync('pgrep', ['-P', postmaster], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    // The postmaster first on STOP (no new backend starts), last on CONT.
    const pids = sig === 'STOP' ? [postmaster, ...children] : [...children, postmaster];
    for (const pid of pids) process.kill(Number(pid), `SIG${sig}`);
  };
  return {
    url: `postgres://zkgate@127.0.0.1:${port}/zkgate`,
    port,
    stop,
    start,
    freeze: () => signal('STOP'),
    thaw: () => signal('CONT'),
    close: () => {
      if (closed) return;
      closed = true;
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
