// Minimal typings for the untyped iden3 packages zkgate uses, limited to what it calls.
declare module 'circomlibjs' {
  export interface WasmField {
    e(v: bigint | number | string): Uint8Array;
    toObject(v: Uint8Array): bigint;
  }
  export interface Poseidon {
    (inputs: (bigint | Uint8Array)[] | Uint8Array): Uint8Array;
    F: WasmField;
  }
  export function buildPoseidon(): Promise<Poseidon>;
  export function buildPoseidonReference(): Promise<Poseidon>;
}

declare module 'ffjavascript' {
  export const buildBn128: (singleThread?: boolean) => Promise<any>;
  export const getCurveFromName: (name: string, singleThread?: boolean, plugins?: unknown) => Promise<any>;
  export const utils: {
    unstringifyBigInts(v: unknown): any;
    stringifyBigInts(v: unknown): any;
  };
}

declare module 'snarkjs' {
  export interface Groth16Proof {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  }
  export const groth16: {
    fullProve(
      input: unknown,
      wasm: string | Uint8Array,
      zkey: string | Uint8Array | { type: 'mem'; data: Uint8Array },
      logger?: unknown,
      wtnsCalcOptions?: unknown,
      proverOptions?: unknown,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    prove(
      zkey: unknown,
      witness: unknown,
      logger?: unknown,
      options?: unknown,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(vk: unknown, publicSignals: string[], proof: Groth16Proof, logger?: unknown): Promise<boolean>;
  };
  export const zKey: {
    exportVerificationKey(
      zkey: string | Uint8Array | { type: 'mem'; data: Uint8Array },
      logger?: unknown,
    ): Promise<any>;
  };
  export const wtns: {
    calculate(input: unknown, wasm: string | Uint8Array, wtns: unknown, options?: unknown): Promise<void>;
  };
}

declare module 'circom_runtime' {
  export function WitnessCalculatorBuilder(
    code: Uint8Array,
    options?: unknown,
  ): Promise<{ calculateWTNSBin(input: unknown, sanityCheck?: boolean): Promise<Uint8Array> }>;
}
