import { spawn } from 'node:child_process';
import { Keypair, PublicKey } from '@solana/web3.js';
import { compress, confirmTx, createRpc, encodeBN254toBase58, merkletreePubkey } from '@lightprotocol/stateless.js';
const dataDir = process.argv[2]!;
const extra = process.argv.slice(3);
const child = spawn(process.execPath, ['dist/main.js', 'start', '--data-dir', dataDir, '--rpc-port', '0', '--grpc-port', '0', '--prove-port', '0', '--ws-port', '0', '--api-keys', 'k0123456789abcdef', '--rate-limit', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
let err = '';
child.stderr.on('data', (d) => (err += d));
let out = '';
child.stdout.on('data', (d) => (out += d));
const t0 = performance.now();
let base = '';
while (!(base = (err.match(/JSON-RPC\s+(http:\S+)\?api-key=/) ?? [])[1] ?? '')) await new Promise((r) => setTimeout(r, 50));
const url = `${base}?api-key=k0123456789abcdef`;
for (;;) { const h = await (await fetch(`${base}health`)).json() as any; if (h.status === 'ok') break; await new Promise((r) => setTimeout(r, 50)); }
console.log('health ok', ((performance.now() - t0) / 1000).toFixed(1));
const rpc = createRpc(url, url, url);
const payer = Keypair.generate();
await confirmTx(rpc, await rpc.requestAirdrop(payer.publicKey, 10_000_000_000));
const smt1 = (await rpc.getStateTreeInfos()).find((t) => t.tree.equals(new PublicKey(merkletreePubkey)))!;
await compress(rpc, payer, 1_000_000_000, payer.publicKey, smt1);
const [account] = (await rpc.getCompressedAccountsByOwner(payer.publicKey)).items;
const hash = encodeBN254toBase58(account!.hash);
const proof = async () => { const t = performance.now(); const r = await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getValidityProof', params: { hashes: [hash] } }) })).json() as any; if (!r.result) throw new Error(JSON.stringify(r)); return performance.now() - t; };
if (process.env.PRE) { const t = performance.now(); const r = await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.env.PRE.startsWith('{') ? process.env.PRE : JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getValidityProof', params: { hashes: [process.env.PRE] } }) })).json(); console.log('pre', (performance.now() - t).toFixed(0), JSON.stringify(r).slice(0, 120)); }
const xs: number[] = [];
for (let i = 0; i < 12; i++) xs.push(await proof());
console.log(xs.map((x) => x.toFixed(0)).join(' '));
const idle: number[] = [];
for (let i = 0; i < 5; i++) { await new Promise((r) => setTimeout(r, 3000)); idle.push(await proof()); }
console.log('after 3 s idle each:', idle.map((x) => x.toFixed(0)).join(' '));
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
for (const l of out.split("\n").filter((l) => l.includes("circuit warm"))) console.log(l.slice(60, 330));
const lines = out.split('\n').filter((l) => l.includes('"msg":"proof"'));
for (const l of lines.slice(0, 4)) console.log(l.slice(60, 260));
for (const l of err.split("\n").filter((l) => l.startsWith("TRACE")).slice(0, 8)) console.log(l);
process.exit(0);
