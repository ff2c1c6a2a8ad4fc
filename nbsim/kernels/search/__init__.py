"""The kernels that play the engine from inside a decision: the lookahead's
playouts."""
