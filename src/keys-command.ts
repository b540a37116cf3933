// `zkgate keys …`: list, build, import and export proving keys in the data dir.
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, resolveConfig } from './config.js';
import { exportKeys } from './keys-export.js';
import { UnknownShapeError } from './zk/shapes.js';
import { KeyStore, SHAPES, shapeByName, shutdownZk, solanaVerifyingKey } from './zk/index.js';
import { lightKeyFiles } from './zk/light/store.js';

export const KEYS_HELP = `Usage:
  zkgate keys list                               shape, status (ready/missing/stale), setup kind, sha256
  zkgate keys build [SHAPE…|--v1|--v2|--all]     build dev keys (default: --v1); compiles circuits as needed;
                                                 --all: every validity shape; batch shapes (the
                                                 forester's, e.g. batch_append_32_10) by name
  zkgate keys import SHAPE FILE.zkey             use a key from a snarkjs phase-2 ceremony for SHAPE
  zkgate keys import-light FILE|DIR…             import Light's proving-system files (*.key of Light's
                                                 prover 0.27, e.g. mainnet_inclusion_26_1.key): each
                                                 checked and test-proved, then used by --proving-keys
                                                 auto (the default) or light
  zkgate keys export-vk SHAPE [--format snarkjs|solana]
                                                 print the verification key (snarkjs JSON, or the byte
                                                 layout of Solana's groth16 verifiers)
  zkgate keys export SHAPE [SHAPE…] --out DIR [--witnesses N]
                                                 write into DIR, per shape: SHAPE.zkey, SHAPE.vk.json and
                                                 N sample witnesses (default 4, 1 to 64) as SHAPE.i.wtns
                                                 with their public signals SHAPE.i.public.json (snarkjs
                                                 formats), plus a manifest.json with the zkeys' sha256
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
          out: { type: 'string' },
          witnesses: { type: 'string' },
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
  const keys = new KeyStore(config.dataDir, config.devKeySeed, config.provingKeys);
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
      case 'import-light': {
        if (args.length === 0) throw new ConfigError('usage: zkgate keys import-light FILE|DIR…');
        const files = lightKeyFiles(args.map((a) => resolve(a)));
        if (files.length === 0) throw new ConfigError(`no *.key files in ${args.join(', ')}`);
        let imported = 0;
        for (const file of files) {
          const t0 = Date.now();
          const r = await keys.light.import(file, { threads: 2 });
          const s = ((Date.now() - t0) / 1000).toFixed(1);
          if (r.status === 'skipped') process.stdout.write(`${file}: skipped (${r.reason})\n`);
          else if (r.status === 'unchanged')
            process.stdout.write(`${r.entry.shape}: ${file} imported before, unchanged\n`);
          else {
            imported++;
            process.stdout.write(
              `${r.entry.shape}: imported ${file} in ${s} s (${r.entry.nConstraints} constraints, test proof verified), sha256 ${r.entry.sourceSha256}\n`,
            );
          }
        }
        process.stdout.write(`${imported} imported into ${keys.light.dir}\n`);
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
      case 'export': {
        // Every argument is checked before any key is built: a mistake should not cost a setup.
        if (args.length === 0)
          throw new ConfigError('usage: zkgate keys export SHAPE [SHAPE…] --out DIR [--witnesses N]');
        if (!values.out) throw new ConfigError('keys export needs --out DIR: the folder to write the export into');
        const witnesses = witnessCount(values.witnesses);
        const names = [...new Set(args.map(knownShape))];
        // The export's manifest.json would replace the store's own.
        if (samePath(values.out, keys.dir))
          throw new ConfigError(`--out must not be the key store's folder (${keys.dir})`);
        const started = Date.now();
        const manifest = await exportKeys(keys, names, values.out, { witnesses, progress: progressBar });
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
        for (const s of manifest.shapes) {
          process.stdout.write(`${s.shape}: ${s.zkey} (sha256 ${s.sha256}), ${s.witnesses.length} witness(es)\n`);
        }
        process.stdout.write(
          `exported ${names.length} shape(s) to ${values.out} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
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

function witnessCount(value: string | undefined): number {
  if (value === undefined) return 4;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 64))
    throw new ConfigError(`--witnesses must be a whole number from 1 to 64, got ${JSON.stringify(value)}`);
  return n;
}

/** The shape's name; an unknown one is a usage mistake here (exit 2), not a runtime failure. */
function knownShape(name: string): string {
  try {
    return shapeByName(name).name;
  } catch (e) {
    if (e instanceof UnknownShapeError) throw new ConfigError(e.message);
    throw e;
  }
}

/** Whether two paths name one folder, through symlinks where they exist. */
function samePath(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
}
