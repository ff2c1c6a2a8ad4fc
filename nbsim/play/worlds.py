"""The evaluator's worlds from Python: which opponent model deals the
hidden hands, and a world with the real hidden tiles of a played deal.

The lookahead evaluator (``nbsim/kernels/search/playout.py``) plays a position on
sampled worlds: the tiles the deciding seat has not seen, dealt at random to
the other hands and the wall. ``OPPONENT_MODELS`` are its ways of dealing the
other hands (``lookahead:opponents``, ``playout.refine_hands``):

* 0: uniformly random hidden hands;
* 1: each opponent draws and discards once per discard it has made,
  keeping pairs and touching tiles;
* 2: as 1, letting go first of the tiles outside the target a value player
  would pick (a flush, all pungs or the open hand);
* 3: as 2, a flush target in the suit the opponent's melds and discards
  point to (``playout.read_suit``).

``ADVICE_OPPONENTS`` is the model ``nbsim advise`` and
``nbsim.play.evaluation.evaluate`` use by default: the one whose forecasts
of how a deal ends agree with real deals (docs/lookahead.md, "Calibration
of the worlds"; ``benchmarks/world_calibration.py`` measures it) and whose
deal-in chances of each tile are among the best calibrated
(docs/results/calibration.md; ``benchmarks/calibrate_dealin.py``). Advise's
worlds keep the honours in a refined flush target
(``playout.FLUSH_HONOURS``), so a visible flush threat's honour waits are
not called safe.

``real_world`` deals a world whose hidden tiles are those of a real deal
(``nbsim.play.replays.hidden_at`` reads them from a played deal's log;
``play_defend`` plays the world on with defend in every seat):
the check that the evaluator plays what the engine plays
(``divergence.replay_discard`` plays a real discard on from the rebuilt
table; the tests and ``benchmarks/world_replay.py`` replay real deals
through it) and the reference row of the calibration. This
module imports no kernels until ``real_world`` is called, so the command
line reads the constants without loading numba.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from nbsim.errors import RunError

OPPONENT_MODELS: tuple[int, ...] = (0, 1, 2, 3)
ADVICE_OPPONENTS = 3


def check_opponents(opponents) -> int:
    """``opponents`` as an int of ``OPPONENT_MODELS``. Raises RunError
    naming the models allowed."""
    if (isinstance(opponents, bool) or not isinstance(opponents, (int, np.integer))
            or int(opponents) not in OPPONENT_MODELS):
        raise RunError(f"opponents {opponents!r}: allowed 0 (uniformly random hidden hands), "
                       f"1 (refined once per discard made), 2 (also toward a value player's "
                       f"target), 3 (a flush in the suit the discards point to)")
    return int(opponents)


def real_world(view, g, st, sr, hands: Mapping[int, Sequence[int]], live: Sequence[int] = (),
               tail: Sequence[int] = (),
               kongs: Mapping[int, Sequence[int]] | None = None) -> bool:
    """Fill the playout state ``g`` (``engine.search_game(sr)``) with a world
    of ``view`` whose other hands are the real ones and whose wall yields
    ``live`` (kinds, in order) at its live end and ``tail`` from its tail
    (kong and flower replacements), the rest of the hidden tiles in random
    order from ``st`` (uint64[RNG_LEN]). hands: seat -> its concealed
    kinds, for every seat but ``view.seat``; kongs: seat -> the real kinds
    of its face-down kongs, in the order of its melds (None: as the world
    dealt them, at random). Returns False when the real tiles do not fit
    what the view leaves unseen (without ``kongs``, a face-down kong can be
    dealt as a kind the real hands hold)."""
    from nbsim.kernels import codes as C
    from nbsim.kernels import rng
    from nbsim.kernels import wall as W
    from nbsim.kernels.engine import wins as EWIN
    from nbsim.kernels.search import playout as PL

    if PL.build_world(view, g, st, sr.pool, sr.unseen, np.int64(0), sr.out):
        return False
    ws = g.ws
    ind = int(ws[W.WS_INDICATOR])
    lo, hi = int(ws[W.WS_LIVE]), int(ws[W.WS_TAIL])
    places = [p for p in range(lo, hi + 1) if p != ind]
    hidden = np.zeros(C.N_KINDS, np.int64)
    for p in places:
        hidden[W.tile_kind(np.int64(g.wall[p]))] += 1
    others = [s for s in range(4) if s != view.seat]
    for s in others:
        hidden += g.hands[s].astype(np.int64)
        real_kongs = list((kongs or {}).get(s, ()))
        for m in range(int(g.n_melds[s])):
            if g.melds[s, m, C.MELD_TYPE] == C.MELD_CKONG and real_kongs:
                hidden[int(g.melds[s, m, C.MELD_KIND])] += 4
                k = int(real_kongs.pop(0))
                hidden[k] -= 4
                g.melds[s, m, C.MELD_KIND] = k
    for s in others:
        real = np.bincount(np.asarray(hands[s], np.int64), minlength=C.N_KINDS)
        hidden -= real
        g.hands[s][:] = real
    if len(live) + len(tail) > len(places):
        return False
    fixed = {}
    for j, k in enumerate(live):
        fixed[places[j]] = int(k)
    for j, k in enumerate(tail):
        fixed[places[-1 - j]] = int(k)
    for k in fixed.values():
        hidden[k] -= 1
    if hidden.min() < 0:
        return False
    rest = np.repeat(np.arange(C.N_KINDS), hidden)
    np.random.default_rng(int(rng.next_u32(st))).shuffle(rest)
    r = 0
    for p in places:
        if p in fixed:
            k = fixed[p]
        else:
            k = int(rest[r])
            r += 1
        g.wall[p] = k * 4 if k < C.N_PLAY else 102 + k      # a tile id of kind k (any copy)
    for s in others:
        EWIN.update_may_win(view.tables, g.wild, g.hands[s], g.n_melds[s], g.nat, g.may_win,
                         g.no_win, np.int64(s))
    return True


def play_defend(view, sr, kind: int, key, j: int):
    """Play the world in ``sr``'s state (``real_world``) on from the seat's
    discard of ``kind``, defend at its defaults in every seat, its policy
    streams from (``key``, ``j``). Returns the result row ``sr.out``
    (int64[OUT_LEN]; ``engine.O_*``)."""
    from nbsim.kernels import rng
    from nbsim.kernels.engine import loop as E
    from nbsim.kernels.engine import state as ES
    from nbsim.kernels.policies.catalog import code_of
    from nbsim.kernels.search import playout as PL
    g = ES.search_game(sr)
    sr.pols.decisions[:] = view.playout.decisions
    sr.pols.engine[:] = view.playout.engine
    sr.pols.scorer[:] = view.playout.scorer
    for s in range(4):
        sr.pols.codes[s] = code_of("defend")
        sr.pols.params[s, :] = PL.DEFAULT_PARAMS[code_of("defend")]
        rng.stream_init(key, np.int64(j), rng.STREAM_POLICY + s, g.prng[s])
    E.play_from(view.rules, view.tables, sr.pols, g, sr.out, sr.log, sr.probe,
                np.int64(kind), np.int64(-1), np.int64(0), np.int64(0), np.int64(-2))
    return sr.out
