"""The ``defend`` policy: plays both ways, for the points the variant pays.

Offence (``value``'s targets, and better where it can be):

* the same targets and hand-value estimate as ``value``
  (``common.choose_target``: open hand, flushes, all pungs; honor pungs,
  seat and round winds, seat flowers held, read from the variant's table);
* among discards that keep the hand equally close, the one that leaves the
  most unseen tiles that bring it closer (tile acceptance, parameter
  ``speed``) instead of value's neighbour count;
* bound pairs (三包, RULES.md section 7): a third claim from the same
  discarder binds that player (it pays 5T on a self-drawn win, 4T or 5T
  when it deals in), so a claim that completes the binding is taken when it
  keeps the hand as close (parameter ``bind``).

Defence (``threat.py``, from the public view only): each opponent's chance of
being ready, what its win would cost, each kind's chance of being its
wait, and the cost of feeding it a binding third meld or a kong. A discard
is chosen by expected value:

    score(k) = gain x P(win | the hand after discarding k)
               - caution_weight(caution) x danger(k) - bind x feed(k)

with gain = the hand's estimated worth (T, from the variant's tai table) x
what a win collects, P(win) from the shanten, the tile acceptance and the
tiles left (``win_chance``, measured), danger(k) the expected points lost by
dealing in and feed(k) those lost by feeding a binding third meld or a kong
(``threat.fill_danger``).
``caution`` 0 pushes exactly like ``value`` plus the offence above; 1 folds
(discards the safest tile) as soon as a threat shows.

Wins: it takes every legal win (declining never helped in duels).
Decision signatures: ``registry.py``; parameters: ``table.py``.
"""

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import (
    BIG,
    CLAIM_PASS,
    TG_ALL_PUNGS,
    TG_OPEN,
    claim_toward,
    estimate_value,
    kind_in_target,
    kong_toward,
    pungs_shanten,
    shanten_toward,
    split_hand,
    target_by_cost,
    target_fit,
    usefulness,
)
from nbsim.kernels.policies.table import param_index
from nbsim.kernels.policies.threat import caution_weight, fill_danger
from nbsim.kernels.policies.view import fill_unseen

P_CAUTION = param_index("defend", "caution")
P_BIND = param_index("defend", "bind")
P_SPEED = param_index("defend", "speed")
P_SHORT = param_index("defend", "short")
P_WORTH = param_index("defend", "worth")

# P(win) of the hand by its shanten after the discard (rows 0..6: 0 = ready)
# and the tiles left (columns: 0-7, 8-15, ..., 88 and more). Measured on
# 2,000 ningbo-3baida deals of value self-play (benchmarks/calibrate_threat.py)
# and smoothed, and made to fall with the shanten in every column (the
# ready row is raised where few early ready hands made it noisy); a ready
# hand wins about a third of the time (many are below the minimum on a
# discard).
WIN_TABLE = (
    (0.06, 0.16, 0.24, 0.29, 0.32, 0.33, 0.35, 0.35, 0.37, 0.37, 0.36, 0.36),
    (0.0, 0.04, 0.07, 0.10, 0.14, 0.17, 0.20, 0.25, 0.29, 0.33, 0.345, 0.345),
    (0.0, 0.0, 0.0, 0.011, 0.035, 0.064, 0.085, 0.115, 0.161, 0.204, 0.258, 0.295),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.039, 0.068, 0.093, 0.145, 0.192, 0.241),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.005, 0.031, 0.092, 0.163, 0.21),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.07, 0.148, 0.196),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.05, 0.12, 0.18),
)
WIN_FLOOR = 1e-4
ACCEPT_SHARE = 0.5        # how far tile acceptance moves P(win) toward the next row (x speed)


@nrt_free
def want_win(view, params, prng, scr, tile, win_by):
    """Always: every legal win is taken."""
    return True


@nrt_free
def _target(view, params, nat, w, tmp):
    """The target (``common.target_by_cost``) with the ``short`` and ``worth``
    weights (value's 1.5 and 0.1 by default)."""
    s = view.seat
    return target_by_cost(view.rules, view.tables, nat, w, view.own_melds, view.n_melds[s], s,
                          view.round_wind, view.flowers[s], tmp, params[P_SHORT],
                          params[P_WORTH])


@nrt_free
def choose_kong(view, params, prng, scr, options, n_options):
    """As ``value``: the first kong inside the target that keeps its shanten."""
    w = split_hand(view.hand, view.wild, scr.nat)
    target = _target(view, params, scr.nat, w, scr.tmp)
    return kong_toward(view, options, n_options, target, np.bool_(True), scr.nat, scr.tmp)


@nrt_free
def _binds(view, discarder):
    """Would a claim from ``discarder`` bind it (its third meld to the
    deciding seat) in a variant whose payments know bound pairs?"""
    rule = view.rules[C.R_PAYMENT_RULE]
    if rule != C.PAY_NINGBO and rule != C.PAY_NINGBO_5X:
        return False
    return view.fed[view.seat, discarder] == 2


@nrt_free
def choose_claim(view, params, prng, scr, tile, can_pung, can_kong, chow_ok):
    """As ``value``, and a claim that binds the discarder when it keeps the
    hand as close to its target (``bind`` > 0)."""
    w = split_hand(view.hand, view.wild, scr.nat)
    target = _target(view, params, scr.nat, w, scr.tmp)
    if not kind_in_target(target, tile):
        return CLAIM_PASS
    keep = params[P_BIND] > 0.0 and _binds(view, view.to_play)
    return claim_toward(view, tile, can_pung, can_kong, chow_ok, target, np.bool_(True),
                        np.bool_(keep), scr.nat)


@nrt_free
def win_chance(s, accept_ratio, speed, tiles_left):
    """P(win) of a hand ``s`` steps from ready after the discard
    (``WIN_TABLE``), moved by its tile acceptance: ``accept_ratio`` is its
    acceptance over the best candidate's (1 when not measured); a hand with
    less acceptance than the best lies between its own row and the next
    one, never below a hand one step further away."""
    if s > 6:
        return 0.0
    b = tiles_left // 8
    if b > 11:
        b = 11
    # a small floor per step keeps the rows apart where the table is 0, so
    # the shanten and the acceptance still order the discards there
    p = WIN_TABLE[s][b] + WIN_FLOOR * (7 - s)
    q = (WIN_TABLE[s + 1][b] if s < 6 else 0.0) + WIN_FLOOR * (6 - s)
    a = ACCEPT_SHARE * (speed if speed < 2.0 else 2.0)
    if a > 1.0:
        a = 1.0
    return q + (p - q) * ((1.0 - a) + a * accept_ratio)


@nrt_free
def _isolated(nat, t):
    """No natural tile of kind ``t`` (0..33) or, for a suited kind, of a rank
    within two of it in its suit: no meld or pair can hold both."""
    if nat[t] > 0:
        return False
    if t >= C.HONOR0:
        return True
    r = t % 9
    near = 0
    for d in range(-2, 3):
        if d != 0 and 0 <= r + d < 9:
            near += nat[t + d]
    return near == 0


@nrt_free
def acceptance(tables, wild, nat, w, n_melds, target, s_ref, i0, i1, i2, i3, unseen):
    """Unseen tiles whose draw brings the hand (``nat``, 3k + 1 tiles, with
    group indices i0..i3, ``w`` wilds) closer than ``s_ref`` to ``target``:
    natural kinds by their unseen copies, and every unseen wild. wild:
    bool[42]; unseen: int64[42] (``view.fill_unseen``).

    Exact shortcuts (same count as trying every kind): the fit shanten
    depends only on the fit class of each group (``hand._best_fit``), so a
    draw that leaves its group's class unchanged cannot help; every isolated
    kind (``_isolated``) changes the fit alike (it can only fill a meld or
    the pair no hand tile fills), so one of them is tried for all; toward
    all pungs the shanten depends only on how many of the kind are held."""
    n = 0
    iso = -2                   # isolated kinds: -2 not tried, 0 no, 1 yes
    pung_memo = 0              # all pungs: bit c tried, bit 4 + c helps (c held)
    scls = tables.suit_fit_class
    hcls = tables.honor_fit_class
    for t in range(C.N_PLAY):
        u = unseen[t]
        if u == 0 or wild[t] or nat[t] >= 4 or not kind_in_target(target, t):
            continue
        if target == TG_ALL_PUNGS:
            c = nat[t]
            if not pung_memo & (1 << c):
                nat[t] += 1
                if pungs_shanten(nat, w, n_melds) < s_ref:
                    pung_memo |= 1 << (4 + c)
                nat[t] -= 1
                pung_memo |= 1 << c
            if pung_memo & (1 << (4 + c)):
                n += u
            continue
        lone = _isolated(nat, t)
        if lone and iso >= 0:
            n += u * iso
            continue
        j0, j1, j2, j3 = H.step_indices(i0, i1, i2, i3, t, 1)
        if t < 9:
            same = scls[j0] == scls[i0]
        elif t < 18:
            same = scls[j1] == scls[i1]
        elif t < C.HONOR0:
            same = scls[j2] == scls[i2]
        else:
            same = hcls[j3] == hcls[i3]
        helps = False
        if not same:
            helps = target_fit(target, j0, j1, j2, j3, w, n_melds, tables) < s_ref
        if lone:
            iso = 1 if helps else 0
        if helps:
            n += u
    for k in range(C.N_KINDS):
        if wild[k]:
            n += unseen[k]
    return n


@nrt_free
def _tie_keys(tables, wild, nat, visible, w, n_melds, target, s, k, i0, i1, i2, i3):
    """value's tie-break keys of discarding kind ``k`` (target shanten ``s``
    after it): (open-hand shanten, usefulness); lower is the better discard.
    nat: the hand's natural counts (int8[34], group indices i0..i3)."""
    if wild[k]:
        s2 = s
        if target != TG_OPEN:
            s2 = H.fit_shanten_idx(i0, i1, i2, i3, w - 1, n_melds, tables)
        return s2, 1000
    u = usefulness(nat, k, visible)
    if target != TG_OPEN and not kind_in_target(target, k):
        u -= 100
    s2 = s
    if target != TG_OPEN:
        j0, j1, j2, j3 = H.step_indices(i0, i1, i2, i3, k, -1)
        s2 = H.fit_shanten_idx(j0, j1, j2, j3, w, n_melds, tables)
    return s2, u


@nrt_free
def _gain(view, nat, w, target):
    """Points a win of the deciding seat's hand would collect: its estimated
    T (tai at least the minimum, plus base points) times the payers' units
    (about 2.4 T: self-drawn 3 T, on a discard 2 T; bound players pay more)."""
    rules = view.rules
    seat = view.seat
    v = estimate_value(rules, target, nat, w, view.own_melds, view.n_melds[seat], seat,
                       view.round_wind, view.flowers[seat])
    if rules[C.R_SYSTEM] == C.SYSTEM_FAN_FU:
        return 3.0 * 60.0 * (2.0 ** min(v, 3.0))
    t = v if v > rules[C.R_MIN_TAI] else float(rules[C.R_MIN_TAI])
    t += rules[C.R_BASE_POINTS]
    units = 2.4
    for o in range(4):
        if o != seat and view.fed[seat, o] >= 3:
            units += 2.0
    return units * t


@nrt_free
def choose_discard(view, params, prng, scr, allowed):
    """The allowed kind with the best expected value (see the module doc);
    ties go to value's order (target shanten, open shanten, usefulness)."""
    hand = view.hand
    wild = view.wild
    tables = view.tables
    nat = scr.nat
    seat = view.seat
    n_melds = view.n_melds[seat]
    caution = params[P_CAUTION]
    bind = params[P_BIND]
    speed = params[P_SPEED]
    lam = caution_weight(caution)
    w = split_hand(hand, wild, nat)
    target = _target(view, params, nat, w, scr.tmp)
    if lam > 0.0 or bind > 0.0:
        fill_danger(view, scr, bind > 0.0)      # fills scr.unseen too
    else:
        fill_unseen(view, scr.unseen)
    i0, i1, i2, i3 = H.group_indices(nat)
    sh = scr.iwork          # [k]: target shanten, [42 + ...] unused
    acc = scr.work          # [k]: tile acceptance
    best_s = BIG
    n_best = 0
    for k in range(C.N_KINDS):
        sh[k] = BIG
        if hand[k] == 0 or not allowed[k]:
            continue
        if wild[k]:
            ww = w - 1
            j0, j1, j2, j3 = i0, i1, i2, i3
        else:
            ww = w
            j0, j1, j2, j3 = H.step_indices(i0, i1, i2, i3, k, -1)
        if not wild[k]:
            nat[k] -= 1
        s = shanten_toward(target, nat, ww, n_melds, j0, j1, j2, j3, tables)
        if not wild[k]:
            nat[k] += 1
        sh[k] = s
        if s < best_s:
            best_s = s
            n_best = 1
        elif s == best_s:
            n_best += 1
    # tile acceptance of the closest candidates (only when it can decide)
    acc_max = 0.0
    measure = speed > 0.0 and n_best > 1
    for k in range(C.N_KINDS):
        acc[k] = 0.0
        if measure and sh[k] == best_s:
            if wild[k]:
                ww = w - 1
                a = acceptance(tables, wild, nat, ww, n_melds, target, best_s, i0, i1, i2,
                               i3, scr.unseen)
            else:
                nat[k] -= 1
                j0, j1, j2, j3 = H.step_indices(i0, i1, i2, i3, k, -1)
                a = acceptance(tables, wild, nat, w, n_melds, target, best_s, j0, j1, j2, j3,
                               scr.unseen)
                nat[k] += 1
            acc[k] = a
            if a > acc_max:
                acc_max = a
    gain = _gain(view, nat, w, target)
    tl = view.tiles_left
    best_k = -1
    best_v = -1e300
    best_s2 = BIG            # BIG: not worked out yet
    best_u = BIG
    best_sk = BIG
    for k in range(C.N_KINDS):
        s = sh[k]
        if s >= BIG:
            continue
        ratio = 1.0
        if measure and s == best_s and acc_max > 0.0:
            ratio = acc[k] / acc_max
        v = gain * win_chance(s if s >= 0 else 0, ratio, speed, tl)
        if lam > 0.0:
            v -= lam * scr.danger[k]
        if bind > 0.0:
            v -= bind * scr.feed[k]
        better = v > best_v + 1e-9
        if not better and v > best_v - 1e-9:
            # value's tie-break (target shanten, open shanten, usefulness),
            # worked out only for a tie
            if s < best_sk:
                better = True
            elif s == best_sk:
                s2, u = _tie_keys(tables, wild, nat, view.visible, w, n_melds, target, s, k,
                                  i0, i1, i2, i3)
                if best_s2 == BIG:
                    best_s2, best_u = _tie_keys(tables, wild, nat, view.visible, w, n_melds,
                                                target, best_sk, best_k, i0, i1, i2, i3)
                better = s2 < best_s2 or (s2 == best_s2 and u < best_u)
                if better:
                    best_s2 = s2
                    best_u = u
        if better:
            if v > best_v + 1e-9 or s < best_sk:
                best_s2 = BIG        # not yet needed
            best_v = v
            best_k = k
            best_sk = s
    return best_k
