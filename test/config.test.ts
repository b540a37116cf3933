import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import {
  ConfigError,
  defaultConfig,
  envName,
  flagName,
  helpText,
  HELP_WIDTH,
  OPTIONS,
  parseCommandLine,
  resolveConfig,
} from '../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'zkgate-config-'));
const file = (obj: unknown) => {
  const p = join(dir, `c${Math.random().toString(16).slice(2)}.json`);
  writeFileSync(p, typeof obj === 'string' ? obj : JSON.stringify(obj));
  return p;
};

describe('defaults', () => {
  test('the issue-mandated defaults', () => {
    const c = resolveConfig({}, {});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.rpcPort, 8899);
    assert.equal(c.grpcPort, 50051);
    assert.equal(c.dataDir, resolve('./data'));
    assert.deepEqual(c.apiKeys, []);
    assert.equal(c.maxBodyBytes, 2 * 1024 * 1024);
    assert.equal(c.maxBatchSize, 100);
  });
});

describe('precedence: defaults < config file < env < flags', () => {
  test('each layer overrides the one below', () => {
    const cfg = file({
      rpcPort: 1000,
      grpcPort: 2000,
      'data-dir': '/tmp/from-file',
      host: '0.0.0.0',
      proverHost: '127.0.0.1',
    });
    const c = resolveConfig({ rpcPort: '4000' }, { RPC_PORT: '3000', GRPC_PORT: '3001' }, cfg);
    assert.equal(c.rpcPort, 4000); // flag
    assert.equal(c.grpcPort, 3001); // env over file
    assert.equal(c.dataDir, '/tmp/from-file'); // file over default
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.maxBatchSize, 100); // default
  });

  test('the config file can come from CONFIG in the environment', () => {
    const cfg = file({ maxBatchSize: 7 });
    assert.equal(resolveConfig({}, { CONFIG: cfg }).maxBatchSize, 7);
  });

  test('API keys: comma-separated in env and flags, an array in the file', () => {
    assert.deepEqual(resolveConfig({}, { API_KEYS: 'a, b,,c' }).apiKeys, ['a', 'b', 'c']);
    assert.deepEqual(resolveConfig({}, {}, file({ apiKeys: ['x', 'y'] })).apiKeys, ['x', 'y']);
    assert.deepEqual(resolveConfig({ apiKeys: 'z' }, { API_KEYS: 'a' }).apiKeys, ['z']);
  });
});

describe('errors name the option and where it came from', () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      'bad env port',
      () => resolveConfig({}, { RPC_PORT: 'abc' }),
      /^environment variable RPC_PORT: expected an integer from 0 to 65535, got "abc"$/,
    ],
    [
      'port out of range',
      () => resolveConfig({ grpcPort: '70000' }, {}),
      /^flag --grpc-port: expected an integer from 0 to 65535, got "70000"$/,
    ],
    [
      'bad log level',
      () => resolveConfig({ logLevel: 'loud' }, {}),
      /^flag --log-level: expected one of debug, info, warn, error, silent, got "loud"$/,
    ],
    ['unknown file key', () => resolveConfig({}, {}, file({ rpcport: 1 })), /unknown option "rpcport"$/],
    ['file not JSON', () => resolveConfig({}, {}, file('{nope')), /is not valid JSON/],
    ['file not an object', () => resolveConfig({}, {}, file('[1]')), /must hold a JSON object$/],
    ['missing file', () => resolveConfig({}, {}, join(dir, 'missing.json')), /^cannot read config file/],
    ['bad type in file', () => resolveConfig({}, {}, file({ host: 5 })), /key "host": expected a string, got 5$/],
    ['zero batch size', () => resolveConfig({ maxBatchSize: '0' }, {}), /maxBatchSize must be at least 1/],
    [
      'bad role',
      () => resolveConfig({}, { ROLE: 'gpu' }),
      /^environment variable ROLE: expected one of all, rpc, prover, got "gpu"$/,
    ],
    ['rpc role without a prover', () => resolveConfig({ role: 'rpc' }, {}), /role "rpc" needs proverUrl/],
    [
      'a Light package and a system program file',
      () => resolveConfig({ lightPackage: '/p', lightSystemProgram: '/p/bin/x.so' }, {}),
      /--light-package runs that package’s system program as shipped already: leave out --light-system-program/,
    ],
  ];
  for (const [label, fn, re] of cases) {
    test(label, () => assert.throws(fn, (e: unknown) => e instanceof ConfigError && re.test(e.message)));
  }
});

describe('command line', () => {
  test('flags are kebab-case of the option names; env vars UPPER_SNAKE of the same words', () => {
    assert.equal(flagName('rpcPort'), 'rpc-port');
    assert.equal(envName('rateLimitBurst'), 'RATE_LIMIT_BURST');
    const cli = parseCommandLine(['start', '--rpc-port', '1', '--api-keys=a,b', '--config', 'f.json']);
    assert.equal(cli.command, 'start');
    assert.deepEqual(cli.flags, { rpcPort: '1', apiKeys: 'a,b' });
    assert.equal(cli.configFile, 'f.json');
  });

  test('unknown flags are errors', () => {
    assert.throws(
      () => parseCommandLine(['start', '--rpc-prot', '1']),
      (e: unknown) => e instanceof ConfigError && /rpc-prot/.test(e.message),
    );
  });

  test('--help lists every option with its flag and env var, each on a line of its own that reads', () => {
    const help = helpText('1.2.3');
    const lines = help.split('\n');
    for (const o of OPTIONS) {
      // The flag, its value, then the variable apart from it (long names once ran into each other).
      const head = lines.findIndex((l) => l.startsWith(`  --${flagName(o.key)} <`));
      assert.ok(head >= 0, o.key);
      assert.match(lines[head]!, new RegExp(`^ {2}--${flagName(o.key)} <[^>]+> {2}\\(${envName(o.key)}\\)$`), o.key);
      // What it sets, below it, indented.
      assert.match(lines[head + 1]!, /^ {6}\S/, o.key);
    }
    for (const l of lines) assert.ok(l.length <= HELP_WIDTH, `a line over ${HELP_WIDTH} columns: ${l}`);
    assert.match(help, /^ {2}--ws-max-subscriptions-per-connection <n> {2}\(WS_MAX_SUBSCRIPTIONS_PER_CONNECTION\)$/m);
  });

  test('defaultConfig returns fresh arrays', () => {
    defaultConfig().apiKeys.push('leak');
    assert.deepEqual(defaultConfig().apiKeys, []);
  });
});
