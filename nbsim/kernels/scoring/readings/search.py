"""Readings of a winning hand: the search over group identities, the free
group classes, scoring one reading and keeping the best (docs/rules.md
§5, §6, §8 and §10). ``score.score_one`` fills the hand constants of the scratch
(``scratch.O_HC``) and calls ``search``.

The work is split, one module each:

* ``readings`` (this module): the depth-first search over the covers of the
  natural tiles, ``search(rules, iw, wilds, n_meld_slots, pair_slots) ->
  int``: every reading of the natural tiles iw[O_NAT:] with ``wilds`` wilds;
  the best one is left in iw[O_ST:] (``scratch.ST_*``). Returns the number
  of covers.
* ``readings.leaf``: the readings of one cover (the winning slot, the free
  groups' classes);
* ``readings.choice``: scoring one reading, its legality, keeping the best;
* ``readings.groups``: ``Groups`` and ``WinSlot``, the free group classes
  (``fill_classes``);
* ``readings.descriptor``: the reading descriptor and the items it stands for
  (``fill_items``, ``reading_present``, ``fill_fan_fu``).

Every kernel reads and writes only the scratch ``iw``
(int64[scratch.IW_LEN]).

How the readings are enumerated
===============================
A *reading* is a multiset of group identities (4 - n_melds melds + 1 pair,
each group a concrete chow / pung / pair of kinds 0..33) plus the slot the
winning tile occupies. It is valid when the 14 concealed tiles can be placed
in the slots: every natural tile in a slot of its own kind, wilds anywhere,
the winning tile in the winning slot. Every tai item depends only on the group
identities and the winning slot (plus hand constants), never on which
physical tile sits where, except the discard restrictions, which ask whether
the winning group *can* be all natural: that holds iff for each kind j the
group has at most nat[j] slots of kind j (nat = natural counts of the 14
tiles), because the naturals of a kind can be shuffled freely among that
kind's slots and the wilds fill the rest.

1. A depth-first search covers the natural tiles: at the lowest kind i that
   still has an uncovered natural it picks a group identity containing i
   (pair i, pung i, chow i.., chow (i-1).., chow (i-2)..; slots below i are
   wilds) and fills the group's other slots with naturals where any are left,
   else with wilds. Groups picked at the same kind come in nondecreasing
   option order (dedupe). Every identity multiset G whose slots cover the
   naturals is reached this way with some of its groups picked (the
   *natural groups* N) and the others left over (the *free groups* F, made
   only of wilds): at each step the lowest uncovered natural lies in some
   group of G not yet picked.
2. Free groups get their identity from a small set of *classes* (below).
3. The winning tile is placed ("hosted"):
   natural winning kind k: in a natural group with a k slot; or in a free
   meld / the free pair re-identified as pung k, a chow holding k (any
   position) or pair k (the natural k moves there and a wild takes its old
   slot).
   wild winning tile: in a natural-group slot of kind j when N has more
   j slots than nat[j] (a wild can sit there); otherwise in such a slot after
   re-identifying one free group to hold kind j (pung j, chow holding j,
   pair j); or in any slot of a free group (pung: dual-pung shape, chow: edge,
   closed or two-sided by choosing its ranks, pair: single shape).
   These cover every valid reading: the winning slot lies in N or in F, and
   a wild can stand in an N slot of kind j exactly when the whole reading
   has more j slots than naturals of j.
"""
import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.readings.leaf import eval_leaf
from nbsim.kernels.scoring.scratch import (
    G_CHOW,
    G_PAIR,
    G_PUNG,
    O_GB,
    O_GC,
    O_GT,
    O_GW,
    O_LVMIN,
    O_LVOPT,
    O_LVPOS,
    O_NAT,
)

OPT_PAIR = 0        # group options at the lowest uncovered kind i (bit numbers)
OPT_PUNG = 1
OPT_CHOW_LOW = 2    # chow i, i+1, i+2
OPT_CHOW_MID = 3    # chow i-1, i, i+1
OPT_CHOW_HIGH = 4   # chow i-2, i-1, i


@njit(cache=True, inline="always")
def _options(iw, i, wilds_left, n_pairs, n_melds, n_meld_slots, pair_slots, min_option):
    """Bit mask of the group options (OPT_*) at the lowest uncovered kind i
    that fit the wilds left, only options >= min_option (dedupe of groups
    picked at one kind)."""
    m = 0
    n = iw[O_NAT + i]
    if min_option <= OPT_PAIR and n_pairs < pair_slots and 2 - min(n, 2) <= wilds_left:
        m |= 1 << OPT_PAIR
    if n_melds < n_meld_slots:
        if min_option <= OPT_PUNG and 3 - min(n, 3) <= wilds_left:
            m |= 1 << OPT_PUNG
        if i < C.HONOR0:
            rank = i % 9
            miss1 = 1 if (rank > 7 or iw[O_NAT + i + 1] == 0) else 0
            miss2 = 1 if (rank > 6 or iw[O_NAT + i + 2] == 0) else 0
            if min_option <= OPT_CHOW_LOW and rank <= 6 and miss1 + miss2 <= wilds_left:
                m |= 1 << OPT_CHOW_LOW
            if min_option <= OPT_CHOW_MID and 1 <= rank <= 7 and 1 + miss1 <= wilds_left:
                m |= 1 << OPT_CHOW_MID
            if min_option <= OPT_CHOW_HIGH and rank >= 2 and wilds_left >= 2:
                m |= 1 << OPT_CHOW_HIGH
    return m


@nrt_free(kernel_only=True)
def search(rules, iw, wilds, n_meld_slots, pair_slots):
    """Depth-first cover of the natural tiles iw[O_NAT:O_NAT + N_PLAY]
    (changed during the search, restored on return) by groups with
    ``wilds`` wilds: n_meld_slots melds and pair_slots (0/1) pairs.
    Evaluates every complete cover (``eval_leaf``), keeping the best reading
    in iw[O_ST:], and returns the number of covers. Level d keeps its kind
    in LVPOS, its options still to try in LVOPT (bit mask) and the option
    taken in LVMIN; the group it placed is GT/GB/GC (type, base kind,
    naturals used: a count, or a slot bit mask for a chow) and GW (wilds
    used). Needs the hand constants and classes of iw (``score.score_one``)."""
    leaves = 0
    # int64 from the start: a literal 0 here makes numba compile eval_leaf
    # (and the readings below it) once more for Literal[int](0) arguments
    d = np.int64(0)
    n_pairs = np.int64(0)
    n_melds = 0
    wilds_left = wilds
    i0 = 0
    while i0 < C.N_PLAY and iw[O_NAT + i0] == 0:
        i0 += 1
    iw[O_LVPOS + 0] = i0
    if i0 < C.N_PLAY:
        iw[O_LVOPT + 0] = _options(iw, i0, wilds_left, 0, 0, n_meld_slots, pair_slots, 0)
    while d >= 0:
        i = iw[O_LVPOS + d]
        if i >= C.N_PLAY:
            if wilds_left == 3 * (n_meld_slots - n_melds) + 2 * (pair_slots - n_pairs):
                leaves += 1
                eval_leaf(rules, iw, d, n_pairs, wilds_left)
        else:
            m = iw[O_LVOPT + d]
            if m != 0:
                opt = 0
                while (m >> opt) & 1 == 0:
                    opt += 1
                iw[O_LVOPT + d] = m & (m - 1)
                iw[O_LVMIN + d] = opt
                if opt == OPT_PAIR:
                    used = min(iw[O_NAT + i], 2)
                    need = 2 - used
                    iw[O_NAT + i] -= used
                    n_pairs += 1
                    iw[O_GT + d] = G_PAIR
                    iw[O_GB + d] = i
                    iw[O_GC + d] = used
                elif opt == OPT_PUNG:
                    used = min(iw[O_NAT + i], 3)
                    need = 3 - used
                    iw[O_NAT + i] -= used
                    n_melds += 1
                    iw[O_GT + d] = G_PUNG
                    iw[O_GB + d] = i
                    iw[O_GC + d] = used
                else:
                    base = i + OPT_CHOW_LOW - opt
                    used_slots = 0
                    need = 0
                    for s in range(3):
                        if iw[O_NAT + base + s] > 0:
                            used_slots |= 1 << s
                            iw[O_NAT + base + s] -= 1
                        else:
                            need += 1
                    n_melds += 1
                    iw[O_GT + d] = G_CHOW
                    iw[O_GB + d] = base
                    iw[O_GC + d] = used_slots
                wilds_left -= need
                iw[O_GW + d] = need
                i1 = i
                while i1 < C.N_PLAY and iw[O_NAT + i1] == 0:
                    i1 += 1
                d += 1
                iw[O_LVPOS + d] = i1
                if i1 < C.N_PLAY:
                    iw[O_LVOPT + d] = _options(iw, i1, wilds_left, n_pairs, n_melds,
                                               n_meld_slots, pair_slots, opt if i1 == i else 0)
                continue
        # pop: undo the group of the level above
        d -= 1
        if d >= 0:
            gtype = iw[O_GT + d]
            if gtype == G_CHOW:
                for s in range(3):
                    if iw[O_GC + d] & (1 << s):
                        iw[O_NAT + iw[O_GB + d] + s] += 1
                n_melds -= 1
            else:
                iw[O_NAT + iw[O_GB + d]] += iw[O_GC + d]
                if gtype == G_PAIR:
                    n_pairs -= 1
                else:
                    n_melds -= 1
            wilds_left += iw[O_GW + d]
    return leaves
