#!/bin/sh
# On a GPU host, one command: build zkgate-prove and libzkgate_cuda.so with the host's g++ and nvcc
# (no Node, no registry), then check the device against the CPU and measure it.
#
#   sh native/gpu-host/run.sh KEYS_DIR OUT_DIR
#
# KEYS_DIR: what `zkgate keys export SHAPE… --out KEYS_DIR --witnesses N` wrote on a development
# machine (zkeys, sample .wtns, public.json, vk.json, manifest.json). OUT_DIR receives the results:
# devices.txt, self-check.txt, msm-check.txt, check-SHAPE.txt (+ the device's proofs as JSON, to be
# verified back home with snarkjs), bad-witness.txt, bench.txt (RESULT lines), and build.log.
# Shapes whose keys are too big to carry are timed with synthetic keys of their sizes:
#   RANDOM_SHAPES="name=VARS:DOMAIN:PUBLIC …" (defaults below are estimates from Light's constraint
#   counts; replace them with the real sizes printed by `zkgate-prove bench --zkey` at home).
set -u
KEYS=${1:?usage: run.sh KEYS_DIR OUT_DIR}
OUT=${2:?usage: run.sh KEYS_DIR OUT_DIR}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT/proofs"
BUILD="$OUT/build"
mkdir -p "$BUILD"
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CXX=${CXX:-g++}
RANDOM_SHAPES=${RANDOM_SHAPES:-"v1_inclusion_26_8=51000:65536:2 v2_inclusion_32_20=170000:262144:1"}
BATCH=${BATCH:-64}

{
  echo "== build ($(date -u))"
  "$NVCC" --version | tail -1
  # Every core source but the Node addon's.
  # shellcheck disable=SC2046
  "$CXX" -std=c++17 -O3 -march=native -pthread -I"$HERE/src" "$HERE/tools/zkgate-prove.cpp" \
    $(ls "$HERE"/src/*.cpp | grep -v '/addon\.cpp$') -o "$BUILD/zkgate-prove" -ldl &
  "$NVCC" -std=c++17 -O3 --extended-lambda -Xcompiler -fPIC,-fvisibility=hidden,-O1 -shared \
    -gencode=arch=compute_90,code=sm_90 -cudart static "$HERE/src/cuda/zkgate_cuda.cu" \
    -o "$BUILD/libzkgate_cuda.so"
  wait
} >"$OUT/build.log" 2>&1
P="$BUILD/zkgate-prove"
[ -x "$P" ] && [ -f "$BUILD/libzkgate_cuda.so" ] || { echo "build failed: see $OUT/build.log"; exit 1; }

"$P" devices >"$OUT/devices.txt" 2>&1
"$P" self-check --backend cuda >"$OUT/self-check.txt" 2>&1
# MSMs of random sizes 1 … 2^20, G1 and G2, against the CPU.
"$P" msm-check --backend cuda --group both --max-log 20 >"$OUT/msm-check.txt" 2>&1

# Real small keys: device proofs equal CPU proofs byte for byte with the same r and s; the device's
# proofs are written out for verification at home.
for zkey in "$KEYS"/*.zkey; do
  [ -f "$zkey" ] || continue
  shape=$(basename "$zkey" .zkey)
  set -- "$KEYS/$shape".*.wtns
  args=""
  for w in "$@"; do args="$args --wtns $w"; done
  # shellcheck disable=SC2086
  "$P" check --backend cuda --zkey "$zkey" $args --proof "$OUT/proofs/$shape.json" >"$OUT/check-$shape.txt" 2>&1
done

# A batch with one bad witness: only that proof fails.
first=$(ls "$KEYS"/*.zkey 2>/dev/null | head -1)
if [ -n "$first" ]; then
  shape=$(basename "$first" .zkey)
  "$P" bad-batch --backend cuda --zkey "$first" --wtns "$KEYS/$shape.0.wtns" --batch 4 >"$OUT/bad-witness.txt" 2>&1
fi

{
  echo "== latency, one proof at a time"
  for zkey in "$KEYS"/*.zkey; do
    [ -f "$zkey" ] || continue
    shape=$(basename "$zkey" .zkey)
    echo "-- $shape (real key)"
    "$P" bench --backend cuda --zkey "$zkey" --wtns "$KEYS/$shape.0.wtns" --n 50 --batch 1 --wait-us 0
  done
  for spec in $RANDOM_SHAPES; do
    echo "-- ${spec%%=*} (synthetic key ${spec#*=})"
    "$P" bench --backend cuda --random "${spec#*=}" --n 30 --batch 1 --wait-us 0
  done
  echo "== batched throughput"
  for zkey in "$KEYS"/v1_inclusion_26_1.zkey; do
    [ -f "$zkey" ] || continue
    for b in 16 "$BATCH" 128; do
      echo "-- v1_inclusion_26_1 batch $b"
      "$P" bench --backend cuda --zkey "$zkey" --wtns "$KEYS/v1_inclusion_26_1.0.wtns" --n $((b * 16)) --batch "$b" --wait-us 2000
    done
  done
  echo "== CPU on this host, same keys (the baseline of this run)"
  for zkey in "$KEYS"/v1_inclusion_26_1.zkey; do
    [ -f "$zkey" ] || continue
    "$P" bench --backend cpu --zkey "$zkey" --wtns "$KEYS/v1_inclusion_26_1.0.wtns" --n 64 --batch 16
  done
} >"$OUT/bench.txt" 2>&1
grep -h RESULT "$OUT/bench.txt" || true
echo "results in $OUT"
