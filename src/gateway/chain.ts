// The embedded chain's assembly: the ledger with Light's localnet and the configured fixtures, the
// indexes its transactions and accounts feed (compression, assets, asset signatures), and the
// verifying keys installed into its Light programs as proving keys appear.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import {
  bootstrapLocalnetTrees,
  checkLightPackage,
  genesisAccountsDir,
  LIGHT_IDS,
  ACCOUNT_COMPRESSION_PROGRAM_FILE,
  accountCompressionProgram,
  LIGHT_SYSTEM_PROGRAM_FILE,
  Ledger,
  lightLocalnet,
  lightSystemProgram,
  readAccountDir,
  readProgramSpec,
  LIGHT_SYSTEM_PROGRAM_ID,
  ShippedProgram,
  type ProgramFixture,
  type VerifierProgram,
} from '../ledger/index.js';
import type { Keypair } from '../ledger/tx-build.js';
import { writeFileAtomicSync } from '../util/atomic-file.js';
import { alignRegistryEpochs, foresterGenesisAccounts, foresterKeypair, type Forester } from '../forester/index.js';
import { openCompression, type Compression } from '../compression/index.js';
import {
  BATCH_SHAPES,
  decodeBase58,
  encodeBase58,
  loadPoseidon,
  SHAPES,
  solanaVerifyingKeyBytes,
  type SnarkjsVerificationKey,
} from '../zk/index.js';
import { compressProof, type CompressedProof } from '../zk/proof-format.js';
import { AssetIndex, AssetSignatures, MetadataFetcher } from '../das/index.js';
import type { QueueProver } from '../queue/index.js';
import type { Logger } from '../obs/log.js';
import type { MetricsRegistry } from '../obs/metrics.js';
import type { CompressionIndex } from '../rpc/index.js';
import { transactionJson } from '../rpc/methods/transaction-json.js';

/**
 * The embedded ledger with Light's localnet and the configured fixtures (fixtures win on
 * conflicts), and the DAS asset index kept in step with its accounts.
 */
export interface EmbeddedChain {
  ledger: Ledger;
  assets: AssetIndex;
  /** Transactions by the assets they touched (getSignaturesForAsset). */
  signatures: AssetSignatures;
  fetcher: MetadataFetcher;
  /** Light's system program as deployed: it verifies proofs with zkgate's keys once they are installed. */
  lightSystem: VerifierProgram;
  /** Light's account-compression program as deployed: it verifies a forester's batch proofs the same way. */
  accountCompression: VerifierProgram;
  /** --light-package: the ledger runs that package's programs as shipped (no forester). */
  lightPackage?: string;
  /** The trees and compressed-account index its Light transactions feed. */
  compression: Compression;
  /** The key zkgate's forester signs with (registered in the genesis). */
  foresterKey: Keypair;
  /** The forester, when it runs (--forester on, with the embedded prover). */
  forester?: Forester;
}

/**
 * --light-system-program: Light's system program from that file, as shipped; it joins the ledger's
 * programs last, so it is the one loaded under the system program's id.
 */
function shippedSystemProgram(file: string, programs: ProgramFixture[]): ShippedProgram {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new ConfigError(`--light-system-program: cannot read ${file} (${(e as Error).message})`);
  }
  programs.push({ id: LIGHT_SYSTEM_PROGRAM_ID, bytes, file });
  const validity = SHAPES.map((s) => s.name);
  return new ShippedProgram(LIGHT_SYSTEM_PROGRAM_ID, file, bytes, validity);
}

/**
 * --light-package: every Light program of that package as shipped. Nothing is patched: the system
 * program verifies the proofs of the keys it holds (that release's), account-compression none of
 * zkgate's batch keys (so no forester runs).
 */
function shippedPrograms(root: string, programs: ProgramFixture[]): [VerifierProgram, VerifierProgram] {
  const of = (id: Uint8Array) => programs.filter((p) => Buffer.from(p.id).equals(id)).pop()!;
  const system = of(LIGHT_SYSTEM_PROGRAM_ID);
  const compression = of(decodeBase58(LIGHT_IDS.accountCompression));
  return [
    new ShippedProgram(
      system.id,
      join(root, 'bin', system.file),
      system.bytes,
      SHAPES.map((s) => s.name),
    ),
    new ShippedProgram(
      compression.id,
      join(root, 'bin', compression.file),
      compression.bytes,
      BATCH_SHAPES.map((s) => s.name),
    ),
  ];
}

export async function openLedger(config: Config, log: Logger, registry: MetricsRegistry): Promise<EmbeddedChain> {
  await loadPoseidon();
  const packageRoot = config.lightPackage ? resolve(config.lightPackage) : undefined;
  let light: ReturnType<typeof lightLocalnet>;
  try {
    light = lightLocalnet(packageRoot);
  } catch (e) {
    if (!packageRoot) throw e;
    throw new ConfigError(`--light-package ${config.lightPackage}: ${(e as Error).message}`);
  }
  const accountsDir = genesisAccountsDir(packageRoot);
  checkLightPackage(config.dataDir, join(config.dataDir, 'ledger'), accountsDir);
  // zkgate's forester is registered in the genesis whether it runs or not: turned on later, it can work.
  const forester = foresterKeypair(config);
  const programs = [...light.programs, ...config.program.map(readProgramSpec)];
  // Located before the ledger opens: a system program without the expected key records fails the start.
  const programsDir = join(config.dataDir, 'programs');
  let ledger: Ledger | undefined;
  const writeOut = (file: string) => (bytes: Uint8Array) => {
    mkdirSync(programsDir, { recursive: true });
    writeFileAtomicSync(join(programsDir, file), bytes);
  };
  const deploy = (id: Uint8Array, bytes: Uint8Array) => ledger!.deployProgram(id, bytes);
  const [lightSystem, accountCompression] = packageRoot
    ? shippedPrograms(packageRoot, programs)
    : [
        config.lightSystemProgram
          ? shippedSystemProgram(config.lightSystemProgram, programs)
          : lightSystemProgram(programs, deploy, writeOut(LIGHT_SYSTEM_PROGRAM_FILE)),
        accountCompressionProgram(programs, deploy, writeOut(ACCOUNT_COMPRESSION_PROGRAM_FILE)),
      ];
  let assets: AssetIndex | undefined;
  let fetcher: MetadataFetcher | undefined;
  let compression: Compression | undefined;
  let signatures: AssetSignatures | undefined;
  ledger = Ledger.open({
    dir: join(config.dataDir, 'ledger'),
    slotMs: Math.max(10, config.slotTimeMs),
    accounts: [
      ...config.accountDir.flatMap(readAccountDir),
      ...light.accounts,
      ...foresterGenesisAccounts(forester.publicKey, accountsDir),
    ],
    programs,
    indexers: [
      (root) => {
        fetcher = new MetadataFetcher(root, {
          timeoutMs: config.metadataTimeoutMs,
          maxBytes: config.metadataMaxBytes,
          allowPrivate: config.offchainAllowPrivate === 'on',
          metrics: registry,
        });
        assets = new AssetIndex(root);
        assets.onUri = (uri) => fetcher!.want(uri);
        return assets;
      },
    ],
    transactionIndexers: [
      (root) => {
        compression = openCompression(root, log, registry);
        bootstrapLocalnetTrees(compression.trees, log, { ledger: true, dir: accountsDir });
        return compression.ingester;
      },
      (root) =>
        (signatures = new AssetSignatures(
          root,
          () => assets,
          (s) => ledger?.placeOf(s),
        )),
    ],
    onIndexerError: (e, t) =>
      log.error('transaction indexer failed; its writes for the transaction are dropped', {
        signature: encodeBase58(t.signature),
        error: String((e as Error)?.stack ?? e),
      }),
  });
  fetcher!.resume();
  if (alignRegistryEpochs(ledger, forester.publicKey))
    log.info("ledger genesis: Light's registry epochs start at the ledger's first slot", {
      slot: ledger.slot.toString(),
    });
  // A ledger whose Light transactions were not ingested (or a tampered store) shows up here.
  compression!.ingester.checkAll((k) => ledger!.getAccount(k));
  return {
    ledger,
    assets: assets!,
    signatures: signatures!,
    fetcher: fetcher!,
    lightSystem,
    accountCompression,
    compression: compression!,
    foresterKey: forester,
    ...(packageRoot ? { lightPackage: packageRoot } : {}),
  };
}

/** What Photon's methods read: the index and trees ingest keeps, at the ledger's slot. */
export function compressionIndex(chain: EmbeddedChain): CompressionIndex {
  const { ledger, compression } = chain;
  return {
    store: compression.store,
    trees: compression.trees,
    slot: () => ledger.slot,
    divergent: () => {
      compression.ingester.verifyPending();
      return compression.ingester.divergent;
    },
    transaction: (signature) =>
      transactionJson(ledger, signature, { encoding: 'base64', maxSupportedTransactionVersion: 0, rewards: true }),
  };
}

/** The Light program that verifies a shape's proofs: account-compression for batch circuits. */
export const verifierOf = (chain: EmbeddedChain, shape: string): VerifierProgram =>
  chain.accountCompression.shapes.includes(shape) ? chain.accountCompression : chain.lightSystem;

type VerifiedKey = { shape: string; sha256: string; vk: SnarkjsVerificationKey };

/** Installs a proving key's verifying key into the ledger's Light program that verifies its proofs. */
export function installKey(chain: EmbeddedChain, key: VerifiedKey): void {
  installKeys(chain, [key]);
}

/**
 * Installs verifying keys, one patch and deploy per program: at start-up every key built earlier
 * goes in, and patching (with its program file written and synced) once per key cost ~40 ms each.
 */
export function installKeys(chain: EmbeddedChain, keys: readonly VerifiedKey[]): void {
  const byProgram = new Map<VerifierProgram, VerifiedKey[]>();
  for (const k of keys) {
    const program = verifierOf(chain, k.shape);
    byProgram.set(program, [...(byProgram.get(program) ?? []), k]);
  }
  for (const [program, ks] of byProgram)
    program.install(ks.map((k) => ({ shape: k.shape, keyId: k.sha256, vk: solanaVerifyingKeyBytes(k.vk) })));
}

/**
 * The forester's batch proofs through the queue: each proof's key is installed into the ledger's
 * account-compression program (its verifying key as the host published it) before it is used.
 */
export function queuedBatches(
  chain: EmbeddedChain,
  queued: QueueProver,
): (circuit: string, inputs: Parameters<QueueProver['proveBatch']>[1]) => Promise<CompressedProof> {
  return async (circuit, inputs) => {
    const r = await queued.proveBatch(circuit, inputs);
    if (verifierOf(chain, circuit).keyId(circuit) !== r.keySha256)
      installKey(chain, { shape: circuit, sha256: r.keySha256, vk: await queued.verifyingKey(circuit, r.keySha256) });
    return compressProof(r.points);
  };
}
