import { AppError } from '../errors.js';

export type StateErrorKind =
  | 'tree_not_found'
  | 'tree_exists'
  | 'tree_full'
  | 'invalid_tree'
  | 'invalid_argument'
  | 'leaf_not_found'
  | 'address_exists'
  | 'address_out_of_range'
  | 'tree_read_only';

/** Errors of the tree store; `kind` is mapped to JSON-RPC / gRPC codes by the serving layers. */
export class StateError extends AppError {
  constructor(
    readonly kind: StateErrorKind,
    message: string,
  ) {
    super(message);
  }
}
