pragma circom 2.1.0;

// Light's V2 circuits: state trees of height 32, address trees of height 40, and one public
// input, publicInputHash = TwoInputsHashChain(roots, leaves) / (addressRoots, values) /
// Poseidon2(both) for combined proofs. Roots, leaves and addresses are private, bound by the hash.
include "./lib/proofs.circom";
include "./lib/hash_chain.circom";

template V2Inclusion(n) {
    signal input publicInputHash;
    signal input roots[n];
    signal input leaves[n];
    signal input inPathIndices[n];
    signal input inPathElements[n][32];

    component inc = InclusionProofs(n, 32);
    inc.roots <== roots;
    inc.leaves <== leaves;
    inc.inPathIndices <== inPathIndices;
    inc.inPathElements <== inPathElements;

    component chain = TwoInputsHashChain(n);
    chain.first <== roots;
    chain.second <== leaves;
    chain.out === publicInputHash;
}

template V2NonInclusion(n) {
    signal input publicInputHash;
    signal input addressRoots[n];
    signal input values[n];
    signal input lowValues[n];
    signal input nextValues[n];
    signal input addrPathIndices[n];
    signal input addrPathElements[n][40];

    component non = NonInclusionProofsV2(n, 40);
    non.addressRoots <== addressRoots;
    non.values <== values;
    non.lowValues <== lowValues;
    non.nextValues <== nextValues;
    non.addrPathIndices <== addrPathIndices;
    non.addrPathElements <== addrPathElements;

    component chain = TwoInputsHashChain(n);
    chain.first <== addressRoots;
    chain.second <== values;
    chain.out === publicInputHash;
}

template V2Combined(nInc, nNon) {
    signal input publicInputHash;
    signal input roots[nInc];
    signal input leaves[nInc];
    signal input inPathIndices[nInc];
    signal input inPathElements[nInc][32];
    signal input addressRoots[nNon];
    signal input values[nNon];
    signal input lowValues[nNon];
    signal input nextValues[nNon];
    signal input addrPathIndices[nNon];
    signal input addrPathElements[nNon][40];

    component inc = InclusionProofs(nInc, 32);
    inc.roots <== roots;
    inc.leaves <== leaves;
    inc.inPathIndices <== inPathIndices;
    inc.inPathElements <== inPathElements;

    component non = NonInclusionProofsV2(nNon, 40);
    non.addressRoots <== addressRoots;
    non.values <== values;
    non.lowValues <== lowValues;
    non.nextValues <== nextValues;
    non.addrPathIndices <== addrPathIndices;
    non.addrPathElements <== addrPathElements;

    component incChain = TwoInputsHashChain(nInc);
    incChain.first <== roots;
    incChain.second <== leaves;
    component nonChain = TwoInputsHashChain(nNon);
    nonChain.first <== addressRoots;
    nonChain.second <== values;
    component both = PoseidonHash(2);
    both.inputs[0] <== incChain.out;
    both.inputs[1] <== nonChain.out;
    both.out === publicInputHash;
}
