"""Runs: simulate, shards, the Dask cluster, run folders and their files, game mode."""
