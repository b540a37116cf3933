// The base of every typed error in zkgate. Each area subclasses it with its own `kind`;
// src/rpc/errors.ts maps kinds to JSON-RPC codes in one table, so areas never pick wire codes.
export abstract class AppError extends Error {
  abstract readonly kind: string;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}
