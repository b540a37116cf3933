// The CUDA library's device code on a machine without a GPU: where nvcc is found, the library's
// source (native/src/cuda/zkgate_cuda.cu) compiles to PTX for the H100/H200 target, and every point
// operation the MSM kernels call (JacobianHD's dbl, add_mixed and add, for G1 and G2) is a leaf call:
// it calls no other function. On an H200 the MSM's segment sums faulted (an invalid local write in
// add, kernels at 255 registers) in the runs where an addition met P + P and add called dbl; the host
// executor runs the same source without calls, so no CPU test of results can see it. Without nvcc
// the test is skipped.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const source = fileURLToPath(new URL('../../native/src/cuda/zkgate_cuda.cu', import.meta.url));

/** nvcc as native/build.mjs finds it: NVCC alone when set, else on PATH or the usual prefixes. */
function findNvcc(): string | undefined {
  const candidates = process.env.NVCC
    ? [process.env.NVCC]
    : ['nvcc', '/usr/local/cuda/bin/nvcc', '/usr/local/cuda-13.0/bin/nvcc'];
  return candidates.find((c) => spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0);
}

/** The module's function and kernel bodies by mangled name (prototypes left out). */
function ptxBodies(ptx: string): Map<string, string> {
  const out = new Map<string, string>();
  const header = /^(?:\.visible\s+|\.weak\s+)?\.(?:func|entry)\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(/gm;
  for (const m of ptx.matchAll(header)) {
    const name = m[1] as string;
    // The parameter list ends at a line ")"; a body follows as "{" … "}" at the line's start, a
    // prototype ends with ";".
    const rest = ptx.slice((m.index ?? 0) + m[0].length);
    const opened = /^\)\s*\n(?:\s*\.[^\n]*\n)*?\s*([{;])/m.exec(rest);
    if (!opened || opened[1] !== '{') continue;
    const start = opened.index + opened[0].length;
    const end = rest.indexOf('\n}', start);
    out.set(name, rest.slice(start, end < 0 ? undefined : end));
  }
  return out;
}

const nvcc = findNvcc();

test(
  'the device point operations (JacobianHD dbl, add_mixed, add) call no other function',
  { skip: nvcc ? false : 'nvcc not found (set NVCC)' },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zkgate-ptx-'));
    try {
      const ptxPath = join(dir, 'zkgate_cuda.ptx');
      // The library's own flags for its sm_90 code (native/build.mjs), PTX only: no GPU, no ptxas.
      await promisify(execFile)(
        nvcc as string,
        ['-std=c++17', '-O3', '--extended-lambda', '-arch=sm_90', '-ptx', source, '-o', ptxPath],
        { maxBuffer: 1 << 24 },
      );
      const bodies = ptxBodies(readFileSync(ptxPath, 'utf8'));
      const points = [...bodies].filter(([name]) => name.includes('JacobianHD'));
      // dbl, add_mixed and add for each of G1 and G2, out of line as the kernels call them.
      assert.equal(points.length, 6, `point operations in the PTX: ${points.map(([n]) => n).join(', ')}`);
      const calling = points.filter(([, body]) => /\bcall(?:\.uni)?\s/.test(body)).map(([name]) => name);
      assert.deepEqual(calling, [], `point operations that call another function: ${calling.join(', ')}`);
      // The MSM kernels do call them (were they inlined, this test would check nothing).
      const callers = [...bodies].filter(
        ([name, body]) => name.includes('msm_batch') && /\bcall(?:\.uni)?\s[^;]*JacobianHD/.test(body),
      );
      assert.ok(callers.length >= 6, `MSM kernels calling point operations: ${callers.length}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
