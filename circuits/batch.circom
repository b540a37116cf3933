pragma circom 2.1.0;

// Light's batch circuits, which a forester proves to move a zkp batch of a V2 queue into its tree
// (compression-e2e.md §2): append (output queue → state tree) and update (input queue → nullifiers
// in the state tree); the address append is a structured circuit (src/zk/structured/). Each has
// one public input, the Poseidon hash chain the account-compression program recomputes from the
// tree and queue accounts; everything else is private and bound by it. Leaves are updated one after the other,
// each path taken against the tree the previous updates left.
include "circomlib/circuits/bitify.circom";
include "circomlib/circuits/comparators.circom";
include "./lib/poseidon.circom";

// h = x[0]; h = Poseidon2(h, x[i]): Light's create_hash_chain.
template HashChain(n) {
    signal input in[n];
    signal output out;
    component h[n];
    var acc = in[0];
    for (var i = 1; i < n; i++) {
        h[i] = PoseidonHash(2);
        h[i].inputs[0] <== acc;
        h[i].inputs[1] <== in[i];
        acc = h[i].out;
    }
    out <== acc;
}

// Root of a path from `leaf`, given the index bits (bit k = 1: the node is a right child at level k).
template PathRoot(height) {
    signal input leaf;
    signal input bits[height];
    signal input siblings[height];
    signal output root;
    component hashers[height];
    signal swap[height];
    var cur = leaf;
    for (var k = 0; k < height; k++) {
        swap[k] <== bits[k] * (siblings[k] - cur);
        hashers[k] = PoseidonHash(2);
        hashers[k].inputs[0] <== cur + swap[k];
        hashers[k].inputs[1] <== siblings[k] - swap[k];
        cur = hashers[k].out;
    }
    root <== cur;
}

// One leaf change: the old leaf is at `index` under `oldRoot`; the same path with the new leaf
// gives `newRoot`. The index has exactly `height` bits (a larger one has no witness).
template LeafUpdate(height) {
    signal input oldRoot;
    signal input oldLeaf;
    signal input newLeaf;
    signal input index;
    signal input siblings[height];
    signal output newRoot;

    component bits = Num2Bits(height);
    bits.in <== index;
    component before = PathRoot(height);
    before.leaf <== oldLeaf;
    before.bits <== bits.out;
    before.siblings <== siblings;
    before.root === oldRoot;
    component after = PathRoot(height);
    after.leaf <== newLeaf;
    after.bits <== bits.out;
    after.siblings <== siblings;
    newRoot <== after.root;
}

// One level of the subtree over a range of consecutive positions: `W` window slots hold the
// range's nodes at this level (positions a..a+count-1, slot i = position a+i; slots at and past
// `count` are unused), and the next level's W\2+1 slots are hashed from them. A child outside the
// range is a boundary sibling: `left` (position a-1, used when a is odd) or `right` (position
// a+count, used when the last node is a left child); both are unchanged by the batch.
template RangeLevel(W) {
    var P = W \ 2 + 1;
    signal input nodes[W];
    signal input inRange[W];
    signal input odd;
    signal input left;
    signal input right;
    signal output parents[P];

    signal v[W];
    for (var i = 0; i < W; i++) v[i] <== right + inRange[i] * (nodes[i] - right);
    signal l[P];
    signal r[P];
    component h[P];
    for (var j = 0; j < P; j++) {
        // Children at slots 2j, 2j+1 when a is even, 2j-1, 2j when it is odd.
        var e0 = right;
        if (2 * j < W) e0 = v[2 * j];
        var o0 = right;
        if (j == 0) {
            o0 = left;
        } else if (2 * j - 1 < W) {
            o0 = v[2 * j - 1];
        }
        var e1 = right;
        if (2 * j + 1 < W) e1 = v[2 * j + 1];
        l[j] <== e0 + odd * (o0 - e0);
        r[j] <== e1 + odd * (e0 - e1);
        h[j] = PoseidonHash(2);
        h[j].inputs <== [l[j], r[j]];
        parents[j] <== h[j].out;
    }
}

// Where a range of n consecutive leaves from `start` lies at each level of a tree of `height`:
// the parity of its first position and which window slots are in range. The range must end
// inside the tree.
template RangeLayout(n, height) {
    signal input start;
    signal output odd[height];
    signal output inRange[height][n];

    component first = Num2Bits(height);
    first.in <== start;
    component last = Num2Bits(height);
    last.in <== start + n - 1;
    signal sel[height][n];
    var w = n;
    for (var lv = 0; lv < height; lv++) {
        odd[lv] <== first.out[lv];
        // span = (last >> lv) - (first >> lv) = the range's node count at this level, minus one.
        var span = 0;
        for (var k = lv; k < height; k++) span += (last.out[k] - first.out[k]) * (1 << (k - lv));
        var sum = 0;
        var weighted = 0;
        for (var i = 0; i < w; i++) {
            sel[lv][i] <-- span == i ? 1 : 0;
            sel[lv][i] * (sel[lv][i] - 1) === 0;
            sum += sel[lv][i];
            weighted += i * sel[lv][i];
        }
        sum === 1;
        weighted === span;
        var suffix = 0;
        for (var i = w - 1; i >= 0; i--) {
            suffix += sel[lv][i];
            inRange[lv][i] <== suffix;
        }
        for (var i = w; i < n; i++) {
            sel[lv][i] <== 0;
            inRange[lv][i] <== 0;
        }
        w = w \ 2 + 1;
    }
}

// Root of a tree from the leaves of a range and the boundary siblings at each level: the union of
// the range's paths, hashed once (about 2n + height hashes instead of n * height).
template RangeRoot(n, height) {
    signal input leaves[n];
    signal input odd[height];
    signal input inRange[height][n];
    signal input leftSiblings[height];
    signal input rightSiblings[height];
    signal output root;

    component level[height];
    var w = n;
    for (var lv = 0; lv < height; lv++) {
        level[lv] = RangeLevel(w);
        for (var i = 0; i < w; i++) {
            if (lv == 0) {
                level[lv].nodes[i] <== leaves[i];
            } else {
                level[lv].nodes[i] <== level[lv - 1].parents[i];
            }
            level[lv].inRange[i] <== inRange[lv][i];
        }
        level[lv].odd <== odd[lv];
        level[lv].left <== leftSiblings[lv];
        level[lv].right <== rightSiblings[lv];
        w = w \ 2 + 1;
    }
    root <== level[height - 1].parents[0];
}

// Output-queue leaves appended at startIndex..startIndex+n-1. A position whose leaf is not zero
// already holds the leaf's nullifier (an update overtook the append) and keeps it. The old and the
// new root are both hashed over the range with the same boundary siblings.
template BatchAppend(n, height) {
    signal input publicInputHash;
    signal input oldRoot;
    signal input newRoot;
    signal input leavesHashchainHash;
    signal input startIndex;
    signal input oldLeaves[n];
    signal input leaves[n];
    signal input leftSiblings[height];
    signal input rightSiblings[height];

    component pih = HashChain(4);
    pih.in <== [oldRoot, newRoot, leavesHashchainHash, startIndex];
    pih.out === publicInputHash;
    component chain = HashChain(n);
    chain.in <== leaves;
    chain.out === leavesHashchainHash;

    component layout = RangeLayout(n, height);
    layout.start <== startIndex;
    component empty[n];
    signal newLeaves[n];
    for (var i = 0; i < n; i++) {
        empty[i] = IsZero();
        empty[i].in <== oldLeaves[i];
        newLeaves[i] <== oldLeaves[i] + empty[i].out * leaves[i];
    }
    component before = RangeRoot(n, height);
    before.leaves <== oldLeaves;
    before.odd <== layout.odd;
    before.inRange <== layout.inRange;
    before.leftSiblings <== leftSiblings;
    before.rightSiblings <== rightSiblings;
    before.root === oldRoot;
    component after = RangeRoot(n, height);
    after.leaves <== newLeaves;
    after.odd <== layout.odd;
    after.inRange <== layout.inRange;
    after.leftSiblings <== leftSiblings;
    after.rightSiblings <== rightSiblings;
    after.root === newRoot;
}

// Input-queue entries nullified: leaf pathIndices[i] becomes Poseidon3(leaf, index, txHash). The
// position holds the account (appended) or zero (still in the output queue), nothing else.
template BatchUpdate(n, height) {
    signal input publicInputHash;
    signal input oldRoot;
    signal input newRoot;
    signal input leavesHashchainHash;
    signal input txHashes[n];
    signal input leaves[n];
    signal input oldLeaves[n];
    signal input merkleProofs[n][height];
    signal input pathIndices[n];

    component pih = HashChain(3);
    pih.in <== [oldRoot, newRoot, leavesHashchainHash];
    pih.out === publicInputHash;

    component nullifier[n];
    component update[n];
    component chain = HashChain(n);
    var root = oldRoot;
    for (var i = 0; i < n; i++) {
        nullifier[i] = PoseidonHash(3);
        nullifier[i].inputs[0] <== leaves[i];
        nullifier[i].inputs[1] <== pathIndices[i];
        nullifier[i].inputs[2] <== txHashes[i];
        chain.in[i] <== nullifier[i].out;
        oldLeaves[i] * (oldLeaves[i] - leaves[i]) === 0;
        update[i] = LeafUpdate(height);
        update[i].oldRoot <== root;
        update[i].oldLeaf <== oldLeaves[i];
        update[i].newLeaf <== nullifier[i].out;
        update[i].index <== pathIndices[i];
        update[i].siblings <== merkleProofs[i];
        root = update[i].newRoot;
    }
    chain.out === leavesHashchainHash;
    root === newRoot;
}
