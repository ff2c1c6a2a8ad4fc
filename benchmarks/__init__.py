"""Throughput benchmarks (``make bench``). Each ``bench_*.py`` module has a
``bench(quick: bool) -> list[Result]`` function; ``benchmarks.run`` runs them
all and prints one table. Every figure comes with a ratio to a baseline
measured in the same run, on the same machine and inputs."""
