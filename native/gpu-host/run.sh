#!/bin/sh
# On a GPU host, one command (no Node, no registry): build zkgate-prove, the C++ self-test and
# libzkgate_cuda.so with the host's g++ and nvcc, then, in this order, each step under a time limit:
#   1. compute-sanitizer memcheck on the self-check and on MSMs of 1 … 2^16 points (G1 and G2);
#   2. the self-check, and MSMs up to 2^20 against the CPU (with their times);
#   3. byte-for-byte checks of real keys: every dev key in BUNDLE/keys (one at a time and as one
#      batch; the device's proofs kept for snarkjs at home) and every Light key in BUNDLE/light
#      (solved from its inputs, through the engine's Compute);
#   4. a batch with one bad witness (4 and 16 callers): only that proof fails;
#   5. figures: latency of each key, batched throughput of v1_inclusion_26_1, synthetic keys of the
#      forester's batch circuits' sizes, and this host's CPU backend as the same run's baseline;
#   6. this host's CPU: the eight-lane (AVX-512 IFMA) self-test, and Light's prover binary against
#      zkgate's CPU prover on Light's own key (curl drives Light's /prove);
# then prints a one-screen summary (also OUT/summary.txt).
#
#   sh native/gpu-host/run.sh BUNDLE OUT
#
# BUNDLE: what `npm run gpu-bundle -- BUNDLE [--set a|b]` wrote at home (keys/, light/). OUT gets
# build.log, one file per step, proofs/, and summary.txt. About 7 minutes on an H200 host.
set -u
BUNDLE=${1:?usage: run.sh BUNDLE OUT}
OUT=${2:?usage: run.sh BUNDLE OUT}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT/proofs" "$OUT/build"
BUILD="$OUT/build"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
SANITIZER=${SANITIZER:-$(command -v compute-sanitizer || echo "$(dirname "$NVCC")/compute-sanitizer")}
CXX=${CXX:-g++}
# BACKEND=emulate runs every step on host threads instead of the device: a dry run of this script
# on a machine without a GPU (the CUDA library is then not built, and memcheck is skipped).
BACKEND=${BACKEND:-cuda}
# name=VARS:DOMAIN:PUBLIC. The batch circuits' sizes are zkgate's structured circuits' (measured
# from their dev keys' headers); Light's gnark circuits of the same statements are smaller.
RANDOM_BIG=${RANDOM_BIG:-"batch_append_32_500=1873500:2097152:1 batch_update_32_500=8008000:8388608:1"}
STARTED=$(date +%s)
say() { echo "$*" | tee -a "$OUT/summary.txt"; }
# step SECONDS FILE command…: the command's output into OUT/FILE, killed past SECONDS.
step() {
  limit=$1 file=$2
  shift 2
  timeout "$limit" "$@" >"$OUT/$file" 2>&1
  rc=$?
  [ $rc -eq 124 ] && echo "(stopped after ${limit} s)" >>"$OUT/$file"
  return $rc
}
: >"$OUT/summary.txt"

{
  echo "== build ($(date -u))"
  "$NVCC" --version | tail -1
  # Every core source but the Node addon's; the self-test is a unity build of the same sources.
  # shellcheck disable=SC2046
  "$CXX" -std=c++17 -O3 -march=native -pthread -I"$HERE/src" "$HERE/tools/zkgate-prove.cpp" \
    $(ls "$HERE"/src/*.cpp | grep -v '/addon\.cpp$') -o "$BUILD/zkgate-prove" -ldl &
  # shellcheck disable=SC2046
  "$CXX" -std=c++17 -O2 -march=native -pthread -I"$HERE/src" "$HERE/test/selftest.cpp" \
    $(ls "$HERE"/src/*.cpp | grep -v '/addon\.cpp$') -o "$BUILD/selftest" -ldl &
  # -lineinfo: compute-sanitizer then names the source line of a fault.
  [ "$BACKEND" = cuda ] && "$NVCC" -std=c++17 -O3 -lineinfo --extended-lambda -Xcompiler -fPIC,-fvisibility=hidden,-O1 -shared \
    -gencode=arch=compute_90,code=sm_90 -cudart static "$HERE/src/cuda/zkgate_cuda.cu" \
    -o "$BUILD/libzkgate_cuda.so" -Xptxas -v
  wait
} >"$OUT/build.log" 2>&1
P="$BUILD/zkgate-prove"
if ! [ -x "$P" ] || { [ "$BACKEND" = cuda ] && ! [ -f "$BUILD/libzkgate_cuda.so" ]; }; then
  echo "build failed: see $OUT/build.log"
  exit 1
fi
say "zkgate GPU host run, $(date -u '+%Y-%m-%d %H:%M UTC'), bundle $BUNDLE"
"$P" devices >"$OUT/devices.txt" 2>&1
say "$(grep -m1 '^device 0' "$OUT/devices.txt" || head -1 "$OUT/devices.txt")"
say "host CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) threads, IFMA: $(grep -qw avx512ifma /proc/cpuinfo && echo yes || echo no)"

# 1. Memory errors first: a fault here explains everything after it.
if [ "$BACKEND" != cuda ]; then
  say "1 memcheck: skipped (backend $BACKEND)"
elif [ -x "$SANITIZER" ]; then
  step 120 sanitizer-self-check.txt "$SANITIZER" --tool memcheck --error-exitcode 9 "$P" self-check --backend "$BACKEND"
  a=$?
  step 150 sanitizer-msm.txt "$SANITIZER" --tool memcheck --error-exitcode 9 "$P" msm-check --backend "$BACKEND" \
    --group both --sizes 1,2,3,7,8,15,16,17,31,32,33,100,255,256,257,1000,4096,65536
  b=$?
  say "1 memcheck: self-check rc $a, MSMs 1..2^16 rc $b ($(grep -c 'Invalid' "$OUT/sanitizer-self-check.txt" "$OUT/sanitizer-msm.txt" | awk -F: '{s+=$2} END {print s+0}') invalid accesses)"
else
  say "1 memcheck: no compute-sanitizer at $SANITIZER"
fi

# 2. The gateway's self-check; MSMs up to 2^20, timed.
step 60 self-check.txt "$P" self-check --backend "$BACKEND"
say "2 self-check: $(tail -1 "$OUT/self-check.txt")"
step 120 msm-check.txt "$P" msm-check --backend "$BACKEND" --group both --sizes 1,7,100,4096,65536,1048576
say "2 MSMs: $(tail -1 "$OUT/msm-check.txt"); $(grep -E '^G[12] n=(65536|1048576) ' "$OUT/msm-check.txt" | awk '{printf "%s 2^%d %s ms (cpu %s); ", $1, ($2=="n=65536")?16:20, $7, $4}')"

# 3. Real keys, byte for byte.
for zkey in "$BUNDLE"/keys/*.zkey; do
  [ -f "$zkey" ] || continue
  shape=$(basename "$zkey" .zkey)
  set -- "$BUNDLE/keys/$shape".*.wtns
  args=""
  for w in "$@"; do args="$args --wtns $w"; done
  # shellcheck disable=SC2086
  step 90 "check-$shape.txt" "$P" check --backend "$BACKEND" --zkey "$zkey" $args --proof "$OUT/proofs/$shape.json"
  say "3 check $shape: rc $? $(grep -c 'equal' "$OUT/check-$shape.txt") equal, $(grep -ci 'differ\|mismatch' "$OUT/check-$shape.txt") differ"
done
for zkey in "$BUNDLE"/light/*.zkey; do
  [ -f "$zkey" ] || continue
  shape=$(basename "$zkey" .zkey)
  set -- "$BUNDLE/light/$shape".*.bin
  args=""
  for i in "$@"; do args="$args --inputs $i"; done
  # shellcheck disable=SC2086
  step 90 "check-inputs-$shape.txt" "$P" check-inputs --backend "$BACKEND" --zkey "$zkey" $args --n 20 \
    --proof "$OUT/proofs/light-$shape.json"
  say "3 check-inputs $shape (Light's key): rc $? $(grep -c ': equal' "$OUT/check-inputs-$shape.txt") equal; $(grep '^p50' "$OUT/check-inputs-$shape.txt")"
done

# 4. One bad witness among the callers.
first=$(ls "$BUNDLE"/keys/*.zkey 2>/dev/null | head -1)
if [ -n "$first" ]; then
  shape=$(basename "$first" .zkey)
  for b in 4 16; do
    step 60 "bad-batch-$b.txt" "$P" bad-batch --backend "$BACKEND" --zkey "$first" --wtns "$BUNDLE/keys/$shape.0.wtns" --batch "$b"
    say "4 bad-batch $shape x$b: rc $? $(tail -1 "$OUT/bad-batch-$b.txt")"
  done
fi

# 5. Figures, the host's CPU in the same run as the baseline.
result() { grep -h '^RESULT' "$OUT/$1" | tail -1 | cut -c8- | grep . || echo "no result (see $1)"; }
for zkey in "$BUNDLE"/keys/*.zkey; do
  [ -f "$zkey" ] || continue
  shape=$(basename "$zkey" .zkey)
  step 60 "latency-$shape.txt" "$P" bench --backend "$BACKEND" --zkey "$zkey" --wtns "$BUNDLE/keys/$shape.0.wtns" --n 50 --batch 1 --wait-us 0
  step 60 "latency-cpu-$shape.txt" "$P" bench --backend cpu --zkey "$zkey" --wtns "$BUNDLE/keys/$shape.0.wtns" --n 20 --batch 1
  say "5 latency $shape: $BACKEND $(result "latency-$shape.txt") | cpu $(result "latency-cpu-$shape.txt")"
done
if [ -f "$BUNDLE/keys/v1_inclusion_26_1.zkey" ]; then
  for b in 16 64 256; do
    step 60 "batch-$b.txt" "$P" bench --backend "$BACKEND" --zkey "$BUNDLE/keys/v1_inclusion_26_1.zkey" \
      --wtns "$BUNDLE/keys/v1_inclusion_26_1.0.wtns" --n $((b * 8)) --batch "$b" --wait-us 2000
    say "5 batched v1_inclusion_26_1 x$b: $(result "batch-$b.txt")"
  done
  step 60 batch-cpu.txt "$P" bench --backend cpu --zkey "$BUNDLE/keys/v1_inclusion_26_1.zkey" \
    --wtns "$BUNDLE/keys/v1_inclusion_26_1.0.wtns" --n 128 --batch "$(nproc)"
  say "5 CPU v1_inclusion_26_1 x$(nproc): $(result batch-cpu.txt)"
fi
for spec in $RANDOM_BIG; do
  name=${spec%%=*}
  step 90 "big-$name.txt" "$P" bench --backend "$BACKEND" --random "${spec#*=}" --n 2 --batch 1 --wait-us 0
  step 120 "big-cpu-$name.txt" "$P" bench --backend cpu --random "${spec#*=}" --n 1 --batch 1
  say "5 $name (synthetic ${spec#*=}): $BACKEND $(result "big-$name.txt") | cpu $(result "big-cpu-$name.txt")"
done

# 6. This host's CPU: the eight-lane self-test, and Light's prover against zkgate's on Light's key.
step 120 selftest.txt "$BUILD/selftest"
say "6 CPU self-test: rc $? $(grep -m1 'eight-lane' "$OUT/selftest.txt")"
LIGHT="$BUNDLE/light"
if [ -f "$LIGHT/prover-linux-x64" ]; then
  key=$(ls "$LIGHT"/*.key 2>/dev/null | head -1)
  body=$(ls "$LIGHT"/*.body.json 2>/dev/null | head -1)
  keys="$OUT/light-keys"
  mkdir -p "$keys"
  # Light's server loads every inclusion key name it knows: each name links to the one key carried.
  for n in 1 2 3 4 8; do
    ln -sf "$(cd "$(dirname "$key")" && pwd)/$(basename "$key")" "$keys/mainnet_inclusion_26_$n.key"
    ln -sf "$(cd "$(dirname "$key")" && pwd)/$(basename "$key")" "$keys/inclusion_32_$n.key"
  done
  bin="$BUILD/prover-linux-x64"
  cp "$LIGHT/prover-linux-x64" "$bin" && chmod +x "$bin"
  "$bin" start --keys-dir "$keys/" --circuit inclusion --prover-address 127.0.0.1:39101 \
    --metrics-address 127.0.0.1:39102 >"$OUT/light-server.log" 2>&1 &
  light=$!
  up=0
  for _ in $(seq 1 300); do
    curl -sf http://127.0.0.1:39101/health >/dev/null 2>&1 && up=1 && break
    sleep 0.2
  done
  if [ $up -eq 1 ]; then
    # 5 warm-up proofs, then 30 timed one at a time (seconds each, curl's own clock).
    for _ in 1 2 3 4 5; do curl -s -o /dev/null --data-binary @"$body" -H 'content-type: application/json' http://127.0.0.1:39101/prove; done
    for _ in $(seq 1 30); do
      curl -s -o /dev/null -w '%{time_total}\n' --data-binary @"$body" -H 'content-type: application/json' http://127.0.0.1:39101/prove
    done >"$OUT/light-latency.txt"
    p50=$(sort -n "$OUT/light-latency.txt" | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}')
    say "6 Light's prover, $(basename "$key"), one at a time over HTTP: p50 $p50 ms (zkgate's CPU on the same key: see check-inputs above)"
  else
    say "6 Light's prover did not start: see $OUT/light-server.log"
  fi
  kill "$light" 2>/dev/null
fi
say "done in $(($(date +%s) - STARTED)) s; files in $OUT"
