"""Run every benchmark module and print the table (``make bench``).

Usage: python -m benchmarks.run [--quick] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import importlib
import math
import pkgutil
import sys
import traceback

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
    print("\n| benchmark | rate | unit | baseline | baseline rate | ratio | note |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.name} | {_fmt(r.rate, r.unit)} | {r.unit} | {r.baseline or '-'} | "
              f"{_fmt(r.baseline_rate, r.unit)} | "
              f"{'-' if math.isnan(r.ratio) else f'{r.ratio:.1f}x'} | {r.note} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
