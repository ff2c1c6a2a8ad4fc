"""Game mode: played-out deals and matches by policy spec, and one deal with
its event log (replays, validation).

Wraps ``nbsim.kernels.engine.games`` / ``nbsim.kernels.engine.loop`` (docs/rules.md
§2, §4-§8); the frames are built by ``nbsim.run.frames``. Seats are named by seat
wind with the dealer as East.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from nbsim.errors import RunError
from nbsim.kernels import codes as C
from nbsim.kernels.engine import games as KG
from nbsim.kernels.engine.state import new_state
from nbsim.policy_specs import as_policies, kernel_arrays
from nbsim.rules.ruleset import RuleSet
from nbsim.run import frames as F
from nbsim.run import schema as S
from nbsim.run.frames import deal_columns, events_frame, game_columns


def game_frame(rs: RuleSet, seed: int, start: int, stop: int, policies, tables,
               with_events: bool = False, progress=None, halt=None):
    """Independent deals ``start .. stop - 1`` of ``seed`` played out
    (``nbsim.run.frames.game_frame``). policies: 4 policy specs or
    ``nbsim.policy_specs.Policy`` (per seat from the dealer;
    ``nbsim.policy_specs.as_policies``). Returns (game-schema DataFrame, events
    DataFrame or None); with ``halt`` (a function, true when the work should
    stop), the deals finished before it said stop, or (None, None)."""
    policies = as_policies(policies)
    return F.game_frame(rs, seed, start, stop, tuple(p.full for p in policies),
                        kernel_arrays(policies, rs.array, tables), tables, with_events, progress,
                        halt)


def match_frame(rs: RuleSet, seed: int, m_start: int, m_stop: int, player_policies, tables,
                with_events: bool = False, progress=None, halt=None):
    """Whole matches ``m_start .. m_stop - 1`` (``nbsim.run.frames.match_frame``).
    player_policies: 4 policy specs or Policies, by player. Returns (deal
    rows, match totals, events or None); with ``halt`` (a function, true
    when the work should stop), the matches finished before it said stop,
    or (None, None, None)."""
    player_policies = as_policies(player_policies)
    return F.match_frame(rs, seed, m_start, m_stop, tuple(p.full for p in player_policies),
                         kernel_arrays(player_policies, rs.array, tables), tables, with_events,
                         progress, halt)


@dataclass
class DealRecord:
    """One played deal: its game-mode row (dict) and its event log (list of
    dicts with step, seat, action, tile, meld, from_seat, pos)."""
    row: dict
    events: list[dict] = field(default_factory=list)


def play_one(rs: RuleSet, seed: int, deal: int, policies, tables=None) -> DealRecord:
    """Play deal ``deal`` of ``seed`` alone, with its event log. Gives the
    same row as ``game_frame`` (same wall, round wind and decision streams)."""
    if tables is None:
        from nbsim.rules.lookups import load_tables
        tables = load_tables()
    df, ev = game_frame(rs, seed, deal, deal + 1, policies, tables, with_events=True)
    return DealRecord(row=df.row(0, named=True), events=ev.drop("deal").to_dicts())


def play_wall(rs: RuleSet, tiles: np.ndarray, indicator_pos: int, policies, *, seed: int = 0,
              deal: int = 0, round_wind: int = 0, dice=(0, 0, 0, 0),
              tables=None) -> DealRecord:
    """Play one deal from a given wall: ``tiles`` uint8[144] physical tile ids
    in draw order (``nbsim/kernels/wall.py``), the indicator at
    ``indicator_pos`` (-1: none). Policies' random streams are those of
    (seed, deal). For constructed-wall tests and replays of recorded walls."""
    if tables is None:
        from nbsim.rules.lookups import load_tables
        tables = load_tables()
    policies = as_policies(policies)
    tiles = np.asarray(tiles, dtype=np.uint8)
    if tiles.shape != (C.N_TILES,) or sorted(tiles.tolist()) != list(range(C.N_TILES)):
        raise RunError("a wall must hold each of the 144 tile ids 0..143 exactly once")
    a = F._alloc(1, False)
    log = np.zeros((KG.MAX_EVENTS, C.EV_LEN), np.int32)
    pols = kernel_arrays(policies, rs.array, tables)
    n_log = KG.wall_game(rs.array, tables, tiles, np.asarray(dice, dtype=np.int64),
                         int(indicator_pos), np.uint64(seed), int(deal), int(round_wind), pols,
                         new_state(), KG.DealRows(*(a[k] for k in F.PER_DEAL)), log)
    a["round_winds"][0] = round_wind
    cols = deal_columns(rs.array, seed, deal, a["hands"], a["flowers"], a["wilds"], a["dice"],
                        a["ind"], a["comp"])
    cols.update(game_columns(rs, a["out"], a["melds"], a["round_winds"],
                             tuple(p.full for p in policies)))
    order = S.column_order("game", rs)
    df = pl.DataFrame([cols[c] for c in order]).cast(
        dict(S.schema("game", rs)))  # type: ignore[arg-type]
    n = min(n_log, KG.MAX_EVENTS)
    ev = events_frame(log[:n], np.zeros(n, np.int64), np.arange(n, dtype=np.int32))
    return DealRecord(row=df.row(0, named=True), events=ev.drop("deal").to_dicts())
