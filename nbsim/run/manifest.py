"""The keys of a run's manifest.json that ``nbsim report`` and ``nbsim
compare`` read, as a pydantic model (``RunManifest``), and one line naming
what is wrong with a manifest that fails it. Imported only when a manifest
is checked, so that ``nbsim simulate`` does not pay for pydantic."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_PROBLEMS = 5            # problems named in one line


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
    compare`` read, with their types (written by ``nbsim.simulate``).
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


def manifest_problems(err: ValidationError) -> str:
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
        if e["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            problems.append(f"unknown key {'.'.join(map(str, e['loc']))!r}")
            continue
        msg = ("should be a JSON object" if e["type"] == "model_type"
               else e["msg"].removeprefix("Input "))
        problems.append(f"key {'.'.join(map(str, e['loc']))!r} {msg}, got {_short(e['input'])}")
    more = len(problems) - MAX_PROBLEMS
    return "; ".join(problems[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
