// Surfpool's cheatcodes (surfnet_*) over HTTP against a real gateway, read back through web3.js and
// spl-token: accounts, token accounts, time travel (slot, epoch, Clock sysvar, blocks, slot
// notifications), the paused clock, resets, supply, program authority and clones, and the -32602
// answers to bad params. The clock is paused between tests so slots in the answers are exact.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import {
  Connection,
  Keypair,
  PublicKey,
  SYSVAR_CLOCK_PUBKEY,
  Transaction,
  TransactionInstruction,
  sendAndConfirmTransaction,
} from '@solana/web3.js';
import {
  MintLayout,
  NATIVE_MINT,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  createAssociatedTokenAccount,
  getAccount,
  getAssociatedTokenAddressSync,
  transfer,
} from '@solana/spl-token';
import type { Ledger } from '../../src/ledger/index.js';
import {
  postJson,
  rpcCall,
  startTestGateway,
  type TestGateway,
  stopWithConnection,
  web3Connection,
} from '../helpers/gateway.js';

const LOADER = new PublicKey('BPFLoaderUpgradeab1e11111111111111111111111');
const NOOP_ELF = readFileSync(
  new URL('../../node_modules/@lightprotocol/zk-compression-cli/bin/spl_noop.so', import.meta.url),
);
const SLOTS_PER_EPOCH = 432_000;
const TOKEN_RENT = 2_039_280;

let gw: TestGateway;
let conn: Connection;
let ledger: Ledger;

before(async () => {
  gw = await startTestGateway({}, {}, { ledger: true });
  conn = web3Connection(gw);
  ledger = gw.gateway.chain!.ledger;
  await call('surfnet_pauseClock', []);
});
after(() => stopWithConnection(gw, conn));

/** One call on the wire: the response text as the gateway wrote it. */
async function call(method: string, params: unknown, raw?: string): Promise<string> {
  const body = raw ?? JSON.stringify(params);
  return (await postJson(gw.url, `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${body}}`)).text;
}
const slot = () => Number(ledger.slot);
const done = () =>
  `{"jsonrpc":"2.0","result":{"context":{"slot":${slot()},"apiVersion":"0.0.0-test"},"value":null},"id":1}`;
const invalid = (message: string) =>
  `{"jsonrpc":"2.0","error":{"code":-32602,"message":${JSON.stringify(`Invalid params: ${message}`)}},"id":1}`;
const epochInfo = (s: number) =>
  `{"jsonrpc":"2.0","result":{"epoch":${Math.floor(s / SLOTS_PER_EPOCH)},"slotIndex":${s % SLOTS_PER_EPOCH},` +
  `"slotsInEpoch":${SLOTS_PER_EPOCH},"absoluteSlot":${s},"blockHeight":${s},"transactionCount":${ledger.transactionCount()}},"id":1}`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const key = () => Keypair.generate().publicKey;

function mintData(decimals: number, supply: bigint, authority: PublicKey): string {
  const d = Buffer.alloc(MintLayout.span);
  MintLayout.encode(
    {
      mintAuthorityOption: 1,
      mintAuthority: authority,
      supply,
      decimals,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    d,
  );
  return hex(d);
}

async function setMint(program: PublicKey, decimals = 6): Promise<PublicKey> {
  const mint = key();
  const data = mintData(decimals, 1_000_000_000n, key());
  const update = { lamports: 1_461_600, data, owner: program.toBase58(), executable: false, rentEpoch: 0 };
  assert.equal(await call('surfnet_setAccount', [mint.toBase58(), update]), done());
  return mint;
}

/** The Clock sysvar as programs read it. */
async function clock() {
  const d = (await conn.getAccountInfo(SYSVAR_CLOCK_PUBKEY, 'processed'))!.data;
  return {
    slot: Number(d.readBigUInt64LE(0)),
    epochStartTimestamp: Number(d.readBigInt64LE(8)),
    epoch: Number(d.readBigUInt64LE(16)),
    leaderScheduleEpoch: Number(d.readBigUInt64LE(24)),
    unixTimestamp: Number(d.readBigInt64LE(32)),
  };
}

test('setAccount: a whole account, then fields patched one by one; u64::MAX rentEpoch kept exactly', async () => {
  const k = key();
  const owner = key();
  const raw = `["${k.toBase58()}",{"lamports":1000000000,"data":"deadBEEF","owner":"${owner.toBase58()}","executable":false,"rentEpoch":18446744073709551615}]`;
  assert.equal(await call('surfnet_setAccount', null, raw), done());
  const info = (await conn.getAccountInfo(k))!;
  assert.deepEqual(
    { ...info, owner: info.owner.toBase58(), data: hex(info.data) },
    {
      data: 'deadbeef',
      executable: false,
      lamports: 1_000_000_000,
      owner: owner.toBase58(),
      rentEpoch: 2 ** 64,
      space: 4,
    },
  );
  assert.match(
    await call('getAccountInfo', [k.toBase58(), { encoding: 'base64' }]),
    /"rentEpoch":18446744073709551615,/,
  );

  assert.equal(await call('surfnet_setAccount', [k.toBase58(), { lamports: 5 }]), done());
  assert.equal(await call('surfnet_setAccount', [k.toBase58(), { data: '', rentEpoch: null }]), done());
  const patched = (await conn.getAccountInfo(k))!;
  assert.deepEqual([patched.lamports, patched.data.length, patched.owner.toBase58()], [5, 0, owner.toBase58()]);

  // A new account from the fields given: system-owned, no data.
  const fresh = key();
  assert.equal(await call('surfnet_setAccount', [fresh.toBase58(), { lamports: 42 }]), done());
  const f = (await conn.getAccountInfo(fresh))!;
  assert.deepEqual(
    [f.lamports, f.owner.toBase58(), f.data.length, f.executable],
    [42, '11111111111111111111111111111111', 0, false],
  );
  // Zero lamports: the account is gone, as a validator drops it.
  assert.equal(await call('surfnet_setAccount', [fresh.toBase58(), { lamports: 0 }]), done());
  assert.equal(await conn.getAccountInfo(fresh), null);
});

test('setTokenAccount: the owner’s ATA created with the amount, then delegate / state / close authority', async () => {
  const mint = await setMint(TOKEN_PROGRAM_ID);
  const owner = key();
  const ata = getAssociatedTokenAddressSync(mint, owner);
  assert.equal(
    await call('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), { amount: 1_234_500 }]),
    done(),
  );
  assert.equal(
    await call('getTokenAccountBalance', [ata.toBase58(), { commitment: 'processed' }]),
    `{"jsonrpc":"2.0","result":{"context":{"slot":${slot()},"apiVersion":"0.0.0-test"},"value":{"uiAmount":1.2345,"decimals":6,"amount":"1234500","uiAmountString":"1.2345"}},"id":1}`,
  );
  const a = await getAccount(conn, ata);
  assert.deepEqual(
    [a.mint, a.owner, a.amount, a.delegate, a.isInitialized, a.isFrozen, a.isNative, a.closeAuthority],
    [mint, owner, 1_234_500n, null, true, false, false, null],
  );
  assert.equal(await conn.getBalance(ata), TOKEN_RENT);
  const listed = await conn.getTokenAccountsByOwner(owner, { mint });
  assert.deepEqual(
    listed.value.map((v) => v.pubkey.toBase58()),
    [ata.toBase58()],
  );

  const delegate = key();
  const closer = key();
  const update = {
    delegate: delegate.toBase58(),
    delegatedAmount: 100,
    state: 'frozen',
    closeAuthority: closer.toBase58(),
  };
  assert.equal(await call('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), update]), done());
  const b = await getAccount(conn, ata);
  assert.deepEqual(
    [b.amount, b.delegate, b.delegatedAmount, b.isFrozen, b.closeAuthority],
    [1_234_500n, delegate, 100n, true, closer],
  );
  const byDelegate = await rpcCall(gw.url, 'getTokenAccountsByDelegate', [
    delegate.toBase58(),
    { mint: mint.toBase58() },
    { encoding: 'base64' },
  ]);
  assert.deepEqual(
    byDelegate.result.value.map((v: { pubkey: string }) => v.pubkey),
    [ata.toBase58()],
  );
  // "null" clears a key (the delegated amount stays, as Surfpool leaves it); JSON null leaves it.
  const clear = { delegate: 'null', closeAuthority: 'null', state: 'initialized', amount: null };
  assert.equal(await call('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), clear]), done());
  const c = await getAccount(conn, ata);
  assert.deepEqual(
    [c.amount, c.delegate, c.delegatedAmount, c.isFrozen, c.closeAuthority],
    [1_234_500n, null, 100n, false, null],
  );
});

test('setTokenAccount: Token-2022 with the program as 4th param; wrapped SOL holds its amount in lamports', async () => {
  const mint = await setMint(TOKEN_2022_PROGRAM_ID, 2);
  const owner = key();
  const params = [owner.toBase58(), mint.toBase58(), { amount: 700 }, TOKEN_2022_PROGRAM_ID.toBase58()];
  assert.equal(await call('surfnet_setTokenAccount', params), done());
  const ata = getAssociatedTokenAddressSync(mint, owner, false, TOKEN_2022_PROGRAM_ID);
  const a = await getAccount(conn, ata, 'confirmed', TOKEN_2022_PROGRAM_ID);
  assert.deepEqual([a.amount, a.owner, a.mint], [700n, owner, mint]);
  assert.equal((await conn.getTokenAccountBalance(ata)).value.uiAmountString, '7');
  assert.equal(
    await call('surfnet_setTokenAccount', [owner.toBase58(), mint.toBase58(), { amount: 1 }]),
    invalid(`mint ${mint.toBase58()} belongs to ${TOKEN_2022_PROGRAM_ID.toBase58()}: pass it as the token program`),
  );

  const holder = key();
  assert.equal(
    await call('surfnet_setTokenAccount', [holder.toBase58(), NATIVE_MINT.toBase58(), { amount: 1_000_000_000 }]),
    done(),
  );
  const wsol = getAssociatedTokenAddressSync(NATIVE_MINT, holder);
  const w = await getAccount(conn, wsol);
  assert.deepEqual([w.isNative, w.rentExemptReserve, w.amount], [true, BigInt(TOKEN_RENT), 1_000_000_000n]);
  assert.equal(await conn.getBalance(wsol), TOKEN_RENT + 1_000_000_000);
});

test('timeTravel absoluteSlot: the slot, epoch info, Clock sysvar, blocks and the slot notification move together', async () => {
  const from = slot();
  const t0 = ledger.now();
  const seen: number[] = [];
  const sub = conn.onSlotChange((s) => seen.push(s.slot));
  await new Promise((r) => setTimeout(r, 200));
  const to = from + 1000;
  assert.equal(await call('surfnet_timeTravel', [{ absoluteSlot: to }]), epochInfo(to));
  assert.equal(await conn.getSlot('processed'), to);
  const info = await conn.getEpochInfo('processed');
  assert.deepEqual(
    { ...info },
    {
      absoluteSlot: to,
      blockHeight: to,
      epoch: Math.floor(to / SLOTS_PER_EPOCH),
      slotIndex: to % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ledger.transactionCount(),
    },
  );
  const unix = Math.floor((t0 + 1000 * 400) / 1000);
  const epoch = Math.floor(to / SLOTS_PER_EPOCH);
  assert.deepEqual(await clock(), {
    slot: to,
    epochStartTimestamp: unix - Math.floor(((to % SLOTS_PER_EPOCH) * 400) / 1000),
    epoch,
    leaderScheduleEpoch: epoch + 1,
    unixTimestamp: unix,
  });
  for (let i = 0; i < 40 && !seen.includes(to); i++) await new Promise((r) => setTimeout(r, 50));
  await conn.removeSlotChangeListener(sub);
  assert.ok(seen.includes(to), `slot notification for ${to}: ${seen}`);

  // The slot that ended has its block; the slots jumped over have none; the next block's parent is it.
  ledger.advanceSlot();
  // Block headers are written asynchronously (LMDB batches them).
  let blocks: number[] = [];
  for (let i = 0; i < 40 && blocks.length < 2; i++) {
    blocks = await conn.getBlocks(from, to, 'confirmed');
    if (blocks.length < 2) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(blocks, [from, to]);
  const before = (await conn.getBlock(from, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!;
  const landed = (await conn.getBlock(to, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!;
  assert.deepEqual([landed.parentSlot, landed.previousBlockhash, landed.blockTime], [from, before.blockhash, unix]);
  assert.equal((await conn.getLatestBlockhash('processed')).lastValidBlockHeight, to + 1 + 150);
});

test('timeTravel absoluteEpoch and absoluteTimestamp (milliseconds); no config: an hour ahead', async () => {
  const epoch = Math.floor(slot() / SLOTS_PER_EPOCH) + 2;
  const t0 = ledger.now();
  const first = epoch * SLOTS_PER_EPOCH;
  const jump = first - slot();
  assert.equal(await call('surfnet_timeTravel', [{ absoluteEpoch: epoch }]), epochInfo(first));
  const unix = Math.floor((t0 + jump * 400) / 1000);
  assert.deepEqual(await clock(), {
    slot: first,
    epochStartTimestamp: unix,
    epoch,
    leaderScheduleEpoch: epoch + 1,
    unixTimestamp: unix,
  });

  const target = ledger.now() + 86_400_000 + 123;
  const expected = slot() + Math.floor((86_400_000 + 123) / 400);
  assert.equal(await call('surfnet_timeTravel', [{ absoluteTimestamp: target }]), epochInfo(expected));
  assert.equal((await clock()).unixTimestamp, Math.floor(target / 1000));
  assert.equal(ledger.now(), target);

  const hour = slot() + 9000;
  assert.equal(await call('surfnet_timeTravel', []), epochInfo(hour));
  assert.equal(ledger.now(), target + 3_600_000);
  // Less than a slot ahead: the time moves, the slot stays.
  assert.equal(await call('surfnet_timeTravel', [{ absoluteTimestamp: ledger.now() + 399 }]), epochInfo(hour));
  assert.equal(await call('surfnet_timeTravel', [{ absoluteSlot: hour }]), epochInfo(hour));
});

test('timeTravel refuses the past and malformed configs with -32602', async () => {
  const s = slot();
  const now = ledger.now();
  const epoch = Math.floor(s / SLOTS_PER_EPOCH);
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteSlot: s - 1 }]),
    invalid(`Cannot travel to past slot: target=${s - 1}, current=${s}`),
  );
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteEpoch: epoch - 1 }]),
    invalid(`Cannot travel to past epoch: target=${epoch - 1}, current=${epoch}`),
  );
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteTimestamp: Math.floor(now / 1000) }]),
    invalid(`Cannot travel to past timestamp: target=${Math.floor(now / 1000)}, current=${now} (milliseconds)`),
  );
  if (s % SLOTS_PER_EPOCH !== 0)
    assert.equal(
      await call('surfnet_timeTravel', [{ absoluteEpoch: epoch }]),
      invalid(`Cannot travel to epoch ${epoch}: already at slot ${s}, past its first slot`),
    );
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteSlot: s + 1, absoluteEpoch: epoch + 1 }]),
    invalid(
      `config: expected exactly one of absoluteEpoch, absoluteSlot, absoluteTimestamp, got {"absoluteSlot":${s + 1},"absoluteEpoch":${epoch + 1}}`,
    ),
  );
  assert.equal(
    await call('surfnet_timeTravel', [{ slot: s + 1 }]),
    invalid('config: unknown field "slot", expected one of absoluteEpoch, absoluteSlot, absoluteTimestamp'),
  );
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteSlot: String(s + 1) }]),
    invalid(`absoluteSlot: expected a u64 integer, got string "${s + 1}"`),
  );
  assert.equal(
    await call('surfnet_timeTravel', [{ absoluteSlot: 2 ** 60 }]),
    invalid(`absoluteSlot: ${2 ** 60} is beyond 2^53, where a JSON number is not exact (u64::MAX is accepted)`),
  );
  assert.equal(slot(), s);
});

test('pauseClock / resumeClock: no slots while paused, the clock runs again after', async () => {
  const s = slot();
  assert.equal(await call('surfnet_pauseClock', []), epochInfo(s));
  await new Promise((r) => setTimeout(r, 900));
  assert.equal(await conn.getSlot('processed'), s);
  assert.equal(await call('surfnet_resumeClock', []), epochInfo(s));
  await new Promise((r) => setTimeout(r, 1000));
  assert.ok((await conn.getSlot('processed')) > s);
  const now = slot();
  const paused = await call('surfnet_pauseClock', []);
  assert.ok(paused === epochInfo(slot()) && slot() >= now);
  assert.equal(await call('surfnet_pauseClock', [1]), invalid('expected at most 0 params, got 1'));
});

test('resetAccount: the account goes; includeOwnedAccounts takes what it owns; a missing one is fine', async () => {
  const program = key();
  const owned = [key(), key()];
  const set = (k: PublicKey, owner = '11111111111111111111111111111111') =>
    call('surfnet_setAccount', [k.toBase58(), { lamports: 10, owner }]);
  await set(program);
  for (const k of owned) await set(k, program.toBase58());
  assert.equal(await call('surfnet_resetAccount', [program.toBase58()]), done());
  assert.equal(await conn.getAccountInfo(program), null);
  assert.equal((await conn.getProgramAccounts(program)).length, 2);

  await set(program);
  assert.equal(await call('surfnet_resetAccount', [program.toBase58(), { includeOwnedAccounts: true }]), done());
  assert.deepEqual(await conn.getMultipleAccountsInfo([program, ...owned]), [null, null, null]);
  assert.deepEqual(await conn.getProgramAccounts(program), []);
  assert.equal(await call('surfnet_resetAccount', [key().toBase58(), null]), done());
  assert.equal(
    await call('surfnet_resetAccount', [program.toBase58(), { includeOwnedAccounts: 'yes' }]),
    invalid('includeOwnedAccounts: expected a boolean, got string "yes"'),
  );
});

test('setSupply: what getSupply answers from then on, field by field', async () => {
  const a = key().toBase58();
  const update = { total: 1_000_000, non_circulating: 400, non_circulating_accounts: [a] };
  assert.equal(await call('surfnet_setSupply', [update]), done());
  let sum = 0n;
  for (const { lamports } of ledger.balances()) sum += lamports;
  assert.equal(
    await call('getSupply', [{ commitment: 'processed' }]),
    `{"jsonrpc":"2.0","result":{"context":{"slot":${slot()},"apiVersion":"0.0.0-test"},"value":{"total":1000000,"circulating":${sum},"nonCirculating":400,"nonCirculatingAccounts":["${a}"]}},"id":1}`,
  );
  assert.deepEqual(
    (await conn.getSupply({ excludeNonCirculatingAccountsList: true })).value.nonCirculatingAccounts,
    [],
  );
  assert.equal(await call('surfnet_setSupply', [{ circulating: 600 }]), done());
  assert.deepEqual(
    { ...(await conn.getSupply()).value, nonCirculatingAccounts: [] },
    { total: 1_000_000, circulating: 600, nonCirculating: 400, nonCirculatingAccounts: [] },
  );
  assert.equal(
    await call('surfnet_setSupply', [{ nonCirculating: 1 }]),
    invalid(
      'update: unknown field "nonCirculating", expected one of total, circulating, non_circulating, non_circulating_accounts',
    ),
  );
  assert.equal(
    await call('surfnet_setSupply', [{ non_circulating_accounts: ['nope'] }]),
    invalid('invalid non_circulating_accounts[0] "nope": 3 bytes, expected 32'),
  );
});

/** An upgradeable program (spl-noop) written with setAccount: ProgramData first, then the program. */
async function setNoopProgram(): Promise<{ program: PublicKey; programData: PublicKey }> {
  const program = key();
  const [programData] = PublicKey.findProgramAddressSync([program.toBytes()], LOADER);
  const header = Buffer.alloc(45);
  header.writeUInt32LE(3, 0);
  const pointer = Buffer.alloc(36);
  pointer.writeUInt32LE(2, 0);
  pointer.set(programData.toBytes(), 4);
  const account = (data: Buffer, executable: boolean) => ({
    lamports: 1_000_000_000,
    data: hex(data),
    owner: LOADER.toBase58(),
    executable,
    rentEpoch: 0,
  });
  assert.equal(
    await call('surfnet_setAccount', [programData.toBase58(), account(Buffer.concat([header, NOOP_ELF]), false)]),
    done(),
  );
  assert.equal(await call('surfnet_setAccount', [program.toBase58(), account(pointer, true)]), done());
  return { program, programData };
}

test('setProgramAuthority: the ProgramData authority rewritten, the program bytes left at offset 45', async () => {
  const { program, programData } = await setNoopProgram();
  const authority = key();
  assert.equal(await call('surfnet_setProgramAuthority', [program.toBase58(), authority.toBase58()]), done());
  let d = (await conn.getAccountInfo(programData))!.data;
  assert.deepEqual([d[12], new PublicKey(d.subarray(13, 45)).toBase58()], [1, authority.toBase58()]);
  assert.ok(d.subarray(45).equals(NOOP_ELF));
  assert.equal(await call('surfnet_setProgramAuthority', [program.toBase58()]), done());
  d = (await conn.getAccountInfo(programData))!.data;
  assert.deepEqual([d[12], hex(d.subarray(13, 45))], [0, '00'.repeat(32)]);
  assert.ok(d.subarray(45).equals(NOOP_ELF));

  // Resetting a program takes its ProgramData with it.
  assert.equal(await call('surfnet_resetAccount', [program.toBase58()]), done());
  assert.deepEqual(await conn.getMultipleAccountsInfo([program, programData]), [null, null]);

  const plain = key();
  await call('surfnet_setAccount', [plain.toBase58(), { lamports: 1 }]);
  assert.equal(
    await call('surfnet_setProgramAuthority', [plain.toBase58(), authority.toBase58()]),
    `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid program account ${plain.toBase58()}: Not a program account"},"id":1}`,
  );
  const missing = key();
  assert.equal(
    await call('surfnet_setProgramAuthority', [missing.toBase58(), null]),
    `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid program account ${missing.toBase58()}: Account not found"},"id":1}`,
  );
});

test('transactions after the cheatcodes: a cheat token balance transfers, a cloned program runs, local signatures list them', async () => {
  const payer = Keypair.generate();
  await call('surfnet_setAccount', [payer.publicKey.toBase58(), { lamports: 10_000_000_000 }]);
  const mint = await setMint(TOKEN_PROGRAM_ID);
  await call('surfnet_setTokenAccount', [payer.publicKey.toBase58(), mint.toBase58(), { amount: 5_000 }]);
  const { program } = await setNoopProgram();
  const clone = key();
  assert.equal(await call('surfnet_cloneProgramAccount', [program.toBase58(), clone.toBase58()]), done());
  const [cloneData] = PublicKey.findProgramAddressSync([clone.toBytes()], LOADER);
  const c = (await conn.getAccountInfo(clone))!;
  assert.deepEqual(
    [c.executable, c.owner.toBase58(), hex(c.data.subarray(4))],
    [true, LOADER.toBase58(), hex(cloneData.toBytes())],
  );

  assert.equal(await call('surfnet_resumeClock', []), epochInfo(slot()));
  try {
    const to = await createAssociatedTokenAccount(conn, payer, mint, key());
    const from = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const sent = await transfer(conn, payer, from, to, payer, 1_250);
    assert.deepEqual([(await getAccount(conn, from)).amount, (await getAccount(conn, to)).amount], [3_750n, 1_250n]);
    const run = new Transaction().add(
      new TransactionInstruction({ programId: clone, keys: [], data: Buffer.from([1]) }),
    );
    const ran = await sendAndConfirmTransaction(conn, run, [payer], { commitment: 'confirmed' });
    const logs = (await conn.getTransaction(ran, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!
      .logMessages!;
    assert.equal(logs[0], `Program ${clone.toBase58()} invoke [1]`);

    const local = JSON.parse(await call('surfnet_getLocalSignatures', [2]));
    assert.deepEqual(local.result.value, [
      { signature: ran, err: null, logs },
      {
        signature: sent,
        err: null,
        logs: (await conn.getTransaction(sent, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!
          .logMessages,
      },
    ]);
    assert.deepEqual(JSON.parse(await call('surfnet_getLocalSignatures', [0])).result.value, []);
  } finally {
    await call('surfnet_pauseClock', []);
  }
});

test('getSurfnetInfo; what is not served is method not found', async () => {
  assert.equal(
    await call('surfnet_getSurfnetInfo', []),
    `{"jsonrpc":"2.0","result":{"context":{"slot":${slot()},"apiVersion":"0.0.0-test"},"value":{"runbookExecutions":[]}},"id":1}`,
  );
  for (const m of [
    'surfnet_resetNetwork',
    'surfnet_profileTransaction',
    'surfnet_writeProgram',
    'surfnet_enableCheatcode',
  ])
    assert.equal(await call(m, []), '{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found"},"id":1}');
});

test('bad params are -32602 naming the problem', async () => {
  const k = key().toBase58();
  const owner = key().toBase58();
  const mint = key().toBase58();
  const cases: [string, unknown[], string][] = [
    ['surfnet_setAccount', [k], 'expected at least 2 params, got 1'],
    ['surfnet_setAccount', ['nope', {}], 'invalid pubkey "nope": 3 bytes, expected 32'],
    ['surfnet_setAccount', [k, { data: 'abc' }], 'data: invalid hex, odd number of digits'],
    ['surfnet_setAccount', [k, { data: '0xab' }], 'data: invalid hex character "x" at position 1'],
    ['surfnet_setAccount', [k, { data: [1, 2] }], 'data: expected a hex string, got an array'],
    ['surfnet_setAccount', [k, { lamports: -1 }], 'lamports: expected a u64 integer, got number -1'],
    ['surfnet_setAccount', [k, { lamports: 1.5 }], 'lamports: expected a u64 integer, got number 1.5'],
    [
      'surfnet_setAccount',
      [k, { rent_epoch: 0 }],
      'update: unknown field "rent_epoch", expected one of lamports, data, owner, executable, rentEpoch',
    ],
    ['surfnet_setAccount', [k, 'x'], 'update: expected an object, got string "x"'],
    ['surfnet_setAccount', [k, { owner: 'x' }], 'invalid owner "x": 1 bytes, expected 32'],
    ['surfnet_setAccount', [k, { executable: 1 }], 'executable: expected a boolean, got number 1'],
    ['surfnet_setTokenAccount', [owner, mint], 'expected at least 3 params, got 2'],
    [
      'surfnet_setTokenAccount',
      [owner, mint, { state: 'closed' }],
      'state: expected one of uninitialized, initialized, frozen, got string "closed"',
    ],
    ['surfnet_setTokenAccount', [owner, mint, { delegate: 'x' }], 'invalid delegate "x": 1 bytes, expected 32'],
    ['surfnet_setTokenAccount', [owner, mint, { amount: '5' }], 'amount: expected a u64 integer, got string "5"'],
    [
      'surfnet_setTokenAccount',
      [owner, mint, {}, k],
      `token program: expected ${TOKEN_PROGRAM_ID.toBase58()} or ${TOKEN_2022_PROGRAM_ID.toBase58()}`,
    ],
    ['surfnet_resetAccount', [k, 'all'], 'config: expected an object, got string "all"'],
    ['surfnet_getLocalSignatures', [5000], 'limit: at most 1000, got 5000'],
    ['surfnet_cloneProgramAccount', [k], 'expected at least 2 params, got 1'],
  ];
  for (const [method, params, message] of cases) assert.equal(await call(method, params), invalid(message), method);
  // An executable account the VM cannot load is refused, and nothing is written.
  assert.equal(
    await call('surfnet_setAccount', [
      k,
      { lamports: 1, data: '00', owner: LOADER.toBase58(), executable: true, rentEpoch: 0 },
    ]),
    invalid(`the VM refuses account ${k}: Failed to set account: invalid account data for instruction`),
  );
  assert.equal(await conn.getAccountInfo(new PublicKey(k)), null);
});
