// Runs the real zkgate CLI as a child process: dist/main.js as installed (test/run.mjs builds it
// first), or src/main.ts through tsx when the test itself runs as TypeScript (./paths.ts).
import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { LOADER, sourceModule } from './paths.js';

const MAIN = sourceModule('main');

export interface CliProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  const child = spawn(process.execPath, [...LOADER, MAIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to its end: exit code and everything it printed. */
export async function runCliToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = runCli(args);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

export interface RunningGateway extends CliProcess {
  /** JSON-RPC URL including the key when the banner shows one. */
  url: string;
  base: string;
  key: string | undefined;
  grpc: string;
}

/**
 * No preloaded shapes, no keys built ahead and no forester: a fresh data dir would otherwise build proving keys in the
 * background (the forester's take minutes of a core) for the whole life of a gateway whose test is
 * about something else. A test that wants either passes it in its own arguments (the last wins).
 */
export const QUIET_START = ['--preload-circuits', '', '--build-at-start', 'none', '--forester', 'off'] as const;

/**
 * Starts `zkgate start` on ephemeral ports and waits for its banner: about 10 s on an idle machine
 * from a fresh data dir (the ledger's genesis, the batch circuits' verifying keys), several times
 * that beside the suite's proving on two cores.
 */
export async function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 90_000,
): Promise<RunningGateway> {
  const p = runCli(['start', '--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', ...QUIET_START, ...args], env);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = p.stderr().match(/JSON-RPC\s+(http:\/\/\S+\/)\?api-key=(<the key in (\S+)>|\S+)/);
    if (m && p.stderr().includes('data dir')) {
      // Not a terminal: the banner names the file that holds the generated key.
      const key = m[3] ? readFileSync(m[3], 'utf8').trim() : m[2] === '<your' ? undefined : m[2];
      const grpc = p.stderr().match(/gRPC\s+(\S+)/)![1]!;
      return { ...p, base: m[1]!, key, grpc, url: key ? `${m[1]}?api-key=${key}` : m[1]! };
    }
    if (p.child.exitCode !== null) throw new Error(`zkgate exited early (${p.child.exitCode}): ${p.stderr()}`);
    if (Date.now() > deadline) {
      p.child.kill('SIGKILL');
      throw new Error(`zkgate did not start in time: ${p.stderr()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
