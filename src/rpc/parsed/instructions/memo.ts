// SPL Memo (Agave's parse_memo): the parsed value is the memo text itself, which must be UTF-8.
import { decodeUtf8 } from './common.js';

export const parseMemo = (data: Uint8Array): string => decodeUtf8(data);
