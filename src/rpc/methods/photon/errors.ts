// Photon's application errors: code -32000 (ERROR_CODES), told apart by the message's prefix.
import { AppError } from '../../../errors.js';

export class PhotonError extends AppError {
  constructor(
    readonly kind: 'validation' | 'record_not_found' | 'invalid_pubkey',
    message: string,
  ) {
    super(message);
  }
}

export const validation = (msg: string) => new PhotonError('validation', `Validation Error: ${msg}`);
export const notFound = (msg: string) => new PhotonError('record_not_found', `Record Not Found: ${msg}`);
export const invalidPubkey = (field: string) =>
  new PhotonError('invalid_pubkey', `Invalid Public Key: field '${field}'`);
