"""Reading a run folder for ``nbsim report`` and ``nbsim compare``: the
manifest checked against ``RunManifest`` (pydantic), every shard and match
file checked to be Parquet with the manifest's columns, and polars errors
met while computing turned into one message naming the damaged file.
Every problem is a ``RunError`` naming the file and what is wrong."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nbsim.errors import RunError
from nbsim.runs import MANIFEST, read_manifest, shard_paths

MATCH_COLUMNS = ("match", "player", "policy", "total")     # matches-*.parquet
MAX_PROBLEMS = 5            # problems named in one error message


class _ManifestPart(BaseModel):
    # strict: no coercion ("3" is not 3, true is not 1); other keys are allowed
    model_config = ConfigDict(extra="allow", strict=True)


class _ShardEntry(_ManifestPart):
    file: str
    matches_file: str | None = None


class _ConfigEntry(_ManifestPart):
    name: str
    hash: str


class _PointsEntry(_ManifestPart):
    points_scheme: str | None = None


class _ScoringEntry(_ManifestPart):
    system: Literal["tai", "fan_fu"] = "tai"
    tai: dict[str, int] = {}
    points: _PointsEntry = _PointsEntry()


class _RulesEntry(_ManifestPart):
    scoring: _ScoringEntry = _ScoringEntry()


class RunManifest(_ManifestPart):
    """The keys of a run's manifest.json that ``nbsim report`` and ``nbsim
    compare`` read, with their types (written by ``nbsim.runs.simulate``).
    Keys without a default are required; other keys are allowed and ignored."""
    format: Literal["nbsim-run/1"]
    mode: str
    config: _ConfigEntry
    seed: int = Field(ge=0)
    deals: int = Field(ge=0)
    deals_done: int = Field(ge=0)
    status: str
    shards: list[_ShardEntry]
    columns: dict[str, str] = Field(alias="schema")
    overrides: list[str] = []
    nbsim_version: str | None = None
    rules: _RulesEntry = _RulesEntry()
    game_format: Literal["deals", "matches"] = "deals"
    policies: list[str] | None = None
    units: str = "deals"


def _short(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _manifest_problems(err: ValidationError) -> str:
    """One line from a RunManifest validation error: the missing keys, then
    each key with a wrong value (what it should be, what it is)."""
    errors = err.errors()
    missing = [".".join(map(str, e["loc"])) for e in errors if e["type"] == "missing"]
    problems = []
    if missing:
        problems.append(f"missing required key{'s' if len(missing) > 1 else ''}: "
                        f"{', '.join(missing)}")
    for e in errors:
        if e["type"] == "missing":
            continue
        msg = ("should be a JSON object" if e["type"] == "model_type"
               else e["msg"].removeprefix("Input "))
        problems.append(f"key {'.'.join(map(str, e['loc']))!r} {msg}, got {_short(e['input'])}")
    more = len(problems) - MAX_PROBLEMS
    return "; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


def read_run_manifest(run_dir: str | Path) -> dict:
    """The manifest of a run folder, checked against ``RunManifest``.

    Returns the manifest as read (a dict). Raises RunError naming
    manifest.json and what is wrong: not a run folder, no or unreadable
    manifest, not a JSON object, missing keys, wrong value types, an
    unknown ``format``."""
    manifest = read_manifest(run_dir)
    path = Path(run_dir) / MANIFEST
    if not isinstance(manifest, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}
        raise RunError(f"{path}: the manifest should be a JSON object, got "
                       f"{kind.get(type(manifest), 'a number')}")
    try:
        RunManifest.model_validate(manifest)
    except ValidationError as e:
        raise RunError(f"{path}: not a valid nbsim run manifest: {_manifest_problems(e)}") \
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


def open_run(run_dir: str | Path) -> RunFiles:
    """Read and check a run folder for ``report`` and ``compare``: the
    manifest (``read_run_manifest``), then every shard and match file it
    lists: present, a Parquet file, with the columns of the manifest's
    schema. Raises RunError naming the file and what is wrong."""
    run_dir = Path(run_dir)
    manifest = read_run_manifest(run_dir)
    paths = shard_paths(run_dir, manifest)
    if not paths:
        raise RunError(f"{run_dir}: the run has no finished shard yet")
    for p in paths:
        check_parquet_columns(p, manifest["schema"])
    for p in matches_paths(run_dir, manifest):
        check_parquet_columns(p, MATCH_COLUMNS)
    return RunFiles(run_dir, manifest, pl.scan_parquet([str(p) for p in paths]))


def _damaged_file(run_dir: Path, manifest: dict) -> str | None:
    """Read every Parquet file of a run in full and describe the first that
    fails or whose column types differ from the manifest's schema; None if
    all are fine."""
    schema = manifest["schema"]
    files = [(p, schema) for p in shard_paths(run_dir, manifest)]
    files += [(p, {}) for p in matches_paths(run_dir, manifest)]
    for p, types in files:
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
