pragma circom 2.1.0;

// circomlib-compatible Poseidon (same constants and output as circomlib's Poseidon(n)), written
// so that only the S-box multiplications become constraints: the linear layers (round constants,
// MDS mixing) stay symbolic expressions in vars. That gives the --O2 constraint count (240 for
// two inputs) without asking the compiler to eliminate hundreds of linear constraints, which is
// what makes compiling large circuits slow.
include "circomlib/circuits/poseidon_constants.circom";

template PoseidonSbox() {
    signal input in;
    signal output out;
    signal x2 <== in * in;
    signal x4 <== x2 * x2;
    out <== x4 * in;
}

template PoseidonHash(nInputs) {
    signal input inputs[nInputs];
    signal output out;

    var N_ROUNDS_P[16] = [56, 57, 56, 60, 60, 63, 64, 63, 60, 66, 60, 65, 70, 60, 64, 68];
    var t = nInputs + 1;
    var nRoundsF = 8;
    var half = nRoundsF \ 2;
    var nRoundsP = N_ROUNDS_P[t - 2];
    var C[t * nRoundsF + nRoundsP] = POSEIDON_C(t);
    var S[N_ROUNDS_P[t - 2] * (t * 2 - 1)] = POSEIDON_S(t);
    var M[t][t] = POSEIDON_M(t);
    var P[t][t] = POSEIDON_P(t);

    component full[nRoundsF][t];
    component partial[nRoundsP];

    var state[t];
    var mixed[t];
    state[0] = C[0];
    for (var j = 1; j < t; j++) state[j] = inputs[j - 1] + C[j];

    // First half of the full rounds; the last of them mixes with P (the optimised layout).
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            full[r][j] = PoseidonSbox();
            full[r][j].in <== state[j];
            state[j] = full[r][j].out + C[(r + 1) * t + j];
        }
        for (var i = 0; i < t; i++) {
            mixed[i] = 0;
            for (var j = 0; j < t; j++) mixed[i] += (r < half - 1 ? M[j][i] : P[j][i]) * state[j];
        }
        for (var i = 0; i < t; i++) state[i] = mixed[i];
    }

    // Partial rounds: one S-box, then the sparse matrix of round r.
    for (var r = 0; r < nRoundsP; r++) {
        partial[r] = PoseidonSbox();
        partial[r].in <== state[0];
        state[0] = partial[r].out + C[(half + 1) * t + r];
        var base = (t * 2 - 1) * r;
        var s0 = 0;
        for (var i = 0; i < t; i++) s0 += S[base + i] * state[i];
        for (var i = 1; i < t; i++) state[i] = state[i] + state[0] * S[base + t + i - 1];
        state[0] = s0;
    }

    // Second half of the full rounds; the last one has no round constants.
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            full[half + r][j] = PoseidonSbox();
            full[half + r][j].in <== state[j];
            state[j] = full[half + r][j].out;
            if (r < half - 1) state[j] += C[(half + 1) * t + nRoundsP + r * t + j];
        }
        if (r < half - 1) {
            for (var i = 0; i < t; i++) {
                mixed[i] = 0;
                for (var j = 0; j < t; j++) mixed[i] += M[j][i] * state[j];
            }
            for (var i = 0; i < t; i++) state[i] = mixed[i];
        }
    }

    var acc = 0;
    for (var j = 0; j < t; j++) acc += M[j][0] * state[j];
    out <== acc;
}
