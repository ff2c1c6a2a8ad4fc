"""Reports of one run folder: the summary, its deal-mode and game-mode tables."""
