// Structured JSON logs, one line per event. Lines are buffered and written once per event-loop turn:
// stdout is synchronous on Linux, and one write per request would cost more than the request itself.
import type { LogLevel } from '../config.js';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  readonly level: LogLevel;
  enabled(level: LogLevel): boolean;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Writes everything buffered now (call before exit). */
  flush(): void;
}

export function createLogger(level: LogLevel, write: (chunk: string) => void = (c) => process.stdout.write(c)): Logger {
  const min = RANK[level];
  let pending: string[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    try {
      write(chunk);
    } catch {
      // A closed stdout (EPIPE) must not take the gateway down; the lines are lost, not the process.
    }
  };

  const emit = (lvl: LogLevel, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < min) return;
    let line: string;
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields });
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, note: 'fields not serialisable' });
    }
    pending.push(line + '\n');
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    level,
    enabled: (lvl) => RANK[lvl] >= min,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    flush,
  };
}
