"""The ``defend`` policy: plays both ways, for the points the variant pays.

Offence (``value``'s targets, and better where it can be):

* the same targets and hand-value estimate as ``value``
  (``common.choose_target``: open hand, flushes, all pungs; honor pungs,
  seat and round winds, seat flowers held, read from the variant's table);
* among discards that keep the hand equally close, the one that leaves the
  most unseen tiles that bring it closer (tile acceptance, parameter
  ``speed``) instead of value's neighbour count;
* bound pairs (三包, docs/rules.md §7): a third claim from the same
  discarder binds that player (it pays 5T on a self-drawn win, 4T or 5T
  when it deals in), so a claim that completes the binding is taken when it
  keeps the hand as close (parameter ``bind``).

Defence (``threat.py``, from the public view only): each opponent's chance of
being ready, what its win would cost, each kind's chance of being its
wait, and the cost of feeding it a binding third meld or a kong. A discard
is chosen by expected value:

    score(k) = gain x P(win | the hand after discarding k)
               - caution_weight(caution) x danger(k) - bind x feed(k)
               - hold x [k is a single honour tile whose pung scores]

with gain = the hand's estimated worth (T, from the variant's tai table) x
what a win collects, P(win) from the shanten, the tile acceptance and the
tiles left (``win_chance``, measured), danger(k) the expected points lost by
dealing in and feed(k) those lost by feeding a binding third meld or a kong
(``threat.fill_danger``). ``hold`` charges for throwing a lone honour
tile whose pung would score (a dragon, the seat's or the round's wind,
held once and not wild), which the Monte-Carlo evaluator prefers to keep
early in the deal (docs/lookahead.md, "Where lookahead
departs from defend").
``caution`` 0 pushes exactly like ``value`` plus the offence above; 1 folds
(discards the safest tile) as soon as a threat shows.

Wins: it takes every legal win (declining never helped in duels).
Decision signatures: ``registry.py``; parameters: ``catalog.py``.
"""

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels import hand as H
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.catalog import param_index
from nbsim.kernels.policies.common import (
    BIG,
    CLAIM_PASS,
    TG_ALL_PUNGS,
    TG_OPEN,
    claim_toward,
    held_counts,
    held_counts_less,
    honor_pung_value,
    kind_in_target,
    kong_toward,
    pungs_shanten_counts,
    split_hand,
    target_by_cost,
    target_fit_classes,
    usefulness,
)
from nbsim.kernels.policies.threat import caution_weight, fill_danger
from nbsim.kernels.policies.view import MEMO_W, fill_unseen
from nbsim.kernels.ref import deref

P_CAUTION = param_index("defend", "caution")
P_BIND = param_index("defend", "bind")
P_SPEED = param_index("defend", "speed")
P_SHORT = param_index("defend", "short")
P_WORTH = param_index("defend", "worth")
P_HOLD = param_index("defend", "hold")

# P(win) of the hand by its shanten after the discard (rows 0..6: 0 = ready)
# and the tiles left (columns: 0-7, 8-15, ..., 88 and more). Measured on
# 2,000 ningbo-3baida deals of value self-play (benchmarks/calibrate_threat.py)
# and smoothed, and made to fall with the shanten in every column (the
# ready row is raised where few early ready hands made it noisy); a ready
# hand wins about a third of the time (many are below the minimum on a
# discard).
WIN_TABLE = np.array((
    (0.06, 0.16, 0.24, 0.29, 0.32, 0.33, 0.35, 0.35, 0.37, 0.37, 0.36, 0.36),
    (0.0, 0.04, 0.07, 0.10, 0.14, 0.17, 0.20, 0.25, 0.29, 0.33, 0.345, 0.345),
    (0.0, 0.0, 0.0, 0.011, 0.035, 0.064, 0.085, 0.115, 0.161, 0.204, 0.258, 0.295),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.039, 0.068, 0.093, 0.145, 0.192, 0.241),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.005, 0.031, 0.092, 0.163, 0.21),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, 0.07, 0.148, 0.196),
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.05, 0.12, 0.18),
), dtype=np.float64)   # an array: the kernels index it in place
WIN_FLOOR = 1e-4
ACCEPT_SHARE = 0.5        # how far tile acceptance moves P(win) toward the next row (x speed)
DC = C.N_KINDS            # scr.iwork[DC + 9g + j]: acceptances' draw classes of group g
DW = DC + 36              # scr.iwork[DW + 9g + j]: their unseen copies
DV = C.N_KINDS            # scr.work[DV + i]: choose_discard's value of candidate i


@nrt_free(kernel_only=True)
def want_win(view_ref, params, prng, scr_ref, tile, win_by):
    """Always: every legal win is taken."""
    return True


@nrt_free(kernel_only=True)
def _target(view, params, nat, w, tmp):
    """(target, its estimated value): ``common.target_by_cost`` with the
    ``short`` and ``worth`` weights (value's 1.5 and 0.1 by default)."""
    s = view.seat
    return target_by_cost(view.rules, view.tables, nat, w, view.own_melds, view.n_melds[s], s,
                          view.round_wind, view.flowers[s], tmp, params[P_SHORT],
                          params[P_WORTH])


@nrt_free(kernel_only=True)
def choose_kong(view_ref, params, prng, scr_ref, options, n_options):
    """As ``value``: the first kong inside the target that keeps its shanten."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    w = split_hand(view.hand, view.wild, scr.nat)
    target = _target(view, params, scr.nat, w, scr.tmp)[0]
    return kong_toward(view, options, n_options, target, np.bool_(True), scr.nat, scr.tmp)


@nrt_free(kernel_only=True)
def _binds(view, discarder):
    """Would a claim from ``discarder`` bind it (its third meld to the
    deciding seat) in a variant whose payments know bound pairs?"""
    rule = view.rules[C.R_PAYMENT_RULE]
    if rule != C.PAY_NINGBO and rule != C.PAY_NINGBO_5X:
        return False
    return view.fed[view.seat, discarder] == 2


@nrt_free(kernel_only=True)
def choose_claim(view_ref, params, prng, scr_ref, tile, can_pung, can_kong, chow_ok):
    """As ``value``, and a claim that binds the discarder when it keeps the
    hand as close to its target (``bind`` > 0)."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    w = split_hand(view.hand, view.wild, scr.nat)
    target = _target(view, params, scr.nat, w, scr.tmp)[0]
    if not kind_in_target(target, tile):
        return CLAIM_PASS
    keep = params[P_BIND] > 0.0 and _binds(view, view.to_play)
    return claim_toward(view, tile, can_pung, can_kong, chow_ok, target, np.bool_(True),
                        np.bool_(keep), scr.nat)


@nrt_free(kernel_only=True)
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
    p = WIN_TABLE[s, b] + WIN_FLOOR * (7 - s)
    q = (WIN_TABLE[s + 1, b] if s < 6 else 0.0) + WIN_FLOOR * (6 - s)
    a = ACCEPT_SHARE * (speed if speed < 2.0 else 2.0)
    if a > 1.0:
        a = 1.0
    return q + (p - q) * ((1.0 - a) + a * accept_ratio)


@nrt_free(kernel_only=True)
def _pungs_gain(c1, c2, c3, u0, u1, u2, u3, w, n_melds, s_ref):
    """Unseen natural tiles whose draw brings a hand closer than ``s_ref`` to
    all pungs, when c_v of its kinds hold v tiles (v = 1, 2, 3+), ``w``
    wilds and ``n_melds`` declared melds, and u_c unseen drawable copies
    belong to kinds it holds c times (c = 0..3): the shanten depends only on
    the held counts (``common.pungs_shanten_counts``), so each of the four
    kinds of draw is tried once."""
    n = 0
    if u0 > 0 and pungs_shanten_counts(c1 + 1, c2, c3, w, n_melds) < s_ref:
        n += u0
    if u1 > 0 and pungs_shanten_counts(c1 - 1, c2 + 1, c3, w, n_melds) < s_ref:
        n += u1
    if u2 > 0 and pungs_shanten_counts(c1, c2 - 1, c3 + 1, w, n_melds) < s_ref:
        n += u2
    if u3 > 0 and pungs_shanten_counts(c1, c2, c3, w, n_melds) < s_ref:
        n += u3
    return n


@nrt_free(kernel_only=True)
def _pungs_acceptances(nat, w, n_melds, s_ref, sh, wild, unseen, n_wild, acc, kinds, n_kinds):
    """``acceptances`` toward all pungs: the held counts and the unseen
    drawable copies by held count are worked out once for the whole hand,
    and a candidate discard of kind k moves k one count down
    (``_pungs_gain``). Returns the largest."""
    c1, c2, c3 = held_counts(nat)
    u0 = u1 = u2 = u3 = np.int64(0)     # unseen drawable copies of kinds held 0..3 times
    for t in range(C.N_PLAY):
        c = nat[t]
        if unseen[t] == 0 or wild[t] or c >= 4:
            continue
        if c == 0:
            u0 += unseen[t]
        elif c == 1:
            u1 += unseen[t]
        elif c == 2:
            u2 += unseen[t]
        else:
            u3 += unseen[t]
    acc_max = 0.0
    for i in range(n_kinds):
        k = kinds[i]
        acc[k] = 0.0
        if sh[k] != s_ref:
            continue
        if wild[k]:
            a = _pungs_gain(c1, c2, c3, u0, u1, u2, u3, w - 1, n_melds, s_ref)
        else:
            c = nat[k]          # k goes from c held to c - 1 (c >= 1)
            x = unseen[k]
            d1, d2, d3 = held_counts_less(c1, c2, c3, c)
            a = _pungs_gain(d1, d2, d3,
                            u0 + (x if c == 1 else 0),
                            u1 + (x if c == 2 else 0) - (x if c == 1 else 0),
                            u2 + (x if c == 3 else 0) - (x if c == 2 else 0),
                            u3 + (x if c == 4 else 0) - (x if c == 3 else 0),
                            w, n_melds, s_ref)
        acc[k] = a + n_wild
        if acc[k] > acc_max:
            acc_max = acc[k]
    return acc_max


@nrt_free(inline="always")
def _pick(g, x0, x1, x2, x3):
    """The value of group ``g`` among four."""
    if g == 0:
        return x0
    if g == 1:
        return x1
    if g == 2:
        return x2
    return x3


@nrt_free(kernel_only=True)
def _other_groups(ss, sh, gk, post, need, n_fit, in0, in1, in2, in3, b0, b1, b2, b3, iwork,
                  n0, n1, n2, n3):
    """Unseen tiles of the counted groups other than ``gk`` (-1: none) whose
    draw helps (``best_fit_classes`` above ``need``) while group ``gk`` has
    class ``post`` and the others their whole-hand classes ``b0..b3``: each
    group's draws by the distinct classes they give it (``iwork[DC + 9g +
    j]``, with their unseen copies at ``iwork[DW + 9g + j]``, ``n_g`` of
    them); ss, sh: ``tables.fit_combo_ss`` and ``fit_combo_sh`` (only these:
    the whole table tuple costs more to pass than the work of a call)."""
    c0 = post if gk == 0 else b0
    c1 = post if gk == 1 else b1
    c2 = post if gk == 2 else b2
    c3 = post if gk == 3 else b3
    n = np.int64(0)
    for g in range(4):
        if g == gk or not _pick(g, in0, in1, in2, in3):
            continue
        for j in range(_pick(g, n0, n1, n2, n3)):
            cl = iwork[DC + 9 * g + j]
            if H.best_fit_combos(cl if g == 0 else c0, cl if g == 1 else c1,
                                 cl if g == 2 else c2, cl if g == 3 else c3,
                                 n_fit, ss, sh) > need:
                n += iwork[DW + 9 * g + j]
    return n


@nrt_free(kernel_only=True)
def _draw_classes(tables, g, base, in_g, idx, nat, wild, unseen, iwork):
    """The distinct classes that one unseen natural draw gives group ``g``
    (index ``idx`` in the whole hand, class ``base``), other than ``base``,
    into ``iwork[DC + 9g + j]`` with their unseen copies at ``iwork[DW + 9g
    + j]``; returns how many (0 for a group the target does not count)."""
    if not in_g:
        return np.int64(0)
    m = np.int64(0)
    for r in range(9 if g < 3 else 7):
        t = 9 * g + r
        if unseen[t] == 0 or wild[t] or nat[t] >= 4:
            continue
        cl = H.group_class(g, idx + H.kind_step(t)[1], tables)
        if cl == base:
            continue
        j = 0
        while j < m and iwork[DC + 9 * g + j] != cl:
            j += 1
        if j == m:
            iwork[DC + 9 * g + j] = cl
            iwork[DW + 9 * g + j] = 0
            m += 1
        iwork[DW + 9 * g + j] += unseen[t]
    return m


@nrt_free(inline="always")
def acceptances(tables, wild, nat, w, n_melds, target, s_ref, sh, i0, i1, i2, i3, unseen,
                acc, iwork, kinds, n_kinds, memo):
    """Tile acceptance of every candidate discard ``k`` in ``kinds[:n_kinds]``
    (int64, ascending) with ``sh[k] == s_ref`` into ``acc[k]`` (0 for the
    other listed kinds; the unlisted ones are left as they were); returns
    the largest. The
    acceptance of discarding k: the unseen tiles whose draw brings the hand
    left (``nat`` minus k: 3k + 1 tiles, group indices i0..i3 of the whole
    hand) closer than ``s_ref`` to ``target``: natural kinds by their unseen
    copies, and every unseen wild. wild: bool[42]; unseen: int64[42]
    (``view.fill_unseen``); acc: float64[42]; iwork: int64[>= DW + 36]
    scratch (``sh`` may share its first 42 entries); memo: int8[4 x
    MEMO_W] scratch.

    Exact shortcuts (the same counts as trying every draw on every
    candidate): the fit shanten depends only on the fit class of each group
    (``hand.best_fit_classes``), so
    * a draw that leaves its group's class unchanged cannot help;
    * a draw into another group than the discard's gives that group the
      same class whatever the discard: those draws are grouped once, for
      the whole hand, by the class they give (``_draw_classes``), and each
      class is tried once per candidate (``_other_groups``); candidates of
      one group that leave it the same class share that count (the last
      four are remembered);
    * a draw into the discard's group (of a natural kind) helps or not by
      the class it gives that group alone: the other groups keep their
      whole-hand classes and the tiles needed are the same for every
      natural discard, so the answer is remembered per group and class
      (``memo``) for all the candidates.
    Toward all pungs, ``_pungs_acceptances``."""
    n_wild = 0
    for k in range(C.N_KINDS):
        if wild[k]:
            n_wild += unseen[k]
    acc_max = 0.0
    if target == TG_ALL_PUNGS:
        return _pungs_acceptances(nat, w, n_melds, s_ref, sh, wild, unseen, n_wild, acc, kinds,
                                  n_kinds)
    # the groups the target counts, by their first kinds (1m, 1p, 1s, east)
    in0 = kind_in_target(target, 0)
    in1 = kind_in_target(target, 9)
    in2 = kind_in_target(target, 18)
    in3 = kind_in_target(target, 27)
    b0 = H.group_class(0, i0 if in0 else 0, tables)
    b1 = H.group_class(1, i1 if in1 else 0, tables)
    b2 = H.group_class(2, i2 if in2 else 0, tables)
    b3 = H.group_class(3, i3 if in3 else 0, tables)
    n0 = _draw_classes(tables, 0, b0, in0, i0, nat, wild, unseen, iwork)
    n1 = _draw_classes(tables, 1, b1, in1, i1, nat, wild, unseen, iwork)
    n2 = _draw_classes(tables, 2, b2, in2, i2, nat, wild, unseen, iwork)
    n3 = _draw_classes(tables, 3, b3, in3, i3, nat, wild, unseen, iwork)
    n_fit = 4 - n_melds
    for j in range(4 * MEMO_W):
        memo[j] = 0
    # the other groups' count per (discard group, its class after, need): last four
    o_g0 = o_g1 = o_g2 = o_g3 = np.int64(-2)
    o_c0 = o_c1 = o_c2 = o_c3 = np.int64(-1)
    o_n0 = o_n1 = o_n2 = o_n3 = np.int64(0)
    o_v0 = o_v1 = o_v2 = o_v3 = np.int64(0)
    n_o = 0
    for i in range(n_kinds):
        k = kinds[i]
        acc[k] = 0.0
        if sh[k] != s_ref:
            continue
        ww = w
        gk = np.int64(-1)       # the discard's group, when it is one that counts
        kidx = np.int64(0)      # that group's index without the discard
        post = np.int64(-1)     # and its class
        if wild[k]:
            ww = w - 1
        else:
            g, p = H.kind_step(k)
            if _pick(g, in0, in1, in2, in3):
                gk = g
                kidx = _pick(g, i0, i1, i2, i3) - p
                post = H.group_class(g, kidx, tables)
        need = 3 * n_fit + 1 - ww - s_ref      # a draw helps if more naturals fit
        if gk == o_g0 and post == o_c0 and need == o_n0:
            other = o_v0
        elif gk == o_g1 and post == o_c1 and need == o_n1:
            other = o_v1
        elif gk == o_g2 and post == o_c2 and need == o_n2:
            other = o_v2
        elif gk == o_g3 and post == o_c3 and need == o_n3:
            other = o_v3
        else:
            other = _other_groups(tables.fit_combo_ss, tables.fit_combo_sh, gk, post, need,
                                  n_fit, in0, in1, in2, in3, b0, b1, b2, b3, iwork,
                                  n0, n1, n2, n3)
            if n_o == 0:
                o_g0, o_c0, o_n0, o_v0 = gk, post, need, other
            elif n_o == 1:
                o_g1, o_c1, o_n1, o_v1 = gk, post, need, other
            elif n_o == 2:
                o_g2, o_c2, o_n2, o_v2 = gk, post, need, other
            else:
                o_g3, o_c3, o_n3, o_v3 = gk, post, need, other
            n_o = (n_o + 1) & 3
        n = n_wild + other
        if gk >= 0:
            # draws into the discard's own group: the others keep b0..b3
            row = MEMO_W * gk
            for r in range(9 if gk < 3 else 7):
                t = 9 * gk + r
                if unseen[t] == 0 or wild[t] or nat[t] - (1 if t == k else 0) >= 4:
                    continue
                cl = H.group_class(gk, kidx + H.kind_step(t)[1], tables)
                if cl == post:
                    continue
                known = memo[row + cl]
                if known == 0:
                    helps = H.best_fit_classes(cl if gk == 0 else b0, cl if gk == 1 else b1,
                                               cl if gk == 2 else b2, cl if gk == 3 else b3,
                                               n_fit, tables) > need
                    memo[row + cl] = 1 if helps else 2
                else:
                    helps = known == 1
                if helps:
                    n += unseen[t]
        acc[k] = n
        if n > acc_max:
            acc_max = n
    return acc_max


@nrt_free(inline="always")
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


@nrt_free(kernel_only=True)
def _gain(view, v):
    """Points a win of the deciding seat's hand would collect, from its
    estimated value ``v`` (``common.estimate_value`` of its target: tai, or
    fan under Ninghai): T (tai at least the minimum, plus base points) times
    the payers' units (about 2.4 T: self-drawn 3 T, on a discard 2 T; bound
    players pay more)."""
    rules = view.rules
    seat = view.seat
    if rules[C.R_SYSTEM] == C.SYSTEM_FAN_FU:
        return 3.0 * 60.0 * (2.0 ** min(v, 3.0))
    t = v if v > rules[C.R_MIN_TAI] else float(rules[C.R_MIN_TAI])
    t += rules[C.R_BASE_POINTS]
    units = 2.4
    for o in range(4):
        if o != seat and view.fed[seat, o] >= 3:
            units += 2.0
    return units * t


@nrt_free(kernel_only=True)
def choose_discard(view_ref, params, prng, scr_ref, allowed):
    """The allowed kind with the best expected value (see the module doc);
    ties go to value's order (target shanten, open shanten, usefulness)."""
    view = deref(view_ref)
    scr = deref(scr_ref)
    hand = view.hand
    wild = view.wild
    tables = view.tables
    nat = scr.nat
    seat = view.seat
    n_melds = view.n_melds[seat]
    caution = params[P_CAUTION]
    bind = params[P_BIND]
    speed = params[P_SPEED]
    hold = params[P_HOLD]
    lam = caution_weight(caution)
    w = split_hand(hand, wild, nat)
    target, value = _target(view, params, nat, w, scr.tmp)
    # the candidates: held and allowed kinds, ascending (the loops below
    # visit only these; a list built without a branch per kind)
    cand = scr.kinds
    n_cand = 0
    for k in range(C.N_KINDS):
        cand[n_cand] = k
        n_cand += 1 if (hand[k] > 0) & allowed[k] else 0
    if lam > 0.0 or bind > 0.0:
        fill_danger(view, scr, bind > 0.0, cand, n_cand)    # fills scr.unseen too
    else:
        fill_unseen(view, scr.unseen)
    i0, i1, i2, i3 = H.group_indices(nat)
    # toward all pungs the shanten depends only on how many kinds hold 1, 2
    # and 3+ tiles (common.pungs_shanten_counts): a discard moves one count
    pungs = target == TG_ALL_PUNGS
    c1 = c2 = c3 = np.int64(0)
    if pungs:
        c1, c2, c3 = held_counts(nat)
    # toward the others a discard changes one group's fit class: the
    # classes of the whole hand are looked up once (common.target_fit_classes)
    b0, b1, b2, b3, z, zh = H.hand_classes(i0, i1, i2, i3, tables)
    sh = scr.iwork          # [k]: target shanten; [DC ..]: acceptances' draw classes
    acc = scr.work          # [k]: tile acceptance; [DV + i]: candidate i's value
    # np.int64: with a literal, numba would also compile the callees these
    # reach for Literal[int] arguments while it infers the loop's types
    best_s = np.int64(BIG)
    n_best = 0
    for i in range(n_cand):
        k = cand[i]
        ww = w - 1 if wild[k] else w
        if pungs:
            d1, d2, d3 = held_counts_less(c1, c2, c3, 0 if wild[k] else nat[k])
            s = pungs_shanten_counts(d1, d2, d3, ww, n_melds)
        else:
            a0, a1, a2, a3 = b0, b1, b2, b3
            if not wild[k]:
                g, p = H.kind_step(k)
                c = H.group_class(g, _pick(g, i0, i1, i2, i3) - p, tables)
                a0 = c if g == 0 else b0
                a1 = c if g == 1 else b1
                a2 = c if g == 2 else b2
                a3 = c if g == 3 else b3
            s = target_fit_classes(target, a0, a1, a2, a3, z, zh, ww, n_melds, tables)
        sh[k] = s
        if s < best_s:
            best_s = s
            n_best = 1
        elif s == best_s:
            n_best += 1
    # tile acceptance of the closest candidates (only when it can decide)
    measure = speed > 0.0 and n_best > 1
    acc_max = 0.0
    if measure:
        acc_max = acceptances(tables, wild, nat, w, n_melds, target, best_s, sh, i0, i1, i2, i3,
                              scr.unseen, acc, sh, cand, n_cand, scr.memo)
    gain = _gain(view, value)
    tl = view.tiles_left
    # every candidate's expected value first (no iteration waits on the
    # comparisons), then the best by a scan in candidate order
    for i in range(n_cand):
        k = cand[i]
        s = sh[k]
        ratio = 1.0
        if measure and s == best_s and acc_max > 0.0:
            ratio = acc[k] / acc_max
        v = gain * win_chance(s if s >= 0 else 0, ratio, speed, tl)
        if lam > 0.0:
            v -= lam * scr.danger[k]
        if bind > 0.0:
            v -= bind * scr.feed[k]
        if (hold > 0.0 and k >= C.HONOR0 and k < C.N_PLAY and hand[k] == 1 and not wild[k]
                and honor_pung_value(view.rules, k, seat, view.round_wind) > 0.0):
            v -= hold
        acc[DV + i] = v
    best_k = np.int64(-1)
    best_v = -1e300
    best_s2 = np.int64(BIG)  # BIG: not worked out yet
    best_u = np.int64(BIG)
    best_sk = np.int64(BIG)
    for i in range(n_cand):
        k = cand[i]
        s = sh[k]
        v = acc[DV + i]
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
