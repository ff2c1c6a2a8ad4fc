"""The ``lookahead`` policy: defend, with its close discards settled by
Monte-Carlo playouts (the expert reference of the band; docs/results/band.md).

At a discard, ``defend`` first works out the expected value of every
allowed discard (``defend.choose_discard``; its parameters are the first
six of this policy's row). When its runner-up is within ``gap`` of its best
(defend's value, in points), the best ``top_k`` candidates are played to
the end of the deal on ``samples`` worlds each (``nbsim.kernels.search.playout``:
hidden tiles dealt at random from what this seat has not seen; every seat
then plays the ``playout`` policy, defend's ``hold`` there set to
``playout_hold``): the same worlds and the same policy
streams for every candidate, so the paired differences are precise. The
candidate with the highest mean payment replaces defend's choice only when
its paired gain over it exceeds ``z`` standard errors. With ``claims`` 1,
every claim offered is settled the same way: each answer (pass, pung,
kong, each chow) played out from the claim on the same worlds; with
``kongs`` 1, every own-turn kong question too (no kong, each kong offered,
``choose_kong``). With ``confirm`` > 0, a candidate that beat defend's is
played again against it on that many fresh worlds and kept only if it wins
there too (``settle``). With ``opponents`` 1 to 3 the worlds give each
opponent a hand refined as a player's would be (``playout.refine_hands``:
1 keeping pairs and touching tiles, 2 also leaning to a value player's
target, 3 a flush target in the suit its melds and discards point to)
rather than uniformly random tiles (0); by default (-1) the rules choose:
3 where only some patterns win (``win.allowed_patterns``), else 0
(``opponent_model``). With ``guard`` below 1000, a discard
more dangerous than defend's choice by more than ``guard`` points
(defend's danger model, ``threat.fill_danger``) is not a candidate: the
worlds' opponents are weaker than real ones where only flushes win, and
the search there underrates a discard's danger (docs/lookahead.md).
Wins are defend's (every legal win).

The worlds are seeded from this seat's own stream, so a run is
reproducible like any other. The search reads the ``View`` only (the
no-leak test covers it). Decision signatures: ``registry.py``; parameters:
``catalog.py``.
"""
import math

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels.engine.state import SEARCH_CANDS, SEARCH_SAMPLES
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies import defend as D
from nbsim.kernels.policies import threat as THREAT
from nbsim.kernels.policies.catalog import param_index
from nbsim.kernels.policies.common import CLAIM_CHOW, CLAIM_KONG, CLAIM_PASS, CLAIM_PUNG
from nbsim.kernels.ref import deref
from nbsim.kernels.search import playout as PL

P_SAMPLES = param_index("lookahead", "samples")
P_TOP_K = param_index("lookahead", "top_k")
P_GAP = param_index("lookahead", "gap")
P_Z = param_index("lookahead", "z")
P_PLAYOUT = param_index("lookahead", "playout")
P_CLAIMS = param_index("lookahead", "claims")
P_PLAYOUT_HOLD = param_index("lookahead", "playout_hold")
P_KONGS = param_index("lookahead", "kongs")
P_CONFIRM = param_index("lookahead", "confirm")
P_OPPONENTS = param_index("lookahead", "opponents")
P_GUARD = param_index("lookahead", "guard")
OPPONENTS_BY_RULES = -1      # ``opponents`` -1: the model is read from the rules
OPPONENTS_RESTRICTED = 3     # ... where win.allowed_patterns restricts the winning hands
OPPONENTS_ANY_HAND = 0       # ... where any complete hand wins


@nrt_free(inline="always")
def opponent_model(rules, p):
    """The opponent model of the worlds (``playout.refine_hands``'s
    ``refine``, int64) for the value ``p`` of the ``opponents`` parameter:
    ``p`` itself when it is 0 to 3; for -1 (the default), read from the
    rules table ``rules`` (int64[R_LEN], ``codes.R_*``): 3 where
    ``win.allowed_patterns`` restricts the winning hands
    (``R_ALLOWED_PATTERNS`` non-zero, as on 同城游: an opponent's discards
    then tell which flush it collects, and a discard's danger depends on
    it), else 0. docs/lookahead.md, "One default for every variant: the
    opponents by the rules"."""
    m = np.int64(p)
    if m != OPPONENTS_BY_RULES:
        return m
    if rules[C.R_ALLOWED_PATTERNS] != 0:
        return np.int64(OPPONENTS_RESTRICTED)
    return np.int64(OPPONENTS_ANY_HAND)


@nrt_free(kernel_only=True)
def want_win(view_ref, params, prng, scr_ref, tile, win_by):
    """defend's: every legal win is taken."""
    return D.want_win(view_ref, params, prng, scr_ref, tile, win_by)


@nrt_free
def kong_candidates(a0, options, n_options, cands):
    """The answers to an own-turn kong question into ``cands`` (int64[>= 2],
    at most ``SEARCH_CANDS``) as kinds: defend's answer ``a0`` (an option
    row of ``options``, or -1 for no kong) first, then no kong and every
    other option's kind. Returns the count."""
    cands[0] = -1 if a0 < 0 else options[a0, 1]
    n = 1
    if a0 >= 0:
        cands[n] = -1
        n += 1
    for j in range(n_options):
        if j != a0 and n < SEARCH_CANDS:
            cands[n] = options[j, 1]
            n += 1
    return n


@nrt_free(kernel_only=True)
def choose_kong(view_ref, params, prng, scr_ref, options, n_options):
    """defend's kong; with ``kongs`` 1, every answer (no kong, each kong
    offered) played out on the sampled deals (``playout.evaluate_into``
    with ``KONG_Q``: the same worlds for every answer) and defend's replaced
    by the one that pays most when its paired gain exceeds ``z`` standard
    errors (``paired_best``). Returns an option row of ``options`` or -1."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    a0 = D.choose_kong(view_ref, params, prng, scr_ref, options, n_options)
    if params[P_KONGS] <= 0.0:
        return a0
    sr = scr.search
    n = kong_candidates(a0, options, n_options, sr.cands)
    k = sr.cands[settle(view, params, prng, sr, n, np.int64(-1), np.int64(PL.KONG_Q))]
    for j in range(n_options):
        if options[j, 1] == k:
            return j
    return -1


@nrt_free(kernel_only=True)
def claim_candidates(a0, can_pung, can_kong, chow_ok, cands):
    """The answers to a claim question into ``cands`` (int64[>= 5]):
    defend's answer ``a0`` first, then pass, pung, kong and each allowed
    chow (``common.CLAIM_*``) that differ from it. Returns the count."""
    cands[0] = a0
    n = 1
    for a in range(CLAIM_CHOW + 3):
        ok = (a == CLAIM_PASS or (a == CLAIM_PUNG and can_pung)
              or (a == CLAIM_KONG and can_kong)
              or (a >= CLAIM_CHOW and chow_ok[a - CLAIM_CHOW]))
        if ok and a != a0:
            cands[n] = a
            n += 1
    return n


@nrt_free(kernel_only=True)
def choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """defend's claim; with ``claims`` 1, every answer played out on the
    sampled deals (``playout.evaluate_into`` from the claim: the same worlds
    for every answer) and defend's replaced by the one that pays most when
    its paired gain exceeds ``z`` standard errors (``paired_best``)."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    a0 = D.choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok)
    if params[P_CLAIMS] <= 0.0:
        return a0
    sr = scr.search
    n = claim_candidates(a0, can_pung, can_kong, chow_ok, sr.cands)
    if n < 2:
        return a0
    q = np.int64(0) if can_pung else np.int64(1)
    return sr.cands[settle(view, params, prng, sr, n, np.int64(tile), q)]


@nrt_free
def candidates(view, scr, allowed, k0, top_k, guard, cands):
    """defend's best ``top_k`` discards into ``cands`` (its choice ``k0``
    first, then by defend's value, read from ``scr`` after
    ``defend.choose_discard``), leaving out those whose danger
    (``scr.danger``, points) exceeds k0's by more than ``guard`` (>= 1000:
    none left out; the danger is defend's, filled when its caution or bind
    is above 0). Returns (count, defend's value of k0 minus that of the
    runner-up; 1e300 with a single candidate)."""
    hand = view.hand
    n = 0
    v0 = 0.0
    for k in range(C.N_KINDS):
        if hand[k] > 0 and allowed[k]:
            if k == k0:
                v0 = scr.work[D.DV + n]
            n += 1
    cands[0] = k0
    m = 1
    second = -1e300
    cap = scr.danger[k0] + guard
    while m < top_k and m < n:
        bi = -1
        bv = -1e300
        for i in range(n):
            k = scr.kinds[i]
            taken = guard < 1000.0 and scr.danger[k] > cap
            for q in range(m):
                if cands[q] == k:
                    taken = True
            if not taken and scr.work[D.DV + i] > bv:
                bv = scr.work[D.DV + i]
                bi = i
        if bi < 0:
            break
        if m == 1:
            second = bv
        cands[m] = scr.kinds[bi]
        m += 1
    return m, (v0 - second if m > 1 else 1e300)


@nrt_free(kernel_only=True)
def paired_best(pays, n_cands, n_samples, z):
    """Row of the candidate to play: the one with the largest mean paired
    gain over row 0 (defend's choice) among those whose gain exceeds ``z``
    standard errors; 0 when none does. pays: float64[>= n_cands,
    >= n_samples]."""
    best = 0
    best_gain = 0.0
    for i in range(1, n_cands):
        s = 0.0
        s2 = 0.0
        for j in range(n_samples):
            d = pays[i, j] - pays[0, j]
            s += d
            s2 += d * d
        mean = s / n_samples
        var = (s2 - n_samples * mean * mean) / max(n_samples - 1, 1)
        se = math.sqrt(max(var, 0.0) / n_samples)
        if mean > z * se and mean > best_gain:
            best_gain = mean
            best = i
    return best


@nrt_free(inline="always")
def settle(view, params, prng, sr, n, claim_tile, claim_q):
    """Row of ``sr.cands[:n]`` to play (0: defend's answer, row 0). The
    candidates are played out on ``samples`` worlds (``playout.evaluate_into``
    with ``claim_tile`` and ``claim_q``: -1, -1 for discards) and
    ``paired_best`` picks a challenger. With ``confirm`` > 0, the challenger
    is played again against row 0 on ``confirm`` fresh worlds and kept only
    when its paired gain there also exceeds ``z`` standard errors: the
    first stage chose it because its gain looked large on those worlds, so
    only fresh worlds judge it without that bias. ``sr.cands`` is left as
    given. The seeds come from ``prng`` (two uint32 per stage; none for the
    second stage when it is not played). Inlined (numba IR) into the three
    decisions that search."""
    key = (rng.next_u32(prng) << np.uint64(32)) | rng.next_u32(prng)
    samples = min(np.int64(params[P_SAMPLES]), SEARCH_SAMPLES)
    playout = np.int64(params[P_PLAYOUT])
    refine = opponent_model(view.rules, params[P_OPPONENTS])
    PL.evaluate_into(view, sr, n, samples, key, playout, claim_tile, claim_q,
                     params[P_PLAYOUT_HOLD], refine)
    b = paired_best(sr.pays, n, samples, params[P_Z])
    confirm = min(np.int64(params[P_CONFIRM]), SEARCH_SAMPLES)
    if b == 0 or confirm <= 0:
        return b
    second = sr.cands[1]
    sr.cands[1] = sr.cands[b]
    key = (rng.next_u32(prng) << np.uint64(32)) | rng.next_u32(prng)
    PL.evaluate_into(view, sr, np.int64(2), confirm, key, playout, claim_tile, claim_q,
                     params[P_PLAYOUT_HOLD], refine)
    sr.cands[1] = second
    return b if paired_best(sr.pays, np.int64(2), confirm, params[P_Z]) == 1 else 0


@nrt_free(kernel_only=True)
def choose_discard(view_ref, params, prng, scr_ref, allowed):
    """defend's discard, or a close candidate that the playouts show pays
    more (see the module doc)."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    k0 = D.choose_discard(view_ref, params, prng, scr_ref, allowed)
    sr = scr.search
    top_k = min(np.int64(params[P_TOP_K]), SEARCH_CANDS)
    guard = params[P_GUARD]
    if THREAT.caution_weight(params[D.P_CAUTION]) <= 0.0 and params[D.P_BIND] <= 0.0:
        guard = 1000.0          # defend filled no danger to guard with
    n, gap = candidates(view, scr, allowed, k0, top_k, guard, sr.cands)
    if n < 2 or gap > params[P_GAP]:
        return k0
    return sr.cands[settle(view, params, prng, sr, n, np.int64(-1), np.int64(-1))]
