pragma circom 2.1.0;

// Light's V1 ("legacy") circuits: trees of height 26, roots and leaves / addresses public.
// Public input order = declaration order: [roots, leaves] / [addressRoots, values] / all four.
include "./lib/proofs.circom";

template V1Inclusion(n) {
    signal input roots[n];
    signal input leaves[n];
    signal input inPathIndices[n];
    signal input inPathElements[n][26];

    component inc = InclusionProofs(n, 26);
    inc.roots <== roots;
    inc.leaves <== leaves;
    inc.inPathIndices <== inPathIndices;
    inc.inPathElements <== inPathElements;
}

template V1NonInclusion(n) {
    signal input addressRoots[n];
    signal input values[n];
    signal input lowValues[n];
    signal input nextValues[n];
    signal input nextIndices[n];
    signal input addrPathIndices[n];
    signal input addrPathElements[n][26];

    component non = NonInclusionProofsV1(n, 26);
    non.addressRoots <== addressRoots;
    non.values <== values;
    non.lowValues <== lowValues;
    non.nextValues <== nextValues;
    non.nextIndices <== nextIndices;
    non.addrPathIndices <== addrPathIndices;
    non.addrPathElements <== addrPathElements;
}

template V1Combined(nInc, nNon) {
    signal input roots[nInc];
    signal input leaves[nInc];
    signal input addressRoots[nNon];
    signal input values[nNon];
    signal input inPathIndices[nInc];
    signal input inPathElements[nInc][26];
    signal input lowValues[nNon];
    signal input nextValues[nNon];
    signal input nextIndices[nNon];
    signal input addrPathIndices[nNon];
    signal input addrPathElements[nNon][26];

    component inc = InclusionProofs(nInc, 26);
    inc.roots <== roots;
    inc.leaves <== leaves;
    inc.inPathIndices <== inPathIndices;
    inc.inPathElements <== inPathElements;

    component non = NonInclusionProofsV1(nNon, 26);
    non.addressRoots <== addressRoots;
    non.values <== values;
    non.lowValues <== lowValues;
    non.nextValues <== nextValues;
    non.nextIndices <== nextIndices;
    non.addrPathIndices <== addrPathIndices;
    non.addrPathElements <== addrPathElements;
}
