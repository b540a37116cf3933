// What the simulator takes: a bundle request and Jito's config, already checked for shape at the
// JSON-RPC edge (src/rpc/methods/simulate-bundle.ts validates into these types). Declared here, in
// the simulator's own area, so the adapter depends on the simulator and not the reverse.

/** One transaction's pre- or post-execution account list; `null` asks for none. */
export interface BundleAccountsConfig {
  encoding?: string | undefined;
  addresses: string[];
}

export type SimulationBank =
  { commitment: { commitment: 'processed' | 'confirmed' | 'finalized' } } | { slot: number } | 'tip';

export interface SimulateBundleConfig {
  preExecutionAccountsConfigs?: (BundleAccountsConfig | null)[] | undefined;
  postExecutionAccountsConfigs?: (BundleAccountsConfig | null)[] | undefined;
  transactionEncoding?: string | undefined;
  simulationBank?: SimulationBank | undefined;
  skipSigVerify?: boolean | undefined;
  replaceRecentBlockhash?: boolean | undefined;
}

export interface SimulateBundleParams {
  request: { encodedTransactions: string[] };
  /** null when the caller sent no config (or null): the simulator applies Jito's defaults. */
  config: SimulateBundleConfig | null;
}
