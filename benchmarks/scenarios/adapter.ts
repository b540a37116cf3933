// Adapter overhead: getHealth through the whole adapter (auth, envelope, rate limiter, info-level
// logging to a file) against a bare node:http server returning a constant body, in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure, printTable } from '../lib/load.js';
import { startProcess } from '../lib/processes.js';
import { ROOT as root, BENCH_KEY as KEY } from '../lib/paths.js';

const CONNECTIONS = 50;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);

export const adapterScenario = {
  name: 'adapter',
  describe: `getHealth through the full adapter vs a bare node:http server (autocannon, ${CONNECTIONS} connections, ${DURATION} s, same machine)`,
  async run(): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-bench-'));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' });
    try {
      const bare = await startProcess([join(root, 'benchmarks/servers/bare-http.mjs')], /listening (http:\S+)/);
      const baseline = await measure('bare node:http, constant JSON', {
        url: bare.match[1]!,
        body,
        connections: CONNECTIONS,
        durationSec: DURATION,
      });
      await bare.stop();

      // The rate limiter stays on (its cost is part of the path) with a limit the load cannot reach.
      const gw = await startProcess(
        [
          join(root, 'dist/main.js'),
          'start',
          '--rpc-port',
          '0',
          '--grpc-port',
          '0',
          '--prove-port',
          '0',
          '--data-dir',
          join(dir, 'data'),
          '--api-keys',
          KEY,
          '--rate-limit',
          '100000000',
          '--rate-limit-burst',
          '100000000',
          '--log-level',
          'info',
          '--preload-circuits',
          '',
        ],
        /JSON-RPC\s+(http:\S+)\?api-key=/,
        { stdoutFile: join(dir, 'gateway.log') },
      );
      const adapter = await measure('zkgate getHealth (auth + envelope + log)', {
        url: `${gw.match[1]!}?api-key=${KEY}`,
        body,
        connections: CONNECTIONS,
        durationSec: DURATION,
      });
      await gw.stop();

      printTable([baseline, adapter]);
      console.log(`adapter/bare throughput ratio: ${(adapter.rps / baseline.rps).toFixed(3)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
