"""The search over a hand's readings (decompositions with wilds) and the items
of each reading."""
