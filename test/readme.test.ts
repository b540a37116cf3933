// The README is the user's manual: its configuration table stays true to the options the code
// accepts, it stays a manual (under 30 KB, with a table of contents), and every relative link in
// it and in docs/ leads somewhere.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { envName, flagName, OPTIONS } from '../src/config.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('every option has a README row with its flag; its env var is the flag in capitals, as the README says', () => {
  assert.ok(readme.includes("Each flag's environment variable is its name in capitals (`--rpc-port` → `RPC_PORT`"));
  for (const o of OPTIONS) {
    assert.ok(readme.includes(`| \`--${flagName(o.key)}\` |`), `README lacks a row for ${o.key}`);
    assert.equal(envName(o.key), flagName(o.key).replace(/-/g, '_').toUpperCase());
  }
});

test('README names the two set-up commands', () => {
  assert.ok(readme.includes('npm ci && npm start'));
  assert.ok(readme.includes('npm ci && npm test'));
});

test('README stays a manual: at most 30 KB, every section in its table of contents', () => {
  assert.ok(Buffer.byteLength(readme) <= 30 * 1024, `README.md is ${Buffer.byteLength(readme)} bytes`);
  const contents = readme.slice(
    readme.indexOf('## Contents'),
    readme.indexOf('\n## ', readme.indexOf('## Contents') + 1),
  );
  for (const [, heading] of readme.matchAll(/^## (.+)$/gm))
    if (heading !== 'Contents') assert.ok(contents.includes(`(#${slug(heading!)})`), `the contents lack ${heading}`);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  // Headings outside fenced code blocks.
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, h] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(h!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  const inDocs = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(docs, f))
    : [];
  return [join(ROOT, 'README.md'), join(ROOT, 'benchmarks', 'RESULTS.md'), ...inDocs].filter((f) => existsSync(f));
}

test('every relative link in README.md, benchmarks/RESULTS.md and docs/ resolves, anchors included', () => {
  const files = markdownFiles();
  assert.ok(files.length >= 3, files.join(', '));
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const dest = path === '' ? file : join(dirname(file), path);
      const where = `${relative(ROOT, file)} → ${target}`;
      if (!existsSync(dest)) {
        broken.push(`${where}: no such file`);
        continue;
      }
      if (anchor && statSync(dest).isFile() && dest.endsWith('.md') && !anchors(readFileSync(dest, 'utf8')).has(anchor))
        broken.push(`${where}: no such heading`);
    }
  }
  assert.deepEqual(broken, []);
});
