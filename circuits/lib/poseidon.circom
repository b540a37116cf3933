pragma circom 2.1.0;

// circomlib-compatible Poseidon (same constants and output as circomlib's Poseidon(n)), written
// so that only the S-box multiplications become constraints: the linear layers (round constants,
// MDS mixing) stay symbolic expressions in vars, and each S-box squares that expression directly.
// That gives the --O2 constraint count (240 for two inputs) without asking the compiler to
// eliminate hundreds of linear constraints, which is what makes compiling large circuits slow
// (an S-box as a component of its own cost one linear constraint for its input: 30 % of the
// forester's address-append compile time).
include "circomlib/circuits/poseidon_constants.circom";

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

    // S-boxes x⁵ as x², x⁴, x⁵: three quadratic constraints whose operand is the state's linear
    // combination itself.
    signal fx2[nRoundsF][t];
    signal fx4[nRoundsF][t];
    signal fx5[nRoundsF][t];
    signal px2[nRoundsP];
    signal px4[nRoundsP];
    signal px5[nRoundsP];

    var state[t];
    var mixed[t];
    state[0] = C[0];
    for (var j = 1; j < t; j++) state[j] = inputs[j - 1] + C[j];

    // First half of the full rounds; the last of them mixes with P (the optimised layout).
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            fx2[r][j] <== state[j] * state[j];
            fx4[r][j] <== fx2[r][j] * fx2[r][j];
            fx5[r][j] <== fx4[r][j] * state[j];
            state[j] = fx5[r][j] + C[(r + 1) * t + j];
        }
        for (var i = 0; i < t; i++) {
            mixed[i] = 0;
            for (var j = 0; j < t; j++) mixed[i] += (r < half - 1 ? M[j][i] : P[j][i]) * state[j];
        }
        for (var i = 0; i < t; i++) state[i] = mixed[i];
    }

    // Partial rounds: one S-box, then the sparse matrix of round r.
    for (var r = 0; r < nRoundsP; r++) {
        px2[r] <== state[0] * state[0];
        px4[r] <== px2[r] * px2[r];
        px5[r] <== px4[r] * state[0];
        state[0] = px5[r] + C[(half + 1) * t + r];
        var base = (t * 2 - 1) * r;
        var s0 = 0;
        for (var i = 0; i < t; i++) s0 += S[base + i] * state[i];
        for (var i = 1; i < t; i++) state[i] = state[i] + state[0] * S[base + t + i - 1];
        state[0] = s0;
    }

    // Second half of the full rounds; the last one has no round constants.
    for (var r = 0; r < half; r++) {
        for (var j = 0; j < t; j++) {
            fx2[half + r][j] <== state[j] * state[j];
            fx4[half + r][j] <== fx2[half + r][j] * fx2[half + r][j];
            fx5[half + r][j] <== fx4[half + r][j] * state[j];
            state[j] = fx5[half + r][j];
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
