"""Run every benchmark module and print the table (``make bench``).

Usage: python -m benchmarks.run [--quick] [--only NAME ...] [--out PATH]

``--out`` writes the table, with the machine it ran on, to a Markdown file
as well (``make bench`` writes ``runs/bench.md`` and publishes it as
``docs/results/bench.md``).
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import pkgutil
import sys
import traceback
from pathlib import Path

import benchmarks


def _fmt(x: float, unit: str) -> str:
    """A rate with thousands separators; a time in s, ms or us with three
    significant digits (the exact own-draw answer takes under a millisecond)."""
    if math.isnan(x):
        return "-"
    if unit == "s":
        if x >= 1:
            return f"{x:.2f} s"
        if x >= 1e-3:
            return f"{x * 1e3:.3g} ms"
        return f"{x * 1e6:.3g} us"
    return f"{x:,.0f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    ap.add_argument("--only", nargs="*", default=None, help="module names (e.g. bench_hand)")
    ap.add_argument("--out", default=None,
                    help="also write the table and the machine to this Markdown file")
    args = ap.parse_args(argv)
    mods = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__)
                  if m.name.startswith("bench_"))
    if args.only:
        mods = [m for m in mods if m in args.only]
    failed = 0
    rows = []
    for name in mods:
        print(f"== {name}", flush=True)
        try:
            mod = importlib.import_module(f"benchmarks.{name}")
            for r in mod.bench(quick=args.quick):
                rows.append(r)
                unit = "" if r.unit == "s" else f" {r.unit}"    # _fmt writes "s" itself
                print(f"  {r.name}: {_fmt(r.rate, r.unit)}{unit}"
                      + (f"  | {r.baseline}: {_fmt(r.baseline_rate, r.unit)}  "
                         f"ratio {r.ratio:.1f}x" if r.baseline else "")
                      + (f"  ({r.note})" if r.note else ""), flush=True)
        except Exception:  # keep going: one broken benchmark must not hide the others
            failed += 1
            traceback.print_exc()
    table = table_lines(rows)
    print("\n" + "\n".join(table))
    if args.out:
        write_page(Path(args.out), table, failed)
    return 1 if failed else 0


def table_lines(rows: list) -> list[str]:
    """The Markdown table of ``rows`` (``benchmarks.common.Result``): one
    line per figure, with its baseline and the ratio to it."""
    out = ["| benchmark | figure | unit | baseline | baseline figure | ratio | note |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.name} | {_fmt(r.rate, r.unit)} | {r.unit} | {r.baseline or '-'} | "
                   f"{_fmt(r.baseline_rate, r.unit)} | "
                   f"{'-' if math.isnan(r.ratio) else f'{r.ratio:.1f}x'} | {r.note} |")
    return out


def machine() -> str:
    """One line naming the machine and the versions the figures were
    measured with: cores, memory, Python, numba, numpy, polars."""
    import platform
    from importlib.metadata import version

    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        mem_s = f", {mem:.0f} GiB"
    except (ValueError, OSError, AttributeError):
        mem_s = ""
    libs = ", ".join(f"{p} {version(p)}" for p in ("numba", "numpy", "polars"))
    return (f"{os.cpu_count()} cores{mem_s}, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, {libs}")


def write_page(path: Path, table: list[str], failed: int) -> None:
    """Write ``table`` to ``path`` (Markdown) under a line naming the
    machine, and a warning when ``failed`` benchmarks raised. Raises
    OSError when the folder cannot be made or the file written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = [f"Measured on {machine()}. Rates are per second, times in seconds. A "
            "figure's baseline is measured in the same run; the ratio is the figure over "
            "the baseline for a rate, the baseline over the figure for a time.", ""]
    if failed:
        head += [f"**{failed} benchmark module(s) failed**: their figures are missing.", ""]
    path.write_text("\n".join(head + table) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
