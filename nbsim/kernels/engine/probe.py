"""The no-leak probe (Numba): does a decision depend on tiles the deciding
seat cannot see?

With ``probe`` int64[PROBE_LEN] (an empty array: off), the engine counts the
policy decisions of the deal (``TS_DECISIONS``) and, at decision
``probe[PR_AT]``, asks it twice: once as played, then again after
``shuffle_hidden`` has dealt everything the seat cannot see at random
(consistently with what it can see) and the seat's random stream has been
rewound. The two answers go to ``PR_ANSWER`` and ``PR_SHUFFLED``; the real
hands and wall are restored before play goes on (``tests/test_no_leak.py``,
``games.leak_check``).
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine.state import TS_DECISIONS
from nbsim.kernels.jit import njit, nrt_free

# the no-leak probe (``probe`` int64[PROBE_LEN], or an empty array: off)
PR_AT = 0              # in: decision number to probe
PR_SEED = 1            # in: seed of the shuffle of the hidden tiles
PR_KIND = 2            # out: decision kind probed (Q_*), -1 if never reached
PR_SEAT = 3            # out: the deciding seat
PR_ANSWER = 4          # out: the decision with the real hidden tiles
PR_SHUFFLED = 5        # out: the decision after shuffling them
PR_MOVED = 6           # out: hidden tiles that changed place (0: nothing to shuffle)
PROBE_LEN = 7
Q_WIN = 0
Q_KONG = 1
Q_CLAIM = 2
Q_DISCARD = 3


@nrt_free(inline="always")
def hidden_slot(g, ws, p):
    """Whether wall position ``p`` holds a tile the shuffle of hidden tiles
    may move: not the indicator, and not a flower (unless it is wild)."""
    if p == ws[W.WS_INDICATOR]:
        return False
    k = W.tile_kind(np.int64(g.wall[p]))
    return k < C.FLOWER0 or g.wild[k]


@nrt_free
def shuffle_hidden(g, seat):
    """No-leak probe: shuffle everything ``seat`` cannot see, consistently
    with what it can: the other seats' concealed tiles (each keeps its count;
    non-wild flowers never enter a hand) and the undrawn wall. The current
    hands and wall are saved in ``hands_bak`` / ``wall_bak`` first. Returns
    the number of hidden tiles that changed place."""
    ws = g.ws
    st = g.probe_rng
    for s in range(4):
        for k in range(C.N_KINDS):
            g.hands_bak[s, k] = g.hands[s, k]
    for p in range(C.N_TILES):
        g.wall_bak[p] = g.wall[p]
    # the pool: the others' concealed tiles (as tile ids of their kind) and the
    # undrawn wall positions that hold no non-wild flower, in a scratch order
    pool = g.pool
    n = np.int64(0)          # not a literal: rng.shuffle compiles once
    for s in range(4):
        if s == seat:
            continue
        for k in range(C.N_KINDS):
            for c in range(g.hands[s, k]):
                pool[n] = k * 4 + c if k < C.N_PLAY else 102 + k
                n += 1
    lo = ws[W.WS_LIVE]
    hi = ws[W.WS_TAIL]
    for p in range(lo, hi + 1):
        if hidden_slot(g, ws, p):
            pool[n] = g.wall[p]
            n += 1
    rng.shuffle(st, pool, n)
    # deal the pool back: the hands first (same counts), then the wall slots
    j = 0
    for s in range(4):
        if s == seat:
            continue
        cnt = 0
        for k in range(C.N_KINDS):
            cnt += g.hands[s, k]
            g.hands[s, k] = 0
        for _ in range(cnt):
            g.hands[s, W.tile_kind(np.int64(pool[j]))] += 1
            j += 1
    for p in range(lo, hi + 1):
        if hidden_slot(g, ws, p):
            g.wall[p] = pool[j]
            j += 1
    moved = 0
    for s in range(4):
        for k in range(C.N_KINDS):
            d = g.hands[s, k] - g.hands_bak[s, k]
            moved += d if d > 0 else 0
    for p in range(lo, hi + 1):
        if g.wall[p] != g.wall_bak[p]:
            moved += 1
    return moved


@nrt_free
def restore_hidden(g):
    """Put back the hands and the wall ``shuffle_hidden`` saved."""
    for s in range(4):
        for k in range(C.N_KINDS):
            g.hands[s, k] = g.hands_bak[s, k]
    for p in range(C.N_TILES):
        g.wall[p] = g.wall_bak[p]


@njit(cache=True, inline="always")
def probe_due(g, probe):
    """Count a decision; True when it is the one the probe asks for."""
    i = g.ts[TS_DECISIONS]
    g.ts[TS_DECISIONS] = i + 1
    return probe.shape[0] > 0 and probe[PR_AT] == i


@nrt_free(kernel_only=True)
def probe_begin(g, probe, seat):
    """Before the first answer: save ``seat``'s policy stream and seed the
    probe's own stream from (PR_SEED, PR_AT)."""
    for i in range(rng.RNG_LEN):
        g.prng_bak[i] = g.prng[seat, i]
    rng.stream_init(np.uint64(probe[PR_SEED]), probe[PR_AT], rng.STREAM_USER, g.probe_rng)


@nrt_free(kernel_only=True)
def probe_swap(g, probe, seat):
    """Between the two answers: rewind the seat's stream and shuffle."""
    for i in range(rng.RNG_LEN):
        g.prng[seat, i] = g.prng_bak[i]
    probe[PR_MOVED] = shuffle_hidden(g, seat)


@nrt_free(kernel_only=True)
def probe_end(g, probe, kind, seat, answer, shuffled):
    """After the second answer: restore the hidden tiles and record the
    decision kind (``Q_*``), the seat and both answers in ``probe``."""
    restore_hidden(g)
    probe[PR_KIND] = kind
    probe[PR_SEAT] = seat
    probe[PR_ANSWER] = answer
    probe[PR_SHUFFLED] = shuffled
