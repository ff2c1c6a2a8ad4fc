"""The run folder: its layout, its readers, and its integrity check.

A run folder (written by ``nbsim.simulate``) holds:

    manifest.json          what was run (config text and hash, overrides, seed,
                           nbsim version, mode, schema, policies, deal count),
                           how far it got (``status``, ``deals_done``), and one
                           entry per finished shard: its deal range, and for
                           each of its files the row count, size and SHA-256
    shard-00012.parquet    the rows of one shard (a contiguous deal range)
    events-00012.parquet   game mode with --events: that shard's event log
    matches-00012.parquet  --format matches: that shard's match totals
    .nbsim.lock            the writer's lock (``nbsim.run.lock``)

Every Parquet file also carries its run id, seed and deal range in its
footer (key ``nbsim``), so a file copied from another run or another shard
is told apart from a damaged one.

This module imports no other module of nbsim but ``errors``: the runner,
the reports and the comparisons all import it, never the other way round.

``verify_run`` checks a folder against its manifest and names every
damaged, foreign, missing, duplicated or unlisted shard file; ``open_run``
(``report``, ``compare``) and ``nbsim simulate --resume`` call it.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from nbsim.errors import RunError

MANIFEST = "manifest.json"
LOCK_FILE = ".nbsim.lock"
SHARD_GLOB = "shard-*.parquet"
SHARD_PATTERN = re.compile(r"^(shard|events|matches)-(\d{5,})\.parquet$")
TMP_PATTERN = re.compile(r"^(shard|events|matches)-\d{5,}\..*tmp$")
# files ``nbsim report`` writes (replaced with the run by --overwrite)
REPORT_MD = "report.md"
SUMMARY_JSON = "summary.json"
REPORT_HTML = "report.html"
PLOT_FILES = ("heavenly_by_wilds.png", "wilds_per_seat.png", "flowers_per_seat.png")
GAME_PLOT_FILES = ("outcomes.png", "tai_distribution.png", "fan_distribution.png",
                   "tai_items.png", "payments.png")
REPORT_FILES = (REPORT_MD, SUMMARY_JSON, REPORT_HTML) + PLOT_FILES + GAME_PLOT_FILES
MAX_SEED = 2**64 - 1
MAX_DEALS = 2**62
RUN_FORMAT = "nbsim-run/1"
FOOTER_KEY = "nbsim"        # Parquet key-value metadata: run id, seed, deal range

MATCH_COLUMNS = ("match", "player", "policy", "total")     # matches-*.parquet
MAX_PROBLEMS = 5            # problems named in one error message
HASH_BLOCK = 1 << 22


def write_atomic(path: Path, data: bytes | memoryview, tmp: Path) -> None:
    """Write ``data`` to ``path`` as a whole or not at all: into the temporary
    file ``tmp`` (in the same folder), flushed and fsynced, then renamed over
    ``path``. On any error ``tmp`` is removed and ``path`` keeps its previous
    content (or stays absent). Raises OSError (a full disk, ...)."""
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def shard_name(index: int, kind: str = "shard") -> str:
    """File name of shard ``index`` (``shard-00012.parquet``); kind 'events'
    or 'matches' for its companion files."""
    return f"{kind}-{index:05d}.parquet"


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes (read in 4 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(HASH_BLOCK):
            h.update(block)
    return h.hexdigest()


def read_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder (a dict, as read). Raises RunError if the
    folder does not exist, is not a run, or the manifest is unreadable."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise RunError(f"run folder {str(run_dir)!r} does not exist or is not a folder")
    m = run_dir / MANIFEST
    if not m.is_file():
        raise RunError(f"{str(run_dir)!r} is not an nbsim run folder (no {MANIFEST}); "
                       f"create one with 'nbsim simulate'")
    try:
        return json.loads(m.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RunError(f"{m}: cannot read the manifest ({e})") from None


def shard_paths(run_dir: str | Path, manifest: dict | None = None) -> list[Path]:
    """The finished shard files of a run (Paths), in deal order, from its
    manifest. Raises RunError naming the files listed but missing."""
    run_dir = Path(run_dir)
    manifest = manifest or read_manifest(run_dir)
    shards = sorted(manifest.get("shards", []), key=lambda s: s.get("first_deal", 0))
    paths = [run_dir / s["file"] for s in shards]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise RunError(f"{run_dir}: shard files listed in the manifest are missing: "
                       f"{', '.join(missing[:MAX_PROBLEMS])}")
    return paths


def scan_run(run_dir: str | Path) -> pl.LazyFrame:
    """polars LazyFrame over the finished shards of a run, in deal order.
    Raises RunError if the folder is not a run or holds no finished shard."""
    paths = shard_paths(run_dir)
    if not paths:
        raise RunError(f"{run_dir}: the run has no finished shard yet")
    return pl.scan_parquet([str(p) for p in paths])


# ------------------------------------------------------------------ integrity
PROBLEM_KINDS = ("missing", "damaged", "foreign", "duplicate", "unlisted", "gap")


@dataclass(frozen=True)
class ShardProblem:
    """One problem of a run folder: ``kind`` (one of ``PROBLEM_KINDS``:
    missing, damaged, foreign, duplicate, unlisted, gap), ``file`` (the
    file name, or a deal range for a gap) and ``detail`` (what is wrong)."""
    kind: str
    file: str
    detail: str

    def __str__(self) -> str:
        return f"{self.file}: {self.kind} ({self.detail})"


@dataclass
class RunCheck:
    """What ``verify_run`` found: the run folder, its manifest, the problems
    (empty when every listed file is intact), and ``complete``: the manifest
    says complete and its shards cover deals 0 .. deals - 1 exactly once.
    ``bad_shards`` are the manifest's shard entries with a problem."""
    run_dir: Path
    manifest: dict
    problems: list[ShardProblem] = field(default_factory=list)
    bad_shards: list[dict] = field(default_factory=list)
    complete: bool = False

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def message(self) -> str:
        """One line naming the problems (at most ``MAX_PROBLEMS``, then a count)."""
        more = len(self.problems) - MAX_PROBLEMS
        text = "; ".join(str(p) for p in self.problems[:MAX_PROBLEMS])
        return f"{self.run_dir}: {text}" + (f"; and {more} more" if more > 0 else "")

    def raise_if_bad(self) -> None:
        """Raise RunError with ``message()`` if a problem was found."""
        if self.problems:
            raise RunError(self.message() + " (re-create the damaged shards with "
                           "'nbsim simulate ... --resume', or the whole run with --overwrite)")


def footer_info(path: Path) -> dict | None:
    """The ``nbsim`` key of a Parquet file's footer (run id, seed, kind,
    first_deal, deals), or None if the file has none. Raises OSError or
    ValueError if the file is not readable Parquet."""
    import pyarrow.parquet as pq
    meta = pq.read_metadata(path).metadata or {}
    raw = meta.get(FOOTER_KEY.encode())
    return json.loads(raw) if raw else None


def _files_of(entry: dict) -> dict[str, dict]:
    """The files of a manifest shard entry with their recorded facts
    ({name: {"rows", "bytes", "sha256"}}; empty facts for old manifests)."""
    files = dict(entry.get("files") or {})
    for key in ("file", "events_file", "matches_file"):
        name = entry.get(key)
        if isinstance(name, str) and name not in files:
            files[name] = {}
    return files


def _describe(info: dict | None, manifest: dict, by_first: dict,
              own_first: int | None) -> tuple[str, str] | None:
    """(kind, detail) for a file whose bytes differ from the manifest's record,
    judged from its footer; None if the footer says nothing."""
    if not info:
        return None
    first, n = info.get("first_deal"), info.get("deals")
    if info.get("run_id") != manifest.get("run_id") or info.get("seed") != manifest.get("seed"):
        return "foreign", (f"written by another run (seed {info.get('seed')}, deals {first:,}.."
                           f"{first + n - 1:,})" if isinstance(first, int) and
                           isinstance(n, int) else "written by another run")
    other = by_first.get(first) if first != own_first else None
    if other is not None and isinstance(first, int) and isinstance(n, int):
        kind = info.get("kind", "shard")
        names = [f for f in _files_of(other) if f.startswith(kind + "-")] or [other["file"]]
        return "duplicate", f"a copy of {names[0]} (deals {first:,}..{first + n - 1:,})"
    return None


def verify_run(run_dir: str | Path, manifest: dict | None = None, *,
               checksums: bool = True) -> RunCheck:
    """Check a run folder against its manifest.

    For each shard entry of the manifest (deal range ``first_deal`` ..
    ``first_deal + deals - 1``) and each of its files: present (else
    'missing'), the recorded size and, with ``checksums``, SHA-256 (else
    'damaged'; or 'foreign' when the file's footer names another run, or
    'duplicate' when it holds another shard's deals). Entries whose deal
    ranges overlap, or two files with the same bytes, are 'duplicate'; shard,
    events or match files in the folder that the manifest does not list are
    'unlisted'; deals a complete run lacks are a 'gap'.

    Args:
        run_dir: the run folder; manifest: its manifest (read if None).
        checksums: hash every file (reads the whole run; False checks sizes,
            ranges and file names only).
    Returns a RunCheck (problems in folder order; ``complete``). Raises
    RunError only if the folder holds no readable manifest."""
    run_dir = Path(run_dir)
    manifest = manifest if manifest is not None else read_manifest(run_dir)
    check = RunCheck(run_dir, manifest)
    shards = [s for s in manifest.get("shards", []) if isinstance(s, dict)]
    shards.sort(key=lambda s: (s.get("first_deal", -1), str(s.get("file"))))
    by_first = {s.get("first_deal"): s for s in shards}
    listed: set[str] = set()
    digests: dict[str, str] = {}
    bad: dict[int, dict] = {}
    end = 0
    for entry in shards:
        first, n = entry.get("first_deal"), entry.get("deals")
        if not isinstance(first, int) or not isinstance(n, int) or n < 1 or first < 0:
            check.problems.append(ShardProblem("damaged", str(entry.get("file")),
                                               "its manifest entry has no valid deal range"))
            bad[id(entry)] = entry
            continue
        if first < end:
            check.problems.append(ShardProblem(
                "duplicate", str(entry.get("file")),
                f"deals {first:,}..{first + n - 1:,} overlap another listed shard"))
            bad[id(entry)] = entry
            listed.update(_files_of(entry))
            continue
        end = max(end, first + n)
        for name, facts in _files_of(entry).items():
            path = run_dir / name
            if name in listed:
                check.problems.append(ShardProblem("duplicate", name,
                                                   "listed twice in the manifest"))
                bad[id(entry)] = entry
                continue
            listed.add(name)
            problem = _check_file(path, facts, manifest, by_first, checksums, digests, first)
            if problem:
                check.problems.append(problem)
                bad[id(entry)] = entry
    if run_dir.is_dir():
        for p in sorted(run_dir.iterdir()):
            if SHARD_PATTERN.match(p.name) and p.name not in listed:
                check.problems.append(ShardProblem(
                    "unlisted", p.name, "not listed in the manifest: finished after the "
                    "writer's last manifest save (a killed writer, a full disk), or copied "
                    "in"))
    covered = sorted((s["first_deal"], s["first_deal"] + s["deals"]) for s in shards
                     if isinstance(s.get("first_deal"), int) and isinstance(s.get("deals"), int))
    gaps, pos = [], 0
    for a, b in covered:
        if a > pos:
            gaps.append((pos, a))
        pos = max(pos, b)
    total = manifest.get("deals", 0) if isinstance(manifest.get("deals"), int) else 0
    if pos < total:
        gaps.append((pos, total))
    if manifest.get("status") == "complete":
        for a, b in gaps:
            check.problems.append(ShardProblem(
                "gap", f"deals {a:,}..{b - 1:,}", "the run is marked complete but no "
                "listed shard holds them"))
    check.bad_shards = list(bad.values())
    check.complete = (manifest.get("status") == "complete" and not gaps and check.ok)
    return check


def _check_file(path: Path, facts: dict, manifest: dict, by_first: dict, checksums: bool,
                digests: dict, own_first: int) -> ShardProblem | None:
    """The problem of one listed file (None if it matches its record)."""
    name = path.name
    if not path.is_file():
        return ShardProblem("missing", name, "listed in the manifest but not in the folder")
    size = path.stat().st_size
    digest = None
    differs = None
    if "bytes" in facts and size != facts["bytes"]:
        differs = f"{size:,} bytes, the manifest records {facts['bytes']:,}"
    elif checksums and "sha256" in facts:
        try:
            digest = file_sha256(path)
        except OSError as e:
            return ShardProblem("damaged", name, f"cannot be read ({e.strerror or e})")
        if digest != facts["sha256"]:
            differs = "its SHA-256 differs from the manifest's"
    if differs is None:
        if digest is not None:
            if digest in digests:
                return ShardProblem("duplicate", name, f"the same bytes as {digests[digest]}")
            digests[digest] = name
        return None
    try:
        info = footer_info(path)
    except (OSError, ValueError) as e:
        return ShardProblem("damaged", name, f"not a readable Parquet file ({_first_line(e)}); "
                                             f"{differs}")
    judged = _describe(info, manifest, by_first, own_first)
    if judged:
        return ShardProblem(judged[0], name, judged[1])
    return ShardProblem("damaged", name, f"damaged Parquet file: {differs}")


def _first_line(err: Exception) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


# ------------------------------------------------------------------ reading
def read_run_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder, checked against ``RunManifest``.

    Returns the manifest as read (a dict). Raises RunError naming
    manifest.json and what is wrong: not a run folder, no or unreadable
    manifest, not a JSON object, missing keys, wrong value types, an
    unknown ``format``."""
    manifest = read_manifest(run_dir)
    path = Path(run_dir) / MANIFEST
    if not isinstance(manifest, dict):
        from nbsim.args import json_kind
        raise RunError(f"{path}: the manifest should be a JSON object, got "
                       f"{json_kind(manifest)}")
    from pydantic import ValidationError

    from nbsim.run.manifest import RunManifest, manifest_problems
    try:
        RunManifest.model_validate(manifest)
    except ValidationError as e:
        raise RunError(f"{path}: not a valid nbsim run manifest: {manifest_problems(e)}") \
            from None
    return manifest


def _polars_message(err: Exception) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def _few(names: list[str]) -> str:
    more = len(names) - MAX_PROBLEMS
    return ", ".join(names[:MAX_PROBLEMS]) + (f" and {more} more" if more > 0 else "")


def check_parquet_columns(path: Path, expected) -> None:
    """Check that ``path`` is a Parquet file whose columns (read from its
    footer) are the names in ``expected``, in any order. Raises RunError
    naming the file if it is not readable or a column is missing or extra."""
    try:
        names = list(pl.read_parquet_schema(path))
    except (pl.exceptions.PolarsError, OSError) as e:
        raise RunError(f"{path}: not a readable Parquet file ({_polars_message(e)})") from None
    missing = [c for c in expected if c not in names]
    extra = [c for c in names if c not in expected]
    if missing or extra:
        what = [f"missing {_few(missing)}"] if missing else []
        what += [f"unexpected {_few(extra)}"] if extra else []
        raise RunError(f"{path}: the columns do not match the run's schema ({'; '.join(what)})")


def matches_paths(run_dir: Path, manifest: dict) -> list[Path]:
    """The match-total files (matches-*.parquet) a ``--format matches`` run
    lists in its manifest ([] for other runs). Raises RunError if one is
    missing."""
    files = [run_dir / s["matches_file"] for s in manifest.get("shards", [])
             if s.get("matches_file")]
    missing = [p.name for p in files if not p.is_file()]
    if missing:
        raise RunError(f"{run_dir}: match files listed in the manifest are missing: "
                       f"{', '.join(missing[:MAX_PROBLEMS])}")
    return files


@dataclass
class RunFiles:
    """A run folder checked for reading: its validated manifest and a
    LazyFrame over its shards in deal order."""
    run_dir: Path
    manifest: dict
    lf: pl.LazyFrame


def open_run(run_dir: str | Path, *, checksums: bool = True) -> RunFiles:
    """Read and check a run folder for ``report`` and ``compare``: the
    manifest (``read_run_manifest``), the shards' integrity (``verify_run``:
    damaged, foreign, missing, duplicated or unlisted files; unlisted ones
    only in a complete run, since an unfinished run's newest shards may not
    be recorded yet), then every shard and match file it lists: a Parquet
    file with the columns of the manifest's schema. Raises RunError naming
    the file and what is wrong."""
    run_dir = Path(run_dir)
    manifest = read_run_manifest(run_dir)
    paths = shard_paths(run_dir, manifest)
    if not paths:
        raise RunError(f"{run_dir}: the run has no finished shard yet")
    for p in paths:
        check_parquet_columns(p, manifest["schema"])
    for p in matches_paths(run_dir, manifest):
        check_parquet_columns(p, MATCH_COLUMNS)
    check = verify_run(run_dir, manifest, checksums=checksums)
    if manifest.get("status") != "complete":
        # an unfinished run's newest shards may not be recorded yet (a live
        # writer between two manifest saves, a killed writer, a full disk):
        # the report covers the listed ones, and --resume records the rest
        check.problems = [p for p in check.problems if p.kind != "unlisted"]
    for problem in check.problems:          # a more precise word on a damaged file
        if problem.kind == "damaged" and (run_dir / problem.file).is_file():
            types = manifest["schema"] if problem.file.startswith("shard-") else {}
            detail = _file_damage(run_dir / problem.file, types)
            if detail:
                raise RunError(f"{detail} (its bytes differ from the manifest's record; "
                               f"re-create it with 'nbsim simulate ... --resume')")
    check.raise_if_bad()
    return RunFiles(run_dir, manifest, pl.scan_parquet([str(p) for p in paths]))


def _damaged_file(run_dir: Path, manifest: dict) -> str | None:
    """Read every Parquet file of a run in full and describe the first that
    fails or whose column types differ from the manifest's schema; None if
    all are fine."""
    schema = manifest["schema"]
    files = [(p, schema) for p in shard_paths(run_dir, manifest)]
    files += [(p, {}) for p in matches_paths(run_dir, manifest)]
    for p, types in files:
        problem = _file_damage(p, types)
        if problem:
            return problem
    return None


def _file_damage(p: Path, types: dict) -> str | None:
    """Read one Parquet file in full: what fails, or which column types
    differ from ``types`` (name -> dtype text); None if it reads fine."""
    try:
        dtypes = pl.read_parquet(p).schema
    except (pl.exceptions.PolarsError, OSError) as e:
        return f"{p}: damaged Parquet file ({_polars_message(e)})"
    wrong = [f"{c} is {t}, not {types[c]}" for c, t in dtypes.items()
             if c in types and str(t) != types[c]]
    if wrong:
        return f"{p}: column types do not match the run's schema ({_few(wrong)})"
    return None


@contextmanager
def damaged_file_errors(runs):
    """Context manager for computing from runs (pairs of run folder and
    validated manifest): a polars error raised inside becomes a RunError
    naming the damaged file (a corrupt data page, a column of the wrong type)
    once one is found; otherwise the error is raised unchanged."""
    try:
        yield
    except (pl.exceptions.PolarsError, OSError):
        for run_dir, manifest in runs:
            problem = _damaged_file(Path(run_dir), manifest)
            if problem:
                raise RunError(problem) from None
        raise
