pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";
include "./poseidon.circom";

// Root of the Merkle path from `leaf` at `pathIndex`. The index is decomposed into exactly
// `height` bits (so an index >= 2^height has no witness); bit k = 1 means the current node is the
// right child at level k: parent = H(sibling, current), else H(current, sibling).
template MerkleRoot(height) {
    signal input leaf;
    signal input pathIndex;
    signal input pathElements[height];
    signal output root;

    component bits = Num2Bits(height);
    bits.in <== pathIndex;

    component hashers[height];
    signal swap[height];
    var cur = leaf;
    for (var k = 0; k < height; k++) {
        // swap = bit * (sibling - current): left = current + swap, right = sibling - swap.
        swap[k] <== bits.out[k] * (pathElements[k] - cur);
        hashers[k] = PoseidonHash(2);
        hashers[k].inputs[0] <== cur + swap[k];
        hashers[k].inputs[1] <== pathElements[k] - swap[k];
        cur = hashers[k].out;
    }
    root <== cur;
}
