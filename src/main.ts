#!/usr/bin/env node
// zkgate's command line: `zkgate start` runs the gateway until SIGTERM/SIGINT.
import { ConfigError, helpText, parseCommandLine, resolveConfig } from './config.js';
import { AppError } from './errors.js';
import type { Gateway } from './gateway.js';
import { createLogger, type Logger } from './obs/log.js';
import { VERSION } from './version.js';

/**
 * What a person starting zkgate reads on stderr. The key zkgate generated is shown whole on a
 * terminal only: where stderr goes to a file or a log collector, the banner names the file that
 * holds it instead.
 */
function banner(g: Gateway, dataDir: string, terminal: boolean): string {
  const k = g.keys;
  const own = k.ownKey === undefined ? undefined : terminal ? k.ownKey : `<the key in ${k.file}>`;
  const key = own ?? '<your key>';
  const keyLine =
    k.source === 'configured'
      ? `API keys   ${k.keys.keyIds.length} configured (ids ${k.keys.keyIds.join(', ')})`
      : `API key    ${own}  (${k.source === 'generated' ? 'generated now and stored in' : 'stored in'} ${k.file})`;
  const prove = g.provePort
    ? [`  /prove     http://${g.grpcAddress.replace(/:\d+$/, '')}:${g.provePort}/prove (Light prover API)`]
    : [];
  if (g.prover) prove.push(`  keys       ${g.prover.keys.describeSources()}`, ...keyBuilds(g));
  if (!g.rpcUrl)
    return [
      `zkgate ${VERSION} prover is running`,
      `  gRPC       ${g.grpcAddress}`,
      ...prove,
      `  data dir   ${dataDir}`,
      '',
    ].join('\n');
  // (A ShippedProgram has `holds`; main.ts keeps the ledger's modules out of its own imports.)
  const ledger = g.chain
    ? 'holds' in g.chain.lightSystem
      ? [`  ledger     embedded dev chain on Light's system program as shipped: it verifies Light's own keys only`]
      : [
          `  ledger     embedded dev chain: Light's programs here verify zkgate's own keys, so its proofs land here`,
          `             and nowhere else; for devnet/mainnet, follow the cluster with --cluster-rpc URL`,
        ]
    : g.cluster
      ? [
          `  cluster    following ${g.cluster.origin} into ${g.cluster.where}; other Solana`,
          `             methods and the websocket are the cluster's, forwarded`,
        ]
      : [];
  return [
    `zkgate ${VERSION} is running`,
    `  JSON-RPC   ${g.rpcUrl}?api-key=${key}`,
    ...(g.wsUrl ? [`  websocket  ${g.wsUrl}?api-key=${key}`] : []),
    `  gRPC       ${g.grpcAddress}${g.prover ? '' : `  (prover at ${g.proverAddress})`}`,
    ...prove,
    `  health     ${g.rpcUrl}health    metrics ${g.rpcUrl}metrics`,
    ...ledger,
    `  data dir   ${dataDir}`,
    `  ${keyLine}`,
    '',
  ].join('\n');
}

/** The key builds a start queued (a first start's): how many, and how long they are expected to take. */
function keyBuilds(g: Gateway): string[] {
  const builds = g.prover!.service.builds;
  const { building, queued } = builds.view();
  const n = building.length + queued.length;
  if (n === 0) return [];
  const s = Math.ceil(builds.plannedMs() / 1000);
  const time = s >= 120 ? `${Math.round(s / 60)} min` : `${s} s`;
  return [
    `  builds     ${n} proving key${n === 1 ? '' : 's'} to build in the background, about ${time} on this machine;`,
    `             a request that needs one waits for it (--key-build-wait-ms); /health lists them`,
  ];
}

function installProcessHandlers(log: Logger, gateway: Gateway): void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      log.warn('second signal: exiting without waiting', { signal });
      log.flush();
      process.exit(1);
    }
    log.info('shutting down', { signal });
    gateway.stop().then(
      (finished) => {
        log.info('stopped', { inFlightFinished: finished });
        log.flush();
        process.exit(0);
      },
      (e: Error) => {
        log.error('shutdown failed', { error: e.message });
        log.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled rejection', {
      error: String((reason as Error)?.message ?? reason),
      stack: (reason as Error)?.stack,
    });
  });
  process.on('uncaughtException', (e) => {
    log.error('uncaught exception', { error: e.message, stack: e.stack });
    log.flush();
    process.exit(1);
  });
}

// Each command loads only its own modules: `--help`, a bad flag or `forester status` answer without
// loading the gateway (a second of CPU for its hundreds of modules).
async function main(argv: string[]): Promise<number | undefined> {
  if (argv[0] === 'keys') return (await import('./keys-command.js')).keysCommand(argv.slice(1));
  if (argv[0] === 'demo') return (await import('./demo-command.js')).demoCommand(argv.slice(1));
  if (argv[0] === 'forester') return (await import('./forester-command.js')).foresterCommand(argv.slice(1));
  const cli = parseCommandLine(argv);
  if (cli.version) {
    process.stdout.write(`zkgate ${VERSION}\n`);
    return 0;
  }
  if (cli.help || cli.command === undefined) {
    process.stdout.write(helpText(VERSION));
    return cli.help ? 0 : 2;
  }
  if (cli.command !== 'start')
    throw new ConfigError(`unknown command ${JSON.stringify(cli.command)}; try: zkgate start`);
  const config = resolveConfig(cli.flags, process.env, cli.configFile ?? process.env.CONFIG);
  const log = createLogger(config.logLevel);
  const { startGateway } = await import('./gateway.js');
  const gateway = await startGateway({ config, log, version: VERSION });
  installProcessHandlers(log, gateway);
  log.info('started', {
    version: VERSION,
    rpcUrl: gateway.rpcUrl,
    grpcAddress: gateway.grpcAddress,
    proverAddress: gateway.proverAddress,
    dataDir: config.dataDir,
    keyIds: gateway.keys.keys.keyIds,
    keySource: gateway.keys.source,
  });
  process.stderr.write(banner(gateway, config.dataDir, process.stderr.isTTY === true));
  return undefined; // keep running
}

// `zkgate keys list | head` closes stdout early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof ConfigError) {
      process.stderr.write(`zkgate: ${e.message}\n`);
      process.exitCode = 2;
    } else if (e instanceof AppError) {
      process.stderr.write(`zkgate: ${e.message}\n`);
      process.exitCode = 1;
    } else {
      const err = e as NodeJS.ErrnoException;
      process.stderr.write(`zkgate: failed to start: ${err?.message ?? String(e)}\n`);
      process.exitCode = 1;
    }
    // Whatever was started in the background (a circuit preload's compiler and setup threads) must not
    // keep a failed command alive; stderr is synchronous for files and pipes, so nothing is lost.
    process.exit();
  },
);
