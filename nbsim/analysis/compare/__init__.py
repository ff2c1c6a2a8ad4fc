"""Comparisons of run folders: the comparison, its estimates and the paired
differences."""
