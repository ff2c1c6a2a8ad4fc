"""Where two policies part ways: the first decision of each deal at which
an expert policy (e.g. ``lookahead``) plays otherwise than a base policy
(e.g. ``defend``), with what each chose.

Both policies play every seat of the same deals (same seed: same walls,
round wind and decision streams), so the two event logs agree up to the
first decision where the expert overrules the base; that decision's state
is the same in both games, which makes the pair (base's choice, expert's
choice) a clean sample of what the expert knows that the base does not.
This is how docs/lookahead.md reads lookahead's choices against defend's.

Only the first divergence of a deal is a clean sample: after it the games
differ. Discards are described by features a player would name (the
standard-form shanten after the discard, honours and terminals, copies
already visible, copies in the opponents' discards, copies held); the
shanten is ``nbsim.kernels.hand.shanten`` with the seat's wilds as wilds
(docs/rules.md §10.2).

``state_at`` rebuilds a played position as a table state (what ``nbsim
advise`` reads), ``east_positions`` walks East's positions of played
deals; ``replay_discard`` plays a real discard on from that
table with the real hidden tiles, the check that the rebuilt table holds
everything the engine's decisions read (``benchmarks/world_replay.py``).
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.play.worlds import ADVICE_OPPONENTS
from nbsim.rules.ruleset import RuleSet, as_rules
from nbsim.rules.tiles import parse_tile

# feature -> (description, expression that is True when the expert's tile has
# it and the base's has not, and the reverse): summarize's rows
_CONTRASTS = (
    ("shanten rises", "the discard leaves the hand further from ready (standard form)",
     pl.col("expert_shanten") > pl.col("base_shanten"),
     pl.col("base_shanten") > pl.col("expert_shanten")),
    ("honour", "the discard is an honour tile (wind or dragon)",
     pl.col("expert_honor") & ~pl.col("base_honor"),
     pl.col("base_honor") & ~pl.col("expert_honor")),
    ("terminal", "the discard is a 1 or a 9",
     pl.col("expert_terminal") & ~pl.col("base_terminal"),
     pl.col("base_terminal") & ~pl.col("expert_terminal")),
    ("more copies visible", "more copies of the discard are visible (discards, melds, "
     "indicator)",
     pl.col("expert_visible") > pl.col("base_visible"),
     pl.col("base_visible") > pl.col("expert_visible")),
    ("in opponents' discards", "the discard is in more opponents' discards (safer)",
     pl.col("expert_opp_discarded") > pl.col("base_opp_discarded"),
     pl.col("base_opp_discarded") > pl.col("expert_opp_discarded")),
    ("breaks a pair", "the seat held two or more copies of the discard",
     (pl.col("expert_held") >= 2) & (pl.col("base_held") < 2),
     (pl.col("base_held") >= 2) & (pl.col("expert_held") < 2)),
)


_CLAIMS = ("chow", "pung", "kong", "win")
CHUNK = 10                  # deals played per call of the engine (the bar moves per chunk)
# the columns every row has (no divergence: an empty frame of these)
_EMPTY_SCHEMA = {"deal": pl.Int64, "step": pl.Int64, "seat": pl.String,
                 "base_action": pl.String, "expert_action": pl.String, "draws": pl.Int64,
                 "own_melds": pl.Int64, "opp_melds": pl.Int64, "hand": pl.String,
                 "base_tile": pl.String, "expert_tile": pl.String, "state": pl.String,
                 "base_pay": pl.Int64, "expert_pay": pl.Int64}


def _tile_features(k: int, hand: np.ndarray, wild: set[int], visible: np.ndarray,
                   opp_discarded: int, n_melds: int, tables) -> dict:
    from nbsim.kernels import hand as HK
    c = hand.copy()
    c[k] -= 1
    n_wild = int(sum(int(c[w]) for w in wild))
    for w in wild:
        c[w] = 0
    sh = int(HK.shanten(np.ascontiguousarray(c[:C.N_PLAY]), np.int64(n_wild),
                        np.int64(n_melds), tables))
    return {"shanten": sh, "wild": k in wild, "honor": 27 <= k < C.N_PLAY,
            "terminal": k < 27 and k % 9 in (0, 8), "visible": int(visible[k]),
            "opp_discarded": opp_discarded, "held": int(hand[k])}


def _first_divergence(a: list[dict], b: list[dict]) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if ((x["seat"], x["action"], x["tile"], x["meld"])
                != (y["seat"], y["action"], y["tile"], y["meld"])):
            return i
    return None


def state_at(row: dict, events: list[dict], upto: int, seat: str) -> dict:
    """The table state (``nbsim.play.advice.state``: the ``nbsim advise --state``
    format) of ``seat`` after ``events[:upto]`` of a played deal: its own
    concealed tiles, every seat's melds (with the seat each claim came from;
    another seat's concealed kong face down), ponds (claimed tiles in
    parentheses, ``*`` after a discard of the tile just drawn, as the engine
    flags it: ``view.POND_DRAWN``), flowers set aside, the indicator, seat
    and round winds, the kinds each seat let go by since its own last
    discard (``passed``: the others' discards and added kongs' tiles, as
    the engine marks them in ``View.passed``), and the tile ``seat`` just
    drew when it is to play (``drawn``; ``replacement`` when it came from
    the tail).
    The wall left is what the state leaves unseen (the default). ``row`` is
    the deal's game-mode row. Raises RunError if the log does not fit."""
    from nbsim.play.replays import hands_at, play_start
    from nbsim.rules.tiles import format_tiles
    melds: dict[str, list[str]] = {s: [] for s in C.SEAT_NAMES}
    ponds: dict[str, list[str]] = {s: [] for s in C.SEAT_NAMES}
    flowers: dict[str, list[int]] = {s: [] for s in C.SEAT_NAMES}
    # each seat's tile drawn this turn (a draw or a replacement in play; the
    # dealer's dealt fourteenth tile is none), until it discards or claims
    drew: dict[str, str | None] = {s: None for s in C.SEAT_NAMES}
    replaced = False        # the last tile drawn came from the tail (after a kong or a flower)
    passed: dict[str, set[int]] = {s: set() for s in C.SEAT_NAMES}
    start = play_start(events)
    indicator = None
    for j, e in enumerate(events[:upto]):
        a, s, t = e["action"], e["seat"], e["tile"]
        if a in ("discard", "added_kong"):
            # nobody won on it (a win ends the deal): every other seat let it go by
            if a == "discard":
                passed[s].clear()
            for o in C.SEAT_NAMES:
                if o != s:
                    passed[o].add(parse_tile(t))
        if a == "indicator":
            indicator = t
        elif a == "flower":
            flowers[s].append(parse_tile(t))
        elif a in ("draw", "replace") and j >= start:
            drew[s] = t
            replaced = a == "replace"
        elif a == "discard":
            ponds[s].append(t + ("*" if drew[s] == t else ""))
            drew[s] = None
        elif a in ("chow", "pung", "kong"):
            src = e["from_seat"]
            drew[s] = None
            for i in range(len(ponds[src]) - 1, -1, -1):
                if ponds[src][i].rstrip("*") == t:
                    ponds[src][i] = f"({t})" + ("*" if ponds[src][i].endswith("*") else "")
                    break
            melds[s].append(f"{e['meld']}@{src}")
        elif a == "concealed_kong":
            melds[s].append(e["meld"] if s == seat else "ckong")
        elif a == "added_kong":
            for i, m in enumerate(melds[s]):
                if m.startswith("pung:") and parse_tile(t) in _meld_tiles(m):
                    kinds = _meld_tiles(m) + [parse_tile(t)]
                    melds[s][i] = f"kong:{format_tiles(kinds)}@{m.split('@')[1]}"
                    break
    rw = row["round_wind"]
    state: dict[str, Any] = {
        "seat": seat, "round": C.SEAT_NAMES[int(rw)] if isinstance(rw, int) else str(rw),
        "hand": format_tiles(hands_at(row, events, upto)[seat]),
        "melds": {s: m for s, m in melds.items() if m},
        "discards": {s: "".join(p) for s, p in ponds.items() if p},
        "flowers": {s: format_tiles(f) for s, f in flowers.items() if f},
        "passed": {s: format_tiles(sorted(p)) for s, p in passed.items() if p}}
    if indicator is not None:
        state["indicator"] = indicator
    if drew[seat] is not None:
        # the seat to play holds the tile it just drew: a discard of it is
        # marked as drawn (view.POND_DRAWN), which the others' threat
        # models read
        state["drawn"] = drew[seat]
        if replaced:
            state["replacement"] = True
    return state


def east_positions(rules, seed: int, deals: int, policy: str = "defend", every: int = 1):
    """The played positions the world benchmarks study
    (``benchmarks/world_*.py``): deals 0 .. ``deals``-1 of ``seed`` with
    ``policy`` in every seat (``nbsim.play.replays.replay``), every
    ``every``-th discard of East from its fourth on whose rebuilt table
    (``state_at``) is legal. Yields (deal, row, events, i, view): the
    deal's game-mode row and event log, the discard's event index, and
    East's ``View`` of the table before it (``evaluation.view_of``)."""
    from nbsim.errors import NbsimError
    from nbsim.play.advice.state import position_from_state
    from nbsim.play.evaluation import view_of
    from nbsim.play.replays import replay
    rs = as_rules(rules)
    for d in range(deals):
        rec = replay(rs, seed, d, policy)
        row, ev = rec.row, rec.events
        turns = [i for i, e in enumerate(ev) if e["action"] == "discard" and e["seat"] == "E"]
        for i in turns[3::every]:
            try:
                view = view_of(rs, position_from_state(rs, state_at(row, ev, i, "E")))
            except NbsimError:
                continue
            yield d, row, ev, i, view

def replay_discard(row: dict, events: list[dict], i: int, view,
                   sr) -> tuple[str | None, list[int]]:
    """A played deal's discard ``events[i]`` played on from ``view``, the
    ``View`` of the table its seat saw (e.g. ``east_positions``'s, or
    ``evaluation.view_of`` of a ``state_at`` table), with the real hidden
    hands, face-down kongs and the wall's real next tiles (live draws and
    tail replacements), defend in every seat: (winner 'E'..'N' or None for
    an exhausted wall, the four payments in points). The deal was played
    by defend, which draws no random numbers, so this is the real outcome
    exactly when the view holds everything the engine's decisions read.
    ``row``, ``events``: ``nbsim.play.replays.replay``'s; ``sr``:
    ``engine.new_search(1, 2)``. Raises RunError when ``events[i]`` is no
    discard, the real tiles do not fit the view, or the engine stops with
    an error."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import state as ES
    from nbsim.play.replays import hidden_at
    from nbsim.play.worlds import play_defend, real_world

    e = events[i]
    if e["action"] != "discard":
        raise RunError(f"event {i} is a {e['action']}, not a discard")
    hands, kongs = hidden_at(row, events, i)
    live = [parse_tile(x["tile"]) for x in events[i:] if x["action"] == "draw"]
    tail = [parse_tile(x["tile"]) for x in events[i:] if x["action"] == "replace"]
    rng.stream_init(np.uint64(3), np.int64(i), rng.STREAM_USER, sr.st)
    if not real_world(view, ES.search_game(sr), sr.st, sr, hands, live, tail, kongs):
        raise RunError(f"event {i}: the real hidden tiles do not fit the rebuilt table")
    out = play_defend(view, sr, parse_tile(e["tile"]), np.uint64(3), i)
    if out[ES.O_ERROR] != 0:
        raise RunError(f"event {i}: the engine stopped with error {int(out[ES.O_ERROR])}")
    w = int(out[ES.O_WINNER])
    return (None if w < 0 else C.SEAT_NAMES[w],
            [int(out[ES.O_SCORE + C.RES_PAY + s]) for s in range(4)])


def _meld_tiles(meld: str) -> list[int]:
    from nbsim.rules.tiles import parse_tiles
    return parse_tiles(meld.split("@")[0].split(":")[-1], max_copies=None)


def divergences(config: RuleSet | str | Path, *, seed: int, deals: int | Sequence[int],
                expert: str = "lookahead", base: str = "defend",
                progress: bool | None = None) -> pl.DataFrame:
    """The first decision of each deal where ``expert`` (in every seat)
    plays otherwise than ``base`` (in every seat) on the same walls.

    Args:
        config: a RuleSet, shipped name or TOML path.
        seed: run seed, 0 .. 2**64 - 1.
        deals: how many deals (0 .. deals - 1), or the deal indices.
        expert, base: policy specs (``nbsim policies``), e.g. ``lookahead``
            and ``defend:caution=0.5``.
        progress: a tqdm bar on stderr counting the deals played by both
            policies; None: only when stderr is a terminal. A first call
            that compiles the game engine says so on stderr first (minutes).
    Returns:
        One row per deal whose play diverges. Columns: deal (i64), step
        (event index), seat ('E' 'S' 'W' 'N'), base_action and
        expert_action (e.g. 'discard', 'pung', 'pass'), draws (i64, wall
        draws made before the decision), own_melds and opp_melds (declared
        melds of the seat and the most of any opponent), hand (the seat's
        concealed tiles, notation), base_tile and expert_tile (notation;
        null when the action has no tile), and for discards on both sides,
        per side (prefix base_ / expert_): shanten (standard form, wilds as
        wilds, after the discard; i64), wild, honor, terminal (bool),
        visible (copies visible before the decision), opp_discarded
        (opponents who discarded that kind), held (copies held); then
        state (the seat's table state at the decision, JSON in the
        ``nbsim advise --state`` format: ``state_at``), base_pay and
        expert_pay (the seat's payment at the end of each game, points;
        what followed the divergence, one noisy sample).
    Raises:
        ConfigError (config), RunError (seed, deals or a policy spec).
    """
    import sys

    from tqdm import tqdm

    from nbsim.args import stderr_is_terminal, whole_number
    from nbsim.play.replays import hands_at
    from nbsim.policy_specs import as_policies
    from nbsim.rules.lookups import load_tables
    from nbsim.rules.tiles import format_tiles
    from nbsim.run.game_mode import game_frame
    from nbsim.warmup import ensure_compiled

    rs = as_rules(config)
    seed = whole_number(seed, "seed", error=RunError)
    if not 0 <= seed < 2**64:
        raise RunError(f"seed must be 0 .. 2**64 - 1, got {seed}")
    indices = _deal_indices(deals)
    pa, pb = as_policies(base), as_policies(expert)
    tables = load_tables()
    show = stderr_is_terminal() if progress is None else bool(progress)
    ensure_compiled("game", clock=show)       # says so before a first compile
    rows = []
    with tqdm(total=len(indices), unit="deal", disable=not show, file=sys.stderr,
              mininterval=0.25, desc=f"{expert} vs {base}") as bar:
        for lo, hi in _ranges(indices, CHUNK):
            fa, ea = game_frame(rs, seed, lo, hi, pa, tables, with_events=True)
            fb, eb = game_frame(rs, seed, lo, hi, pb, tables, with_events=True)
            for d in range(lo, hi):
                a = ea.filter(pl.col("deal") == d).drop("deal").to_dicts()
                b = eb.filter(pl.col("deal") == d).drop("deal").to_dicts()
                i = _first_divergence(a, b)
                if i is None:
                    continue
                ra = fa.filter(pl.col("deal") == d).row(0, named=True)
                rb = fb.filter(pl.col("deal") == d).row(0, named=True)
                rows.append(_row(rs, d, i, a, b, ra, rb, tables, hands_at, format_tiles))
            bar.update(hi - lo)
    if not rows:
        return pl.DataFrame(schema=_EMPTY_SCHEMA)
    return pl.DataFrame(rows, infer_schema_length=None)


def _deal_indices(deals) -> list[int]:
    """``deals`` as sorted deal indices: a count n (deals 0 .. n - 1) or a
    sequence of indices >= 0. Raises RunError for anything else."""
    from nbsim.run.files import MAX_DEALS
    what = "deals: expected a count >= 1 or a list of deal indices >= 0"
    if isinstance(deals, (str, bytes, float, bool)) or deals is None:
        raise RunError(f"{what}, got {deals!r}")
    if isinstance(deals, int):
        if not 1 <= deals <= MAX_DEALS:
            raise RunError(f"deals must be 1 .. {MAX_DEALS:,}, got {deals}")
        return list(range(deals))
    try:
        items = list(deals)
    except TypeError:
        raise RunError(f"{what}, got {deals!r}") from None
    if not items or not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < MAX_DEALS
                            for d in items):
        raise RunError(f"{what}, got {deals!r}")
    return sorted(set(items))


def _ranges(indices: list[int], most: int) -> list[tuple[int, int]]:
    """Consecutive runs of deal indices as [lo, hi) ranges of at most
    ``most`` deals (deal i has the same wall whatever the range)."""
    out: list[tuple[int, int]] = []
    for d in indices:
        if out and out[-1][1] == d and d - out[-1][0] < most:
            out[-1] = (out[-1][0], d + 1)
        else:
            out.append((d, d + 1))
    return out


def _row(rs, d, i, a, b, ra, rb, tables, hands_at, format_tiles) -> dict:
    x, y = a[i], b[i]
    # a claim (or win) made on one side and passed on the other shows as the
    # passing side's next event: the deciding seat is the claimer
    if x["seat"] == y["seat"] or y["action"] not in _CLAIMS and x["action"] not in _CLAIMS:
        seat = y["seat"] or x["seat"]
    else:
        seat = y["seat"] if y["action"] in _CLAIMS else x["seat"]
    hand_kinds = hands_at(ra, a, i)[seat]
    hand = np.bincount(np.asarray(hand_kinds, dtype=np.int64), minlength=C.N_KINDS)
    state = state_at(ra, a, i, seat)
    melds = {o: len(state["melds"].get(o, [])) for o in C.SEAT_NAMES}
    draws = sum(e["action"] == "draw" for e in a[:i])
    wild = {parse_tile(t) for t in (ra["wild_kinds"] or [])}
    row = {"deal": d, "step": i, "seat": seat,
           "base_action": x["action"] if x["seat"] == seat else "pass",
           "expert_action": y["action"] if y["seat"] == seat else "pass",
           "draws": draws, "own_melds": melds[seat],
           "opp_melds": max(melds[o] for o in C.SEAT_NAMES if o != seat),
           "hand": format_tiles(hand_kinds),
           "base_tile": x["tile"] if x["seat"] == seat else None,
           "expert_tile": y["tile"] if y["seat"] == seat else None}
    if row["base_action"] == "discard" and row["expert_action"] == "discard":
        # what the seat sees, as the advisor counts it (the state is checked
        # against the rules on the way)
        from nbsim.play.advice.state import position_from_state, seen_copies
        pos = position_from_state(rs, state)
        seen = seen_copies(pos.hand, pos.melds, pos.n_melds, pos.pond, pos.pond_flags,
                           pos.n_pond, pos.flowers, pos.indicator)
        visible = seen["melds"] + seen["discards"] + seen["indicator"]
        me = C.SEAT_NAMES.index(seat)
        ponds = [set(pos.pond[j, :pos.n_pond[j]].tolist()) for j in range(4)]
        for side, t in (("base", x["tile"]), ("expert", y["tile"])):
            k = parse_tile(t)
            opp = sum(k in ponds[j] for j in range(4) if j != me)
            feats = _tile_features(k, hand, wild, visible, opp, melds[seat], tables)
            row.update({f"{side}_{n}": v for n, v in feats.items()})
    row["state"] = json.dumps(state, ensure_ascii=False)
    row["base_pay"] = ra[f"pay_{seat.lower()}"]
    row["expert_pay"] = rb[f"pay_{seat.lower()}"]
    return row


def summarize(df: pl.DataFrame) -> pl.DataFrame:
    """How the expert's discards differ from the base's, over the rows of
    ``divergences`` where both discarded: per feature, the share of those
    decisions where only the expert's tile has it and where only the base's
    has it, each with its 95% Wilson interval (``nbsim.stats.prop_row``).
    Columns: feature, meaning, n, expert_only, expert_ci_low,
    expert_ci_high, base_only, base_ci_low, base_ci_high (shares 0..1).
    Raises RunError when ``df`` holds no discard divergence."""
    from nbsim.stats import prop_row
    if "base_shanten" not in df.columns:
        raise RunError("no decision where both policies discarded: nothing to summarize")
    both = df.filter(pl.col("base_shanten").is_not_null()
                     & pl.col("expert_shanten").is_not_null())
    n = both.height
    rows = []
    for name, meaning, exp_only, base_only in _CONTRASTS:
        e = prop_row(both.filter(exp_only).height, n)
        b = prop_row(both.filter(base_only).height, n)
        rows.append({"feature": name, "meaning": meaning, "n": n,
                     "expert_only": e["p"], "expert_ci_low": e["ci_low"],
                     "expert_ci_high": e["ci_high"], "base_only": b["p"],
                     "base_ci_low": b["ci_low"], "base_ci_high": b["ci_high"]})
    return pl.DataFrame(rows)


def assess(config: RuleSet | str | Path, df: pl.DataFrame, *, samples: int = 1_000,
           seed: int = 0, playout: str = "defend", opponents: int = ADVICE_OPPONENTS,
           progress: bool | None = None) -> pl.DataFrame:
    """Each discard divergence of ``divergences`` settled by the evaluator:
    the base's and the expert's discard played to the end of the deal on
    ``samples`` sampled worlds of the deciding seat's view (common random
    numbers; ``nbsim.play.evaluation.evaluate`` with ``playout`` in every seat
    and the worlds' opponent model ``opponents``, evaluate's by default).

    Returns the discard rows of ``df`` with gain (f64: the expert's discard
    minus the base's, mean payment of the seat, points per deal), gain_se
    (its standard error, paired) and gain_z (gain / gain_se). Over many
    divergences, the mean gain says whether the expert's departures from
    the base pay, free of the noise of one game's outcome; a mean near zero
    with many |z| > 1 departures is the search chasing noise. progress: a
    tqdm bar on stderr counting the rows (None: when stderr is a terminal);
    a first call that compiles the evaluator says so first.
    Raises RunError (no discard rows, a bad samples count, policy or
    opponent model) and
    HandError (a state that does not fit the rules)."""
    import sys

    from tqdm import tqdm

    from nbsim.args import stderr_is_terminal
    from nbsim.play.advice.state import position_from_state
    from nbsim.play.evaluation import evaluate
    from nbsim.warmup import ensure_compiled
    rs = as_rules(config)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
        raise RunError(f"seed must be a whole number 0 .. 2**62 - 1, got {seed!r}")
    if "state" not in df.columns or "base_shanten" not in df.columns:
        raise RunError("assess needs the rows of divergences() with discards on both sides "
                       "(none here)")
    rows = df.filter(pl.col("base_shanten").is_not_null()
                     & pl.col("expert_shanten").is_not_null())
    if not rows.height:
        raise RunError("no decision where both policies discarded: nothing to assess")
    gains, ses = [], []
    show = stderr_is_terminal() if progress is None else bool(progress)
    ensure_compiled("advice", clock=show)        # says so before a first compile
    for r in tqdm(rows.iter_rows(named=True), total=rows.height, unit="decision",
                  disable=not show, file=sys.stderr, mininterval=0.25,
                  desc=f"assess ({samples} samples)"):
        pos = position_from_state(rs, json.loads(r["state"]))
        kb, ke = parse_tile(r["base_tile"]), parse_tile(r["expert_tile"])
        ev = evaluate(rs, pos, samples=samples, seed=seed + int(r["deal"]), base=playout,
                      kinds=[kb, ke], opponents=opponents)
        by = {c.kind: c for c in ev.candidates}
        best = ev.candidates[0]
        # diff is each candidate minus the evaluation's best (paired)
        g = by[ke].diff - by[kb].diff
        se = (by[kb].diff_se if best.kind == ke else by[ke].diff_se)
        gains.append(g)
        ses.append(se)
    return rows.with_columns(
        pl.Series("gain", gains, dtype=pl.Float64),
        pl.Series("gain_se", ses, dtype=pl.Float64)).with_columns(
        (pl.col("gain") / pl.when(pl.col("gain_se") > 0).then(pl.col("gain_se"))
         .otherwise(math.nan)).alias("gain_z"))
