"""Kernels of one winning situation: validation, waits, readings, tai items,
fan/fu, payments (docs/rules.md §6-§10)."""
