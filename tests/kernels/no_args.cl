// A kernel without arguments: the argument list must come out empty.
__kernel void no_args(void) {}
