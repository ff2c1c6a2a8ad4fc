"""The game engine (Numba): one deal played from the break to its end
(docs/rules.md §2, §4, §5)."""
