// `zkgate keys …`: list, build, import and export proving keys in the data dir.
import { parseArgs } from 'node:util';
import { ConfigError, resolveConfig } from './config.js';
import { KeyStore, SHAPES, shapeByName, shutdownZk, solanaVerifyingKey } from './zk/index.js';

export const KEYS_HELP = `Usage:
  zkgate keys list                               shape, status (ready/missing/stale), setup kind, sha256
  zkgate keys build [SHAPE…|--v1|--v2|--all]     build dev keys (default: --v1); compiles circuits as needed
  zkgate keys import SHAPE FILE.zkey             use a key from a snarkjs phase-2 ceremony for SHAPE
  zkgate keys export-vk SHAPE [--format snarkjs|solana]
                                                 print the verification key (snarkjs JSON, or the byte
                                                 layout of Solana's groth16 verifiers)
Options: --data-dir, --config, --dev-key-seed (as for zkgate start).
Dev keys come from a public seed: anyone can forge proofs for them. Import ceremony keys for production.
`;

function progressBar(shape: string, index: number, total: number) {
  const tty = process.stderr.isTTY;
  let last = '';
  return (step: string, done: number, of: number) => {
    const frac = of > 0 ? done / of : 0;
    const width = 20;
    const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '-');
    const line = `[${index}/${total}] ${shape.padEnd(28)} [${bar}] ${step}`;
    if (line === last) return;
    last = line;
    process.stderr.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
  };
}

export async function keysCommand(argv: string[]): Promise<number> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          'data-dir': { type: 'string' },
          config: { type: 'string' },
          'dev-key-seed': { type: 'string' },
          v1: { type: 'boolean' },
          v2: { type: 'boolean' },
          all: { type: 'boolean' },
          format: { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (e) {
      throw new ConfigError((e as Error).message.split('\n')[0]!);
    }
  })();
  const [sub, ...args] = positionals;
  if (values.help || !sub) {
    process.stdout.write(KEYS_HELP);
    return values.help ? 0 : 2;
  }
  const flags: Record<string, unknown> = {};
  if (values['data-dir']) flags.dataDir = values['data-dir'];
  if (values['dev-key-seed']) flags.devKeySeed = values['dev-key-seed'];
  const config = resolveConfig(flags, process.env, values.config ?? process.env.CONFIG);
  const keys = new KeyStore(config.dataDir, config.devKeySeed);
  try {
    switch (sub) {
      case 'list': {
        const rows = keys.list();
        const w = Math.max(...rows.map((r) => r.shape.length));
        process.stdout.write(`${'shape'.padEnd(w)}  status   setup     sha256\n`);
        for (const r of rows) {
          process.stdout.write(
            `${r.shape.padEnd(w)}  ${r.status.padEnd(7)}  ${(r.setup ?? '-').padEnd(8)}  ${r.sha256 ?? '-'}\n`,
          );
        }
        return 0;
      }
      case 'build': {
        const names = values.all
          ? SHAPES.map((s) => s.name)
          : args.length > 0
            ? args.map((a) => shapeByName(a).name)
            : SHAPES.filter((s) => (values.v2 ? s.version === 2 : s.version === 1) || (values.v1 && values.v2)).map(
                (s) => s.name,
              );
        const started = Date.now();
        for (const [i, name] of names.entries()) {
          const t0 = Date.now();
          const key = await keys.build(name, progressBar(name, i + 1, names.length));
          process.stderr.write(`${process.stderr.isTTY ? '\r\x1b[K' : ''}`);
          process.stdout.write(
            `${name}: dev key built in ${((Date.now() - t0) / 1000).toFixed(1)} s, sha256 ${key.entry.sha256}\n`,
          );
        }
        process.stdout.write(
          `${names.length} key(s) in ${((Date.now() - started) / 1000).toFixed(1)} s (INSECURE dev keys: see README)\n`,
        );
        return 0;
      }
      case 'import': {
        const [shape, file] = args;
        if (!shape || !file) throw new ConfigError('usage: zkgate keys import SHAPE FILE.zkey');
        const entry = await keys.import(shape, file);
        process.stdout.write(`${entry.shape}: imported ${file}, sha256 ${entry.sha256}\n`);
        return 0;
      }
      case 'export-vk': {
        const [shape] = args;
        if (!shape) throw new ConfigError('usage: zkgate keys export-vk SHAPE [--format snarkjs|solana]');
        const format = values.format ?? 'snarkjs';
        if (format !== 'snarkjs' && format !== 'solana')
          throw new ConfigError(`--format must be snarkjs or solana, got ${JSON.stringify(format)}`);
        const vk = (await keys.ensure(shape, progressBar(shape, 1, 1))).vk;
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
        process.stdout.write(
          JSON.stringify(format === 'solana' ? solanaVerifyingKey(vk) : vk, null, format === 'solana' ? 0 : 1) + '\n',
        );
        return 0;
      }
      default:
        throw new ConfigError(`unknown keys command ${JSON.stringify(sub)}; try: zkgate keys --help`);
    }
  } finally {
    await shutdownZk();
  }
}
