// The README's configuration table must stay true to the options the code accepts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { envName, flagName, OPTIONS } from '../src/config.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

test('every option has a README row with its flag and env var', () => {
  for (const o of OPTIONS) {
    assert.ok(
      readme.includes(`| \`--${flagName(o.key)}\` | \`${envName(o.key)}\` |`),
      `README lacks a row for ${o.key}`,
    );
  }
});

test('README names the two set-up commands', () => {
  assert.ok(readme.includes('npm ci && npm start'));
  assert.ok(readme.includes('npm ci && npm test'));
});
