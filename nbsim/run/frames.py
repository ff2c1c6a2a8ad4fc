"""Kernel arrays -> polars frames: every builder of the result tables.

Deal mode (``deal_columns``, ``deal_frame``), played deals (``game_columns``,
``game_frame``), whole matches (``match_frame``) and event logs
(``events_frame``), in the schema of ``nbsim.run.schema`` (docs/rules.md §2-§8).
Seats are named by seat wind with the dealer as East; ``winner``,
``discarder`` and the per-seat columns use the same naming. Strings are built
without Python loops: hand notation in the kernel (``kernels.batch``), the
other text columns by vectorised look-ups into small tables.

This module knows nothing about policies: the game builders take the policy
specs (strings written to the ``policy_*`` columns) and the kernel's policy
arguments made from them by ``nbsim.policy_specs.kernel_arrays``.
"""
from __future__ import annotations

import functools
import threading
import time

import numpy as np
import polars as pl
import pyarrow as pa

from nbsim.errors import RunError
from nbsim.kernels import batch as KB
from nbsim.kernels import codes as C
from nbsim.kernels.wilds import wild_kinds
from nbsim.rules.ruleset import RuleSet
from nbsim.rules.tiles import KIND_NAMES, format_meld, format_tiles
from nbsim.run import schema as S

SEATS = C.SEAT_NAMES


# ------------------------------------------------------------------ deal mode
class _ArrowStream:
    """A pyarrow array seen through the Arrow PyCapsule stream interface only:
    polars then imports it directly, where a pyarrow array itself goes
    through ``pyarrow.compute`` (an import every process would pay)."""

    def __init__(self, array):
        self.array = array

    def __arrow_c_stream__(self, requested_schema=None):
        return pa.chunked_array([self.array]).__arrow_c_stream__(requested_schema)


def _from_arrow(array, name: str) -> pl.Series:
    return pl.Series(_ArrowStream(array)).alias(name)


def _strings(data: np.ndarray, offsets: np.ndarray, n: int, name: str) -> pl.Series:
    return _from_arrow(pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data)),
                       name)


def _lookup_tables(rules: np.ndarray):
    """Notation look-ups by indicator kind (index 42 = no indicator) and by
    flower bit mask (cached per rules array)."""
    return _cached_lookup_tables(rules.tobytes())


@functools.lru_cache(maxsize=16)
def _cached_lookup_tables(key: bytes):
    rules = np.frombuffer(key, dtype=np.int64)
    ind = pl.Series("indicator", list(KIND_NAMES) + [None], dtype=pl.String)
    wk = [[KIND_NAMES[k] for k in wild_kinds(rules, i)] for i in range(C.N_KINDS)] + [[]]
    wild = pl.Series("wild_kinds", wk, dtype=pl.List(pl.String))
    flowers = pl.Series("flowers", [format_tiles([C.FLOWER0 + f for f in range(8) if m >> f & 1])
                                    for m in range(256)], dtype=pl.String)
    return ind, wild, flowers


CALL_S = 0.2     # seconds a kernel call aims at: a stop request waits about this long


class Pace:
    """Cuts a range of deals (or matches) into kernel calls of about
    ``CALL_S`` seconds each, sized from the rate of the calls so far: the
    first call takes one unit, each next one at most 8 times as many as the
    last, never more than ``limit``. Between calls it reports progress and
    asks whether to stop. The cut changes no row: a deal depends on the
    seed and its index only (docs/rules.md §2). One Pace serves the
    successive chunks of one range.

    With a ``halt`` function, each kernel call runs in a daemon thread of
    its own while the caller watches ``halt`` every ``POLL_S`` seconds: a
    stop request is answered at once, even in the middle of a long call
    (one deal of a search policy can take seconds); the call is then left
    to finish unseen, writing only past the units kept."""

    def __init__(self, limit: int):
        self.limit = max(1, int(limit))
        self.size = 1

    def run(self, n: int, call, commit=None, progress=None, halt=None) -> int:
        """Do units ``0 .. n - 1``: ``call(i, k)`` computes units i .. i + k - 1
        (writing only there) and returns a value for ``commit(value)``, run
        by this thread, which returns the units done (k; 0 to call again with
        the same units; None commit: k). ``progress(k)`` follows each commit;
        once ``halt()`` is true no call starts and a running one is
        abandoned. Returns the units done and committed."""
        i = 0
        while i < n:
            if halt is not None and halt():
                break
            k = min(self.size, n - i)
            t0 = time.perf_counter()
            if halt is None:
                value = call(i, k)
            else:
                box = _Call(call, i, k)
                if not box.wait(halt):
                    break
                value = box.value
            done = k if commit is None else commit(value)
            dt = time.perf_counter() - t0
            if not done:
                continue
            i += done
            if progress is not None:
                progress(done)
            fit = int(done * CALL_S / dt) if dt > 0 else self.limit
            self.size = max(1, min(self.limit, 8 * done, fit))
        return i


POLL_S = 0.02    # how often a caller waiting for a kernel call asks ``halt``
KERNEL_CALL_THREAD = "nbsim-kernel-call"   # the name nbsim.cli.main looks for


class _Call:
    """``fn(*args)`` running in a daemon thread (``Pace``)."""

    def __init__(self, fn, *args):
        self.value = None
        self.error: BaseException | None = None
        self.done = threading.Event()

        def target():
            try:
                self.value = fn(*args)
            except BaseException as e:     # noqa: BLE001 - raised by wait()
                self.error = e
            finally:
                self.done.set()

        threading.Thread(target=target, daemon=True, name=KERNEL_CALL_THREAD).start()

    def wait(self, halt) -> bool:
        """Wait for the call; False if ``halt()`` came first. Raises the
        call's error."""
        while not self.done.wait(POLL_S):
            if halt():
                return False
        if self.error is not None:
            raise self.error
        return True


def deal_columns(arr: np.ndarray, seed: int, start: int, hands, flowers, wilds, dice, ind,
                 comp) -> dict[str, pl.Series]:
    """The deal-mode columns (``nbsim.run.schema``) from the deal kernel's arrays
    for deals ``start .. start + n - 1``: hands int8[n, 4, 42], flowers
    uint8[n, 4] bit masks, wilds uint8[n, 4], dice uint8[n, 4], ind int8[n]
    (indicator kind or -1), comp bool[n]. Shared by deal and game mode."""
    n = hands.shape[0]
    ind_lut, wild_lut, flower_lut = _lookup_tables(arr)
    ind_idx = np.where(ind < 0, C.N_KINDS, ind).astype(np.int64)
    n_dice = 2 * int(arr[C.R_DICE_THROWS])
    cols: dict[str, pl.Series] = {
        "deal": pl.Series("deal", np.arange(start, start + n, dtype=np.int64)),
        "seed": pl.Series("seed", np.full(n, seed, dtype=np.uint64)),
        "dice": pl.Series("dice", np.ascontiguousarray(dice[:, :n_dice])).cast(pl.List(pl.UInt8)),
        "indicator": ind_lut.gather(ind_idx).alias("indicator"),
        "wild_kinds": wild_lut.gather(ind_idx).alias("wild_kinds"),
        "dealer_complete": pl.Series("dealer_complete", comp),
    }
    data, offsets, used = hand_text(hands)
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"hand_{suf}"] = _strings(data[s, :used[s]], offsets[s], n, f"hand_{suf}")
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"flowers_{suf}"] = flower_lut.gather(flowers[:, s].astype(np.int64)).alias(
            f"flowers_{suf}")
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"wilds_{suf}"] = pl.Series(f"wilds_{suf}", np.ascontiguousarray(wilds[:, s]))
    return cols


def hand_text(hands: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hand notation of int8[n, 4, 42] hands, written by the kernel
    (``kernels.batch.format_hands``): per seat, the UTF-8 bytes
    (uint8[4, n * MAX_HAND_TEXT + 4]), the Arrow string offsets
    (int32[4, n + 1]) and the number of bytes used (int64[4])."""
    n = hands.shape[0]
    data = np.empty((4, n * KB.MAX_HAND_TEXT + 4), np.uint8)
    offsets = np.empty((4, n + 1), np.int32)
    used = np.zeros(4, np.int64)
    KB.format_hands(hands, KB.SUIT_LETTERS, data, offsets, used)
    return data, offsets, used


def deal_arrays(arr: np.ndarray, seed: int, start: int, stop: int, tables, pace=None,
                halt=None, progress=None) -> tuple:
    """The deal kernel's arrays for deals ``start .. stop - 1`` of ``seed``
    (the arguments of ``deal_columns`` after ``start``): hands, flowers, wilds,
    dice, ind, comp (numpy only; ``deal_frame`` makes the polars frame).
    pace, halt, progress: as ``game_arrays`` (the arrays hold the deals
    done before ``halt()`` said stop: ``start .. start + len(ind) - 1``).
    Raises RunError if the kernel reports a failure (a bug)."""
    n = stop - start
    hands = np.empty((n, 4, C.N_KINDS), np.int8)
    flowers = np.empty((n, 4), np.uint8)
    wilds = np.empty((n, 4), np.uint8)
    dice = np.empty((n, 4), np.uint8)
    ind = np.empty(n, np.int8)
    comp = np.empty(n, np.bool_)
    out = (hands, flowers, wilds, dice, ind, comp)

    def call(i, k):
        res = KB.deal_batch(arr, np.uint64(seed), np.int64(start + i), tables,
                            *(x[i:i + k] for x in out))
        if res < 0:  # pragma: no cover - a 144-tile wall always suffices
            raise RunError(f"deal kernel failed in deals {start + i}..{start + i + k - 1}")
        return k

    done = (pace or Pace(n)).run(n, call, None, progress, halt)
    return tuple(x[:done] for x in out)


def deal_frame(rules: RuleSet | np.ndarray, seed: int, start: int, stop: int,
               tables=None, progress=None, halt=None) -> pl.DataFrame:
    """Deals ``start .. stop - 1`` of ``seed`` as a DataFrame in the deal-mode
    schema (``nbsim.run.schema``; docs/rules.md §2, §3, §5).

    rules: a RuleSet or its int64[R_LEN] array; seed: 0 .. 2**64 - 1;
    tables: ``nbsim.rules.lookups.load_tables()`` (loaded if None);
    progress: called with the number of deals after each kernel call;
    halt: a function, true when the work should stop: the frame then holds
    the deals done before (``start .. start + height - 1``, maybe none)."""
    arr = rules.array if isinstance(rules, RuleSet) else rules
    if tables is None:
        from nbsim.rules.lookups import load_tables
        tables = load_tables()
    arrays = deal_arrays(arr, seed, start, stop, tables, None, halt, progress)
    cols = deal_columns(arr, seed, start, *arrays)
    df = pl.DataFrame([cols[c] for c in S.column_order("deal")])
    return df.cast(pl.Schema(S.schema("deal")))



# ------------------------------------------------------------------ game mode
def _seat_series(name: str, values: np.ndarray) -> pl.Series:
    lut = pl.Series(name, list(SEATS) + [None], dtype=pl.String)
    idx = np.where(values < 0, 4, values).astype(np.int64)
    return lut.gather(idx).alias(name)


def _melds_column(melds: np.ndarray, n_melds: np.ndarray, seat: int, name: str) -> pl.Series:
    """List of meld notations per row (``pung:777z``), by vectorised look-up
    into ``_MELD_TEXT`` and an Arrow list built from offsets."""
    typ = melds[:, seat, :, 0].astype(np.int64)
    kind = melds[:, seat, :, 1].astype(np.int64)
    code = np.where(typ == C.MELD_CHOW, kind, typ * C.N_PLAY + kind)
    nm = n_melds[:, seat].astype(np.int64)
    keep = np.arange(C.MAX_MELDS)[None, :] < nm[:, None]
    values = pl.Series("m", _MELD_TEXT, dtype=pl.String).gather(code[keep])
    off = np.concatenate([[0], np.cumsum(nm)]).astype(np.int32)
    # from a buffer: pa.array(ndarray) would import pandas
    offsets = pa.Array.from_buffers(pa.int32(), len(off), [None, pa.py_buffer(off)])
    return _from_arrow(pa.ListArray.from_arrays(offsets, values.to_arrow()), name)


def _when_won(name: str, values: np.ndarray, won: np.ndarray, dtype) -> pl.Series:
    """values where a player won, null on an exhaustive draw."""
    return pl.Series(name, values).cast(dtype).zip_with(pl.Series(won),
                                                        pl.Series(name, [None] * len(won),
                                                                  dtype=dtype))


def _context_list(ctx: int) -> list[str]:
    return [n for b, n in enumerate(C.CONTEXT_NAMES) if ctx & (1 << b)]


def game_columns(rs: RuleSet, out: np.ndarray, melds: np.ndarray, round_winds: np.ndarray,
                 policy_names_per_row) -> dict[str, pl.Series]:
    """The game-mode columns (``schema.game_columns``) from the engine's result
    rows. out: int64[n, OUT_LEN]; melds: int8[n, 4, 4, 3]; round_winds: int[n];
    policy_names_per_row: [n][4] policy names by seat (or one 4-tuple).

    The winner's items come from the scorer's result (``codes.RES_*``): tai
    and presence per tai item (``has_<item>``, 0-tai items included), or the
    Ninghai fan and fu per item; flowers_end_* from ``engine.O_FLOWERS_END``
    (bit masks, written in notation); a heavenly hand's winning tile is null
    (``engine.O_WIN_TILE`` is -1: the dealer's 14 tiles have none)."""
    from nbsim.kernels.engine import state as ES
    n = out.shape[0]
    cols: dict[str, pl.Series] = {}
    cols["round_wind"] = _seat_series("round_wind", round_winds.astype(np.int64))
    outcome_lut = pl.Series("outcome", list(C.OUTCOME_NAMES), dtype=pl.String)
    cols["outcome"] = outcome_lut.gather(out[:, ES.O_OUTCOME]).alias("outcome")
    cols["winner"] = _seat_series("winner", out[:, ES.O_WINNER])
    cols["discarder"] = _seat_series("discarder", out[:, ES.O_DISCARDER])
    won = out[:, ES.O_WINNER] >= 0
    wt = out[:, ES.O_WIN_TILE]
    tile_lut = pl.Series("win_tile", list(KIND_NAMES) + [None], dtype=pl.String)
    cols["win_tile"] = tile_lut.gather(np.where(wt < 0, C.N_KINDS, wt)).alias("win_tile")
    ctx_lut = pl.Series("context", [_context_list(c) for c in range(16)],
                        dtype=pl.List(pl.String))
    cols["context"] = ctx_lut.gather(out[:, ES.O_CTX] & 15).alias("context")
    res = out[:, ES.O_SCORE:ES.O_SCORE + C.RES_LEN]
    if rs.config.scoring.system == "tai":
        cols["tai"] = _when_won("tai", res[:, C.RES_TAI], won, pl.Int16)
        present = res[:, C.RES_PRESENT]     # zero on a wall-exhausted deal
        for item in rs.tai_items:
            i = C.TAI_ITEMS.index(item)
            cols[f"tai_{item}"] = pl.Series(f"tai_{item}",
                                            res[:, C.RES_ITEMS + i].astype(np.int16))
            cols[f"has_{item}"] = pl.Series(f"has_{item}", ((present >> i) & 1).astype(np.bool_))
    else:
        cols["fan"] = _when_won("fan", res[:, C.RES_FAN], won, pl.Int16)
        cols["fu"] = _when_won("fu", res[:, C.RES_FU], won, pl.Int16)
        for item in rs.fan_items:
            j = C.FAN_ITEMS.index(item)
            cols[f"fan_{item}"] = pl.Series(f"fan_{item}",
                                            res[:, C.RES_FAN_ITEMS + j].astype(np.int16))
        for item in rs.fu_items:
            j = C.FU_ITEMS.index(item)
            cols[f"fu_{item}"] = pl.Series(f"fu_{item}",
                                           res[:, C.RES_FU_ITEMS + j].astype(np.int16))
        for j, sch in enumerate(C.SCHEME_NAMES):
            cols[f"points_{sch}"] = _when_won(f"points_{sch}", res[:, C.RES_POINTS + j], won,
                                              pl.Int32)
        cols["liable"] = _seat_series("liable", out[:, ES.O_LIABLE])
        for s, suf in enumerate(S.SEAT_SUFFIXES):
            cols[f"fu_{suf}"] = pl.Series(f"fu_{suf}", out[:, ES.O_FU + s].astype(np.int16))
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"pay_{suf}"] = pl.Series(f"pay_{suf}", res[:, C.RES_PAY + s].astype(np.int32))
    cols["wilds_win"] = _when_won("wilds_win", res[:, C.RES_WILDS], won, pl.UInt8)
    cols["turns"] = pl.Series("turns", out[:, ES.O_TURNS].astype(np.int16))
    cols["tiles_left"] = pl.Series("tiles_left", out[:, ES.O_TILES_LEFT].astype(np.int16))
    cols["kongs"] = pl.Series("kongs", out[:, ES.O_N_KONGS].astype(np.int8))
    n_melds = out[:, ES.O_N_MELDS:ES.O_N_MELDS + 4]
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"melds_{suf}"] = _melds_column(melds, n_melds, s, f"melds_{suf}")
    flower_lut = _lookup_tables(rs.array)[2]
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"flowers_end_{suf}"] = flower_lut.gather(
            out[:, ES.O_FLOWERS_END + s].astype(np.int64)).alias(f"flowers_end_{suf}")
    if isinstance(policy_names_per_row, tuple):
        for s, suf in enumerate(S.SEAT_SUFFIXES):
            cols[f"policy_{suf}"] = pl.Series(f"policy_{suf}",
                                              [policy_names_per_row[s]] * n, dtype=pl.String)
    else:
        for s, suf in enumerate(S.SEAT_SUFFIXES):
            cols[f"policy_{suf}"] = pl.Series(f"policy_{suf}",
                                              [p[s] for p in policy_names_per_row],
                                              dtype=pl.String)
    errors = out[:, ES.O_ERROR]
    if errors.any():
        bad = np.flatnonzero(errors)
        raise RunError(f"engine error {int(errors[bad[0]])} in {len(bad)} deal(s) "
                       f"(first row {int(bad[0])}): this is a bug in nbsim, please report it")
    return cols


# notation look-ups for the events table: tile texts (kinds 0..41, then die
# values 1..6) and meld texts (chow by lowest kind, pung, kong, ckong by kind,
# then the win kinds)
_TILE_TEXT = list(KIND_NAMES) + [str(d) for d in range(1, 7)] + [None]
_MELD_TEXT = ([format_meld(C.MELD_CHOW, k) if k < 27 and k % 9 <= 6 else None
               for k in range(C.N_PLAY)]
              + [format_meld(t, k) for t in (C.MELD_PUNG, C.MELD_KONG, C.MELD_CKONG)
                 for k in range(C.N_PLAY)]
              + list(C.WIN_BY_NAMES) + [None])


def events_frame(events: np.ndarray, event_deal: np.ndarray, event_step: np.ndarray,
                 deal_offset: int = 0) -> pl.DataFrame:
    """Event rows (int32[m, EV_LEN]) -> DataFrame with columns deal, step,
    seat, action, tile, meld, from_seat, pos (``schema.EVENT_COLUMNS``),
    built with vectorised look-ups (millions of rows per shard)."""
    act = events[:, C.EV_ACTION].astype(np.int64)
    tile = events[:, C.EV_TILE].astype(np.int64)
    meld = events[:, C.EV_MELD].astype(np.int64)
    none_t = len(_TILE_TEXT) - 1
    t_idx = np.where(act == C.A_DICE, C.N_KINDS + tile - 1, np.where(tile >= 0, tile, none_t))
    none_m = len(_MELD_TEXT) - 1
    m_idx = np.full(len(act), none_m, dtype=np.int64)
    m_idx = np.where(act == C.A_CHOW, meld, m_idx)
    m_idx = np.where(act == C.A_PUNG, C.N_PLAY + tile, m_idx)
    m_idx = np.where((act == C.A_KONG) | (act == C.A_ADDED_KONG), 2 * C.N_PLAY + tile, m_idx)
    m_idx = np.where(act == C.A_CONCEALED_KONG, 3 * C.N_PLAY + tile, m_idx)
    m_idx = np.where((act == C.A_WIN) | (act == C.A_PASS_WIN), 4 * C.N_PLAY + meld, m_idx)
    tile_lut = pl.Series("tile", _TILE_TEXT, dtype=pl.String)
    meld_lut = pl.Series("meld", _MELD_TEXT, dtype=pl.String)
    action_lut = pl.Series("action", list(C.ACTION_NAMES), dtype=pl.String)
    return pl.DataFrame([
        pl.Series("deal", event_deal.astype(np.int64) + deal_offset),
        pl.Series("step", event_step.astype(np.int32)),
        _seat_series("seat", events[:, C.EV_SEAT].astype(np.int64)),
        action_lut.gather(act).alias("action"),
        tile_lut.gather(t_idx).alias("tile"),
        meld_lut.gather(m_idx).alias("meld"),
        _seat_series("from_seat", events[:, C.EV_FROM].astype(np.int64)),
        pl.Series("pos", events[:, C.EV_POS].astype(np.int16)),
    ])


def _alloc(n: int, with_events: bool):
    # the game engine's modules load only for game mode (deal mode never
    # imports them)
    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine import state as ES
    return dict(
        out=np.zeros((n, ES.OUT_LEN), np.int64),
        melds=np.zeros((n, 4, C.MAX_MELDS, 3), np.int8),
        round_winds=np.zeros(n, np.int8),
        hands=np.zeros((n, 4, C.N_KINDS), np.int8),
        flowers=np.zeros((n, 4), np.uint8),
        wilds=np.zeros((n, 4), np.uint8),
        dice=np.zeros((n, 4), np.uint8),
        ind=np.zeros(n, np.int8),
        comp=np.zeros(n, np.bool_),
        events=np.zeros((n * KG.MAX_EVENTS if with_events else 0, C.EV_LEN), np.int32),
        event_deal=np.zeros(n * KG.MAX_EVENTS if with_events else 0, np.int64),
        event_step=np.zeros(n * KG.MAX_EVENTS if with_events else 0, np.int32),
    )


# the keys of ``_alloc``'s arrays in the order of the kernels' records
# (``engine.games.DealRows``, ``EventRows``)
PER_DEAL = ("out", "melds", "round_winds", "hands", "flowers", "wilds", "dice", "ind", "comp")
PER_EVENT = ("events", "event_deal", "event_step")

EVENT_CHUNK = 2_000       # deals per kernel call when logging events (1024 rows each)
PLAIN_CHUNK = 4_000       # deals per kernel call otherwise (progress at least once a second)
MATCH_CHUNK = 50          # matches per kernel call


def game_frame(rs: RuleSet, seed: int, start: int, stop: int, policies: tuple[str, ...],
               policy_args: tuple, tables, with_events: bool = False, progress=None,
               halt=None):
    """Independent deals ``start .. stop - 1`` of ``seed`` played out.

    policies: the 4 policy specs by seat (strings, written to the policy_*
    columns); policy_args: the kernel's policy arguments for them
    (``nbsim.policy_specs.kernel_arrays``: a ``Policies`` record);
    tables: ``load_tables()``;
    progress: called with the number of deals after each kernel call;
    halt: a function, true when the work should stop (checked between
    kernel calls of about ``CALL_S`` seconds, ``Pace``).
    Returns (DataFrame in the game schema of ``rs``, events DataFrame or
    None): the deals ``start .. start + height - 1``, all of them unless
    ``halt`` stopped the work, or (None, None) when it stopped before the
    first deal. Deal i has the same wall as deal mode's deal i (docs/rules.md
    §2). The frames are built per chunk of ``PLAIN_CHUNK`` deals
    (``EVENT_CHUNK`` with events) so that memory stays bounded for any range.
    Raises RunError if the engine reports an error (a bug)."""
    chunk = EVENT_CHUNK if with_events else PLAIN_CHUNK
    pace = Pace(chunk)
    frames, events = [], []
    for a in range(start, stop, chunk):
        b = min(a + chunk, stop)
        arrays, n_ev = game_arrays(rs.array, seed, a, b, policy_args, tables, with_events,
                                   pace, halt, progress)
        done = arrays["out"].shape[0]
        if done:
            df, ev = _game_chunk(rs, seed, a, arrays, n_ev, policies, with_events)
            frames.append(df)
            if ev is not None:
                events.append(ev)
        if done < b - a:
            break
    if not frames:
        return None, None
    df = frames[0] if len(frames) == 1 else pl.concat(frames)
    ev = None
    if with_events:
        ev = events[0] if len(events) == 1 else pl.concat(events)
    return df, ev


def game_arrays(arr: np.ndarray, seed: int, start: int, stop: int, policy_args: tuple,
                tables, with_events: bool, pace=None, halt=None,
                progress=None) -> tuple[dict, int]:
    """The game kernel's arrays for deals ``start .. stop - 1`` of ``seed``
    played out (``_alloc``'s dict, filled) and the number of event rows
    (numpy only; ``game_frame`` makes the polars frames).

    The kernel is called in pieces that ``pace`` (a ``Pace``; None: a new
    one) sizes; ``progress(n)`` is called after each and ``halt()`` asked
    before each: once it is true the work stops, and every array holds the
    deals done so far (``out.shape[0]`` of them, maybe 0)."""
    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine.state import new_state
    n = stop - start
    a = _alloc(n, with_events)
    n_ev = 0

    def call(i, k):
        return k, int(KG.game_batch(arr, tables, np.uint64(seed), np.int64(start + i),
                                    policy_args, new_state(), with_events,
                                    KG.DealRows(*(a[key][i:i + k] for key in PER_DEAL)),
                                    KG.EventRows(*(a[key][n_ev:] for key in PER_EVENT))))

    def commit(value):
        nonlocal n_ev
        n_ev += value[1]
        return value[0]

    done = (pace or Pace(n)).run(n, call, commit, progress, halt)
    if done < n:
        a.update({key: a[key][:done] for key in PER_DEAL})
    return a, n_ev


def compile_game_batch(rules: np.ndarray, tables) -> None:
    """Compile ``engine.games.game_batch`` (or load it from the cache) for
    the argument types ``game_arrays`` calls it with, events on, without
    calling it: the scorer and the decisions it calls by their addresses
    may still be compiling in another process (``nbsim.cli.warm``, the
    game group's warm-up).
    rules: int64[R_LEN]; tables: ``load_tables()``."""
    import numba

    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine.state import empty_policies, new_state
    a = _alloc(1, True)
    args = (rules, tables, np.uint64(0), np.int64(0), empty_policies(), new_state(), True,
            KG.DealRows(*(a[key][0:1] for key in PER_DEAL)),
            KG.EventRows(*(a[key][0:] for key in PER_EVENT)))
    KG.game_batch.compile(tuple(numba.typeof(x) for x in args))


def _game_chunk(rs, seed, start, a, n_ev, policies, with_events):
    """The game frame (and events frame) of ``game_arrays``' arrays ``a``
    for deals ``start ..``."""
    cols = deal_columns(rs.array, seed, start, a["hands"], a["flowers"], a["wilds"], a["dice"],
                        a["ind"], a["comp"])
    cols.update(game_columns(rs, a["out"], a["melds"], a["round_winds"], tuple(policies)))
    order = S.column_order("game", rs)
    df = pl.DataFrame([cols[c] for c in order]).cast(dict(S.schema("game", rs)))
    ev = None
    if with_events:
        ev = events_frame(a["events"][:n_ev], a["event_deal"][:n_ev], a["event_step"][:n_ev])
    return df, ev


def match_frame(rs: RuleSet, seed: int, m_start: int, m_stop: int,
                player_policies: tuple[str, ...], policy_args: tuple, tables,
                with_events: bool = False, progress=None, halt=None):
    """Whole matches ``m_start .. m_stop - 1`` (docs/rules.md §2 and §4).

    player_policies: the 4 players' policy specs; policy_args: the kernel's
    policy arguments for them (``nbsim.policy_specs.kernel_arrays``); progress: called with
    the number of matches after each kernel call; halt: a function, true
    when the work should stop (checked between kernel calls, ``Pace``; a
    match is never cut).
    Returns (deal rows with match, deal_in_match and player_e .. player_n,
    match totals DataFrame (match, player, policy, total), events or None)
    of matches ``m_start .. m_start + totals.height // 4 - 1``: all of them
    unless ``halt`` stopped the work, or (None, None, None) when it stopped
    before the first match.
    The deal column of a match row is the deal's index within its match."""
    pace = Pace(MATCH_CHUNK)
    parts = []
    for a in range(m_start, m_stop, MATCH_CHUNK):
        b = min(a + MATCH_CHUNK, m_stop)
        part = _match_chunk(rs, seed, a, b, player_policies, policy_args, tables,
                            with_events, pace, halt, progress)
        if part is not None:
            parts.append(part)
        if part is None or part[1].height < 4 * (b - a):
            break
    if not parts:
        return None, None, None
    df = pl.concat([p[0] for p in parts])
    tot = pl.concat([p[1] for p in parts])
    ev = pl.concat([p[2] for p in parts]) if with_events else None
    return df, tot, ev


def _match_arrays(rs, seed, m_start, m_stop, policy_args, tables, with_events, pace, halt,
                  progress):
    """The match kernel's arrays for matches ``m_start .. m_stop - 1``,
    called in pieces that ``pace`` sizes (``game_arrays``): (``_alloc``'s
    dict with match_of, deal_in, players and totals, rows, event rows,
    matches done)."""
    from nbsim.kernels.engine import games as KG
    from nbsim.kernels.engine.state import new_state
    n_m = m_stop - m_start
    per_match = ("match_of", "deal_in", "players")
    per_row = PER_DEAL + per_match

    def alloc(cap):
        a = _alloc(cap, with_events)
        a.update(match_of=np.zeros(cap, np.int64), deal_in=np.zeros(cap, np.int32),
                 players=np.zeros((cap, 4), np.int8), totals=np.zeros((n_m, 4), np.int64))
        return a

    a = alloc(max(64, n_m * 32))
    rows = n_ev = 0

    def call(i, k):
        return i, k, KG.match_batch(rs.array, tables, np.uint64(seed), np.int64(m_start + i),
                                    np.int64(k), policy_args, new_state(), with_events,
                                    KG.DealRows(*(a[key][rows:] for key in PER_DEAL)),
                                    KG.MatchRows(*(a[key][rows:] for key in per_match),
                                                 a["totals"][i:i + k]),
                                    KG.EventRows(*(a[key][n_ev:] for key in PER_EVENT)))

    def commit(value):
        nonlocal a, rows, n_ev
        i, k, (got, got_ev) = value
        if got < 0:                         # the outputs were too small: grow, call again
            bigger = alloc(2 * a["out"].shape[0])
            for key in per_row:
                bigger[key][:rows] = a[key][:rows]
            for key in PER_EVENT:
                bigger[key][:n_ev] = a[key][:n_ev]
            bigger["totals"][:i] = a["totals"][:i]
            a = bigger
            return 0
        a["event_deal"][n_ev:n_ev + got_ev] += rows     # the kernel counts rows from its first
        rows += int(got)
        n_ev += int(got_ev)
        return k

    done = pace.run(n_m, call, commit, progress, halt)
    return a, rows, n_ev, done


def _match_chunk(rs, seed, m_start, m_stop, player_policies, policy_args, tables,
                 with_events, pace, halt, progress):
    """The frames of matches ``m_start ..`` (up to ``m_stop`` unless ``halt``
    stops the work; None when no match was played): (deal rows, totals,
    events or None)."""
    a, rows, n_ev, n_m = _match_arrays(rs, seed, m_start, m_stop, policy_args, tables,
                                       with_events, pace, halt, progress)
    if n_m == 0:
        return None
    m_stop = m_start + n_m
    match_of, deal_in, players, totals = a["match_of"], a["deal_in"], a["players"], a["totals"]
    sl = slice(0, rows)
    cols = deal_columns(rs.array, seed, 0, a["hands"][sl], a["flowers"][sl], a["wilds"][sl],
                        a["dice"][sl], a["ind"][sl], a["comp"][sl])
    cols["deal"] = pl.Series("deal", deal_in[sl].astype(np.int64))
    pol_rows = [tuple(player_policies[p] for p in players[i]) for i in range(rows)]
    cols.update(game_columns(rs, a["out"][sl], a["melds"][sl], a["round_winds"][sl], pol_rows))
    cols["match"] = pl.Series("match", match_of[sl])
    for s, suf in enumerate(S.SEAT_SUFFIXES):
        cols[f"player_{suf}"] = pl.Series(f"player_{suf}", players[sl, s])
    order = S.column_order("match", rs)
    df = pl.DataFrame([cols[c] for c in order]).cast(dict(S.schema("match", rs)))
    tot = pl.DataFrame({
        "match": np.repeat(np.arange(m_start, m_stop, dtype=np.int64), 4),
        "player": np.tile(np.arange(4, dtype=np.int8), n_m),
        "policy": [player_policies[p] for _ in range(n_m) for p in range(4)],
        "total": totals[:n_m].reshape(-1),
    })
    ev = None
    if with_events:
        ev = events_frame(a["events"][:n_ev], a["event_deal"][:n_ev], a["event_step"][:n_ev])
        # event_deal holds the row index: give the match and the deal in the match
        rows_idx = ev["deal"].to_numpy()
        ev = ev.with_columns(pl.Series("deal", deal_in[rows_idx].astype(np.int64)),
                             pl.Series("match", match_of[rows_idx]))
    return df, tot, ev
