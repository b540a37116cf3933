pragma circom 2.1.0;

include "circomlib/circuits/bitify.circom";

// a < b for values below 2^248 (addresses, indexed-tree values): b - a - 1 must fit in 248 bits.
// If a >= b the difference wraps around the field and has no 248-bit decomposition.
template AssertLess248() {
    signal input a;
    signal input b;
    component bits = Num2Bits(248);
    bits.in <== b - a - 1;
}
