"""The JSONL scoring-case format (docs/guide/players.md, "What is this hand
worth?"; the golden cases in tests/data/scoring_cases.jsonl): one JSON
object per line naming a config and a winning situation in notation,
optionally with what it must score ("expect"). ``score_case`` scores one
case (through ``nbsim.rules.scorer.score_hand``), ``case_output`` is the object ``nbsim score
--cases`` prints for it, ``check_expect`` / ``check_case`` validate and
compare "expect", and ``check_cases`` runs a whole file (``nbsim score
--cases [--check]``). A malformed line is one ``{"id", "error"}`` object,
never a traceback.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbsim.errors import HandError, NbsimError
from nbsim.rules.scorer import ScoreResult, cached_rules, score_hand

__all__ = ["score_case", "case_output", "check_case", "check_expect", "check_cases",
           "run_cases", "read_case_lines", "CaseResult", "CaseTally", "CASE_FIELDS",
           "EXPECT_FIELDS"]

CASE_FIELDS = ("id", "config", "hand", "melds", "win_tile", "win_by", "seat", "round",
               "indicator", "flowers", "context", "discarder", "fed", "fed_by_winner",
               "kong_from", "expect")
_REQUIRED = ("config", "hand", "win_tile", "win_by")
# expect field -> (allowed JSON types, description) for ``check_expect``
EXPECT_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "win": ((bool,), "true or false"),
    "why": ((str,), "a reason name such as 'below_min_tai'"),
    "tai": ((int, type(None)), "an integer or null"),
    "items": ((dict,), "an object item id -> tai"),
    "present": ((list,), "a list of the tai item ids that apply (0-tai items included)"),
    "fan": ((int,), "an integer"),
    "fu": ((int,), "an integer"),
    "points": ((dict,), "an object scheme -> points"),
    "fan_items": ((dict,), "an object fan item id -> fan"),
    "fu_items": ((dict,), "an object fu item id -> fu"),
    "silver": ((int, float, dict), "a number or an object"),
    "payments": ((dict,), "an object seat -> points"),
    "error": ((bool,), "true or false"),
}


def score_case(case: Mapping[str, Any], rules_cache: dict | None = None) -> ScoreResult:
    """Score one line of the case format (docs/guide/players.md).

    rules_cache: optional dict reused across calls ({config name: RuleSet}).
    Raises NbsimError (HandError / TileError / ConfigError) for a malformed
    case: unknown or missing field, bad tile, invalid situation."""
    if not isinstance(case, Mapping):
        raise HandError(f"a case must be a JSON object, got {type(case).__name__}")
    unknown = [k for k in case if k not in CASE_FIELDS]
    if unknown:
        raise HandError(f"unknown field {', '.join(repr(k) for k in unknown)}; "
                        f"allowed: {', '.join(CASE_FIELDS)}")
    missing = [k for k in _REQUIRED if k not in case]
    if missing:
        raise HandError(f"missing field {', '.join(repr(k) for k in missing)}")
    if "expect" in case:
        check_expect(case["expect"])
    cfg = case["config"]
    if not isinstance(cfg, str):
        raise HandError(f"config: expected a config name or path, got {cfg!r}")
    if rules_cache is not None:
        rs = rules_cache.get(cfg)
        if rs is None:
            rs = rules_cache[cfg] = cached_rules(cfg)
    else:
        rs = cached_rules(cfg)
    return score_hand(rs, case["hand"], case["win_tile"], melds=case.get("melds") or (),
                      win_by=case["win_by"], seat=case.get("seat", "E"),
                      round_wind=case.get("round", "E"), indicator=case.get("indicator"),
                      flowers=case.get("flowers") or "", context=case.get("context") or (),
                      discarder=case.get("discarder"), fed=case.get("fed"),
                      fed_by_winner=case.get("fed_by_winner"), kong_from=case.get("kong_from"))


def case_output(case_id, result: ScoreResult) -> dict[str, Any]:
    """The JSON object ``nbsim score --cases`` prints for a scored case.

    Tai systems: id, win, why, tai, items (non-zero), present (the items
    that apply, 0-tai ones included), payments; Ninghai: id, win, why, fan,
    fu, points, silver, fan_items, fu_items, payments."""
    out: dict[str, Any] = {"id": case_id, "win": result.win, "why": result.why}
    if result.fan is None and (result.tai is not None or result.points is None):
        out["tai"] = result.tai
        out["items"] = dict(result.items)
        out["present"] = list(result.present)
    else:
        out["fan"] = result.fan
        out["fu"] = result.fu
        out["points"] = result.points
        out["silver"] = result.silver
        out["fan_items"] = dict(result.fan_items)
        out["fu_items"] = dict(result.fu_items)
    out["payments"] = result.payments
    return out


def check_expect(expect: Any) -> None:
    """Validate a case's ``expect`` object (format of the scoring cases:
    tests/data/scoring_cases.jsonl and the case format of
    docs/guide/players.md). Raises HandError naming the field and what it
    allows: expect must be a JSON object whose keys are in
    ``EXPECT_FIELDS``, each of the listed type."""
    if not isinstance(expect, dict):
        raise HandError(f"expect: expected an object such as {{\"win\": true, \"tai\": 5}}, "
                        f"got {expect!r}")
    for key, value in expect.items():
        if key not in EXPECT_FIELDS:
            raise HandError(f"expect.{key}: unknown field; allowed: {', '.join(EXPECT_FIELDS)}")
        types, what = EXPECT_FIELDS[key]
        # JSON true/false are ints to Python: only accept bool where bool is meant
        ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
        if not ok:
            raise HandError(f"expect.{key}: expected {what}, got {value!r}")


def check_case(expect: Mapping[str, Any] | None, got: Mapping[str, Any]) -> list[str]:
    """Compare a case's ``expect`` with the output object (``case_output``
    or ``{"id", "error"}``). Returns a list of mismatch descriptions (empty
    when everything named in expect matches)."""
    expect = dict(expect or {})
    bad: list[str] = []
    if expect.get("error"):
        if "error" not in got:
            bad.append("error: expected an error, got a result")
        return bad
    if "error" in got:
        return [f"error: expected a result, got error {got['error']!r}"]
    for key in ("win", "why", "tai", "fan", "fu", "silver"):
        if key in expect and expect[key] != got.get(key):
            bad.append(f"{key}: expected {expect[key]!r}, got {got.get(key)!r}")
    for family in ("items", "fan_items", "fu_items"):
        if family in expect:
            items = got.get(family) or {}
            for k, v in expect[family].items():
                if items.get(k, 0) != v:
                    bad.append(f"{family}.{k}: expected {v!r}, got {items.get(k, 0)!r}")
    if "present" in expect:
        want, have = set(expect["present"]), set(got.get("present") or [])
        if want != have:
            bad.append(f"present: expected {sorted(want)!r}, got {sorted(have)!r}")
    if "points" in expect:
        pts = got.get("points") or {}
        for k, v in expect["points"].items():
            if pts.get(k) != v:
                bad.append(f"points.{k}: expected {v!r}, got {pts.get(k)!r}")
    if "payments" in expect and expect["payments"] != got.get("payments"):
        bad.append(f"payments: expected {expect['payments']!r}, got {got.get('payments')!r}")
    return bad


def run_cases(lines: Iterable[str], rules_cache: dict | None = None):
    """Score JSONL lines in order: yields (case_id, output object, expect or
    None, error?) for every non-blank line; a malformed line yields
    ``{"id": ..., "error": message}`` and the rest are still scored."""
    cache = {} if rules_cache is None else rules_cache
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        case_id = f"line {n}"
        expect = None
        try:
            case = json.loads(line)
        except json.JSONDecodeError as e:
            yield case_id, {"id": case_id, "error": f"line {n}: bad JSON: {e.msg} "
                                                     f"(column {e.colno})"}, None, True
            continue
        if isinstance(case, dict):
            case_id = case.get("id", case_id)
            expect = case.get("expect")
            try:
                check_expect(expect if "expect" in case else {})
            except HandError:
                expect = None   # score_case reports it; --check counts a mismatch
        try:
            res = score_case(case, cache)
        except NbsimError as e:
            yield case_id, {"id": case_id, "error": str(e)}, expect, True
            continue
        yield case_id, case_output(case_id, res), expect, False


@dataclass(frozen=True)
class CaseResult:
    """One scored line of a cases file (``check_cases``).

    case_id: the case's "id" (or "line N"); output: the JSON object
    ``nbsim score --cases`` prints (``case_output``, or {"id", "error"} for a
    line that could not be scored); error: the line could not be scored;
    mismatches: with checking, what differs from the line's "expect" (empty
    when it matches or without checking)."""
    case_id: Any
    output: dict[str, Any]
    error: bool
    mismatches: tuple[str, ...] = ()

    def json_line(self) -> str:
        """The output object as one line of JSON (stdout of ``--cases``)."""
        return json.dumps(self.output, ensure_ascii=False)

    def mismatch_line(self) -> str | None:
        """``MISMATCH <id>: ...`` (stderr of ``--cases --check``), or None."""
        if not self.mismatches:
            return None
        return f"MISMATCH {self.case_id}: " + "; ".join(self.mismatches)


@dataclass
class CaseTally:
    """Counts of a ``check_cases`` run: non-blank lines, lines that could not
    be scored (errors) and, when checking, lines that matched / did not
    match their "expect"."""
    check: bool
    lines: int = 0
    errors: int = 0
    passed: int = 0
    failed: int = 0

    def summary(self) -> str:
        """"N passed, M failed" when checking, else "N scored, M errors"."""
        if self.check:
            return f"{self.passed} passed, {self.failed} failed"
        return f"{self.lines - self.errors} scored, {self.errors} errors"

    def exit_code(self) -> int:
        """Exit status of ``nbsim score --cases``: checking, 1 on any mismatch;
        otherwise 2 when some line could not be scored; else 0."""
        if self.check:
            return 1 if self.failed else 0
        return 2 if self.errors else 0


def check_cases(lines: Iterable[str], *, check: bool = False,
                on_case: Callable[[CaseResult], None] | None = None,
                rules_cache: dict | None = None) -> CaseTally:
    """Score every line of a JSONL cases file in order (``run_cases``) and,
    with ``check``, compare each output with the line's "expect"
    (``check_case``). ``on_case`` receives each ``CaseResult`` as soon as
    its line is scored (``nbsim score --cases`` prints it). Returns the
    ``CaseTally``; a malformed line counts as an error, never raises."""
    tally = CaseTally(check=check)
    for case_id, out, expect, is_err in run_cases(lines, rules_cache):
        tally.lines += 1
        tally.errors += is_err
        mismatches: tuple[str, ...] = ()
        if check:
            mismatches = tuple(check_case(expect, out))
            if mismatches:
                tally.failed += 1
            else:
                tally.passed += 1
        if on_case is not None:
            on_case(CaseResult(case_id, out, bool(is_err), mismatches))
    return tally


def read_case_lines(path) -> list[str]:
    """Lines of a JSONL cases file. Raises HandError when it cannot be read
    or holds no case (only blank lines)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise HandError(f"cases file {str(path)!r}: cannot read: {e}") from None
    if not any(line.strip() for line in lines):
        raise HandError(f"cases file {str(path)!r}: holds no case; expected one JSON object "
                        f"per line (docs/guide/players.md)")
    return lines
