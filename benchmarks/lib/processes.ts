// Starts servers under test as child processes, so the load generator in this process and the
// server each get their own core, and always stops them.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';

export interface Started {
  child: ChildProcess;
  /** The first match of `ready` in the child's stderr+stdout (e.g. its URL). */
  match: RegExpMatchArray;
  stop(): Promise<void>;
}

export function startProcess(
  args: string[],
  ready: RegExp,
  opts: { stdoutFile?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; executable?: string } = {},
): Promise<Started> {
  const stdout = opts.stdoutFile ? openSync(opts.stdoutFile, 'a') : 'pipe';
  const child = spawn(opts.executable ?? process.execPath, args, {
    stdio: ['ignore', stdout, 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not become ready in time; output: ${seen}`));
    }, opts.timeoutMs ?? 20_000);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const match = seen.match(ready);
      if (!match) return;
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.stdout?.off('data', onData);
      child.stderr?.resume();
      child.stdout?.resume();
      resolve({
        child,
        match,
        stop: () =>
          new Promise<void>((res) => {
            if (child.exitCode !== null) return res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${code} before ready; output: ${seen}`));
    });
  });
}

/** CPU seconds a process has used so far, all its threads (utime + stime, /proc/PID/stat, in 1/100 s). */
export function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
