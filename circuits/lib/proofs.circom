pragma circom 2.1.0;

include "./merkle.circom";
include "./range.circom";
include "./poseidon.circom";

// Inclusion of n leaves, each in a tree of the given height under the given root.
template InclusionProofs(n, height) {
    signal input roots[n];
    signal input leaves[n];
    signal input inPathIndices[n];
    signal input inPathElements[n][height];

    component paths[n];
    for (var i = 0; i < n; i++) {
        paths[i] = MerkleRoot(height);
        paths[i].leaf <== leaves[i];
        paths[i].pathIndex <== inPathIndices[i];
        paths[i].pathElements <== inPathElements[i];
        paths[i].root === roots[i];
    }
}

// One new address: strictly between the low element's value and its next value, and the low
// element's leaf (computed by the caller, V1 or V2 layout) is in the tree under `root`.
template AddressNotInTree(height) {
    signal input root;
    signal input value;
    signal input lowValue;
    signal input nextValue;
    signal input lowLeaf;
    signal input pathIndex;
    signal input pathElements[height];

    component above = AssertLess248();
    above.a <== lowValue;
    above.b <== value;
    component below = AssertLess248();
    below.a <== value;
    below.b <== nextValue;

    component path = MerkleRoot(height);
    path.leaf <== lowLeaf;
    path.pathIndex <== pathIndex;
    path.pathElements <== pathElements;
    path.root === root;
}

// V1 indexed trees: leaf = Poseidon3(value, nextIndex, nextValue).
template NonInclusionProofsV1(n, height) {
    signal input addressRoots[n];
    signal input values[n];
    signal input lowValues[n];
    signal input nextValues[n];
    signal input nextIndices[n];
    signal input addrPathIndices[n];
    signal input addrPathElements[n][height];

    component leaf[n];
    component check[n];
    for (var i = 0; i < n; i++) {
        leaf[i] = PoseidonHash(3);
        leaf[i].inputs[0] <== lowValues[i];
        leaf[i].inputs[1] <== nextIndices[i];
        leaf[i].inputs[2] <== nextValues[i];
        check[i] = AddressNotInTree(height);
        check[i].root <== addressRoots[i];
        check[i].value <== values[i];
        check[i].lowValue <== lowValues[i];
        check[i].nextValue <== nextValues[i];
        check[i].lowLeaf <== leaf[i].out;
        check[i].pathIndex <== addrPathIndices[i];
        check[i].pathElements <== addrPathElements[i];
    }
}

// V2 indexed trees: leaf = Poseidon2(value, nextValue); nextIndex is not hashed.
template NonInclusionProofsV2(n, height) {
    signal input addressRoots[n];
    signal input values[n];
    signal input lowValues[n];
    signal input nextValues[n];
    signal input addrPathIndices[n];
    signal input addrPathElements[n][height];

    component leaf[n];
    component check[n];
    for (var i = 0; i < n; i++) {
        leaf[i] = PoseidonHash(2);
        leaf[i].inputs[0] <== lowValues[i];
        leaf[i].inputs[1] <== nextValues[i];
        check[i] = AddressNotInTree(height);
        check[i].root <== addressRoots[i];
        check[i].value <== values[i];
        check[i].lowValue <== lowValues[i];
        check[i].nextValue <== nextValues[i];
        check[i].lowLeaf <== leaf[i].out;
        check[i].pathIndex <== addrPathIndices[i];
        check[i].pathElements <== addrPathElements[i];
    }
}
