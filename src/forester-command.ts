// `zkgate forester status`: asks a running gateway (zkgate_getForesterStatus) and prints each
// Light queue's fill, the batches proved, sent and failed, batch proof times and the last failure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, flagName, OPTIONS, resolveConfig } from './config.js';
import { AppError } from './errors.js';
import { API_KEY_FILE } from './rpc/api-keys.js';

export const FORESTER_HELP = `Usage:
  zkgate forester status [--json]   the forester of a running gateway: queue fill levels, batches
                                    pending, proved, sent and failed, batch proof times, last failure
Options: as for zkgate start (--host, --rpc-port, --data-dir, --api-keys) to find the gateway.
`;

class ForesterCommandError extends AppError {
  readonly kind = 'forester_command';
}

interface StatusJson {
  enabled: boolean;
  authority: string | null;
  activeEpoch: string | null;
  queues: { tree: string; queue: string; queued: number; capacity: number; fill: number; readyBatches: number }[];
  batches: { proved: number; sent: number; failed: number; stale: number } | null;
  proofs: { circuit: string; count: number; lastMs: number; meanMs: number }[];
  lastError: string | null;
}

export function formatForesterStatus(s: StatusJson): string {
  const lines = [
    s.enabled
      ? `forester   on, key ${s.authority}, epoch ${s.activeEpoch ?? 'none yet (waiting for its registration to be active)'}`
      : 'forester   off (start the gateway with --forester on to drain the queues)',
  ];
  if (s.batches)
    lines.push(
      `batches    ${s.batches.proved} proved, ${s.batches.sent} sent, ${s.batches.failed} failed attempts, ${s.batches.stale} dropped as stale`,
    );
  for (const p of s.proofs)
    lines.push(`proof time ${p.circuit}: last ${p.lastMs} ms, mean ${p.meanMs} ms over ${p.count}`);
  lines.push(
    'queues',
    '  tree                                          queue    queued/capacity  fill   full zkp batches',
  );
  for (const q of s.queues)
    lines.push(
      `  ${q.tree.padEnd(45)} ${q.queue.padEnd(8)} ${`${q.queued}/${q.capacity}`.padStart(15)}  ${`${Math.round(q.fill * 100)} %`.padStart(5)}  ${q.readyBatches}`,
    );
  if (s.lastError) lines.push(`last error ${s.lastError}`);
  return lines.join('\n') + '\n';
}

export async function foresterCommand(argv: string[]): Promise<number> {
  const options: Record<string, { type: 'string' | 'boolean' }> = {
    json: { type: 'boolean' },
    help: { type: 'boolean' },
    config: { type: 'string' },
  };
  for (const o of OPTIONS) options[flagName(o.key)] = { type: 'string' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new ConfigError((e as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(FORESTER_HELP);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'status')
    throw new ConfigError(`expected: zkgate forester status; got: zkgate forester ${positionals.join(' ')}`.trimEnd());
  const flags: Record<string, unknown> = {};
  for (const o of OPTIONS) if (values[flagName(o.key)] !== undefined) flags[o.key] = values[flagName(o.key)];
  const config = resolveConfig(flags, process.env, (values.config as string | undefined) ?? process.env.CONFIG);
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
  let key = config.apiKeys[0];
  if (!key) {
    try {
      key = readFileSync(join(config.dataDir, API_KEY_FILE), 'utf8').trim();
    } catch {
      throw new ConfigError(`no API key: pass --api-keys, or --data-dir of the gateway (its ${API_KEY_FILE})`);
    }
  }
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.rpcPort}/?api-key=${encodeURIComponent(key)}`;
  let body: { result?: StatusJson; error?: { code: number; message: string } };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'zkgate_getForesterStatus' }),
      signal: AbortSignal.timeout(10_000),
    });
    body = (await res.json()) as typeof body;
  } catch (e) {
    throw new ForesterCommandError(`cannot reach the gateway at ${host}:${config.rpcPort}: ${(e as Error).message}`);
  }
  if (!body.result) throw new ForesterCommandError(`the gateway answered: ${body.error?.message ?? 'no result'}`);
  process.stdout.write(values.json ? JSON.stringify(body.result, null, 2) + '\n' : formatForesterStatus(body.result));
  return 0;
}
