"""Play: policy specs, duel, ladder, band, replays, divergence, positions, lookahead, advice."""
