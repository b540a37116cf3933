pragma circom 2.1.0;

include "./poseidon.circom";

// Light's TwoInputsHashChain: h = H(first[0], second[0]); h = H(h, first[i], second[i]).
template TwoInputsHashChain(n) {
    signal input first[n];
    signal input second[n];
    signal output out;

    component h0 = PoseidonHash(2);
    h0.inputs[0] <== first[0];
    h0.inputs[1] <== second[0];
    component hs[n];
    var acc = h0.out;
    for (var i = 1; i < n; i++) {
        hs[i] = PoseidonHash(3);
        hs[i].inputs[0] <== acc;
        hs[i].inputs[1] <== first[i];
        hs[i].inputs[2] <== second[i];
        acc = hs[i].out;
    }
    out <== acc;
}
