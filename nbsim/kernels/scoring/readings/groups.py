"""The groups of a reading as the search builds it, and the free group
classes (Numba; docs/rules.md §10.3).

The reading state
-----------------
While the search builds a reading, two named tuples travel down the calls
instead of twelve positional scalars (numba passes a tuple's fields as
plain scalars; docs/layout.md, "The kernels", has the measurement):


* ``Groups``: what the groups placed so far add up to: the suit bits, the
  pung, chow and dragon-pung counts, the seat / round wind pung flags, the
  pair's kind (-1 while the pair is a free class) and the Ninghai fu items of
  the concealed groups (set counts packed by ``fu_set_inc``);
* ``WinSlot``: the winning slot: its shape (``SH_*``), the kind it stands
  for (-1 inside a free group), whether the winning tile pairs with a wild
  and whether the winning group must hold a wild.

Free-group classes, and why they suffice
----------------------------------------
The tai of a reading depends on a free group (one not holding the winning
tile) only through: its type (chow/pung/pair: all_pungs, all_chows), its
suit bit (m, p, s or honors: flushes, all_honors, allowed_patterns), whether a
pung is a dragon (dragon_pung, counted per pung: wilds have no four-copies
limit, so a second White pung of wilds is allowed), the seat wind or the round
wind (the wind items), whether a pair is the seat or round wind (all_chows),
and for Ninghai fu whether a pung is terminal/honor or simple. So:

* meld classes: pung of a dragon, pung of the seat wind (also the round wind
  when they are equal), pung of the round wind, a suited pung, a suited chow;
* pair classes: a suited pair, an honor pair that is neither the seat nor
  the round wind (a dragon pair).

The suit of the suited classes is one the hand already shows (any of them:
the suit bits stay as they are); a suit it does not show would only add a
suit bit, which can never raise a flush item, so it is dominated. When the
naturals and melds are all honors, any suit stands for all three.

Every concrete identity X maps to a class of the same type whose items, in
any reading, are entrywise >= X's: a pung of another wind maps to the
seat-wind pung; a seat/round-wind pair to the dragon pair, which only helps
all_chows; a suited group to the suited class, whose suit bit is already set
(or, honors only, sets the same single suit bit); a suited pung scores the
larger of the terminal/simple fu. Legality is monotone too (more tai, suit
bits that are a subset, the same winning group), so the best key (tai,
legal, items) is reached by some class choice. The winning group is never a
class: its identity is enumerated exactly.
"""
from collections import namedtuple

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.scoring.readings.descriptor import SUIT_HONORS, fu_set_inc
from nbsim.kernels.scoring.scratch import (
    CF_DRAG,
    CF_FUI_C,
    CF_FUI_E,
    CF_ROUND,
    CF_SEAT,
    CF_SUIT,
    CF_TYPE,
    CLS_W,
    G_CHOW,
    G_PUNG,
    HC_N_MELD_CLASSES,
    HC_N_PAIR_CLASSES,
    HC_PAIR_CLASS_SUIT,
    HC_ROUND_KIND,
    HC_SEAT_KIND,
    MAX_CLS,
    N_PAIR_CLASSES,
    O_CLS,
    O_HC,
    O_NAT0,
    SH_CLOSED,
    SH_EDGE,
    SH_TWO,
)

Groups = namedtuple("Groups", ("suits", "pungs", "chows", "dragon_pungs", "seat_pung",
                               "round_pung", "pair_kind", "fu_sets"))
Groups.__doc__ = """The groups of a reading placed so far (see the module doc): int64 fields
suits (suit bits 1 m, 2 p, 4 s, 8 honors), pungs, chows, dragon_pungs,
seat_pung (0/1), round_pung (0/1), pair_kind (-1: none or a free pair
class), fu_sets (Ninghai fu items of the concealed groups: set counts
packed by ``fu_set_inc``; unused by the tai systems)."""
WinSlot = namedtuple("WinSlot", ("shape", "kind", "pairs_with_wild", "holds_wild"))
WinSlot.__doc__ = """The slot of the winning tile: shape (SH_*), kind (the kind the slot
stands for, -1 inside a free group), pairs_with_wild (bool: the winning
tile pairs with a wild), holds_wild (bool: the winning group must hold a
wild)."""


@njit(cache=True, inline="always")
def chow_shape(base, pos):
    """Shape of the winning tile at position pos (0..2) of the chow starting at base."""
    if pos == 1:
        return SH_CLOSED
    rank = base % 9
    if pos == 0:
        return SH_EDGE if rank == 6 else SH_TWO      # 7 completing 89
    return SH_EDGE if rank == 0 else SH_TWO          # 3 completing 12


@njit(cache=True, inline="always")
def natural_chow(iw, base):
    """True when the 14 tiles hold a natural tile of each kind of the chow at base."""
    return iw[O_NAT0 + base] >= 1 and iw[O_NAT0 + base + 1] >= 1 and iw[O_NAT0 + base + 2] >= 1


@njit(cache=True, inline="always")
def with_pung(iw, groups, kind, fu_inc):
    """``groups`` plus a pung of ``kind`` whose fu item is ``fu_inc``
    (``fu_set_inc``)."""
    return Groups(groups.suits, groups.pungs + 1, groups.chows,
                  groups.dragon_pungs + (1 if kind >= C.WHITE else 0),
                  groups.seat_pung | (1 if kind == iw[O_HC + HC_SEAT_KIND] else 0),
                  groups.round_pung | (1 if kind == iw[O_HC + HC_ROUND_KIND] else 0),
                  groups.pair_kind, groups.fu_sets + fu_inc)


@njit(cache=True, inline="always")
def with_chow(groups):
    """``groups`` plus a chow of a suit they already show."""
    return Groups(groups.suits, groups.pungs, groups.chows + 1, groups.dragon_pungs,
                  groups.seat_pung, groups.round_pung, groups.pair_kind, groups.fu_sets)


@njit(cache=True, inline="always")
def with_pair(groups, kind, suits):
    """``groups`` with the pair of ``kind`` (-1: a free pair class) and suit bits ``suits``."""
    return Groups(suits, groups.pungs, groups.chows, groups.dragon_pungs, groups.seat_pung,
                  groups.round_pung, kind, groups.fu_sets)


@njit(cache=True, inline="always")
def with_class(iw, groups, c, fu_field):
    """``groups`` plus a free meld of class c (fu item from field CF_FUI_C or
    CF_FUI_E)."""
    o = O_CLS + c * CLS_W
    pung = 1 if iw[o + CF_TYPE] == G_PUNG else 0
    return Groups(groups.suits | iw[o + CF_SUIT], groups.pungs + pung, groups.chows + 1 - pung,
                  groups.dragon_pungs + iw[o + CF_DRAG], groups.seat_pung | iw[o + CF_SEAT],
                  groups.round_pung | iw[o + CF_ROUND], groups.pair_kind,
                  groups.fu_sets + iw[o + fu_field])


@nrt_free(kernel_only=True)
def fill_classes(rules, iw, suits, seat_kind, round_kind):
    """The free group classes of a hand (see the module doc) into the class
    table iw[O_CLS:] and the hand constants HC_N_MELD_CLASSES,
    HC_N_PAIR_CLASSES and HC_PAIR_CLASS_SUIT.

    suits: suit bits of the natural tiles and melds; seat_kind, round_kind:
    the wind kinds 27..30. Call it only for hands with 2 or more wilds (with
    fewer, no group is made of wilds alone)."""
    # suit of the suited classes: a suit the hand already shows (all
    # leave the suit bits as they are), else (honors only) any suit
    class_suit = 0
    for b in range(2, -1, -1):
        if suits & (1 << b):
            class_suit = 1 << b
    if class_suit == 0:
        class_suit = 1
    # a suited pung of wilds takes the fu item worth more (terminal on a tie):
    # kind 0 (1m) is a terminal, kind 1 (2m) a simple
    suited_c = 0 if (rules[C.R_FU + C.FU_CONCEALED_PUNG_TERMINAL]
                     >= rules[C.R_FU + C.FU_CONCEALED_PUNG_SIMPLE]) else 1
    suited_e = 0 if (rules[C.R_FU + C.FU_EXPOSED_PUNG_TERMINAL]
                     >= rules[C.R_FU + C.FU_EXPOSED_PUNG_SIMPLE]) else 1
    n_classes = 0
    for c in range(MAX_CLS):
        # 0 dragon pung, 1 seat-wind pung (+ round when equal), 2 round-wind
        # pung, 3 suited pung, 4 suited chow
        if c == 2 and seat_kind == round_kind:
            continue
        o = O_CLS + n_classes * CLS_W
        iw[o + CF_TYPE] = G_CHOW if c == 4 else G_PUNG
        iw[o + CF_SUIT] = class_suit if c >= 3 else SUIT_HONORS
        iw[o + CF_DRAG] = 1 if c == 0 else 0
        iw[o + CF_SEAT] = 1 if c == 1 else 0
        iw[o + CF_ROUND] = 1 if (c == 2 or (c == 1 and seat_kind == round_kind)) else 0
        if c < 3:
            iw[o + CF_FUI_C] = fu_set_inc(C.EAST, True, False)
            iw[o + CF_FUI_E] = fu_set_inc(C.EAST, False, False)
        elif c == 3:
            iw[o + CF_FUI_C] = fu_set_inc(suited_c, True, False)
            iw[o + CF_FUI_E] = fu_set_inc(suited_e, False, False)
        else:
            iw[o + CF_FUI_C] = 0
            iw[o + CF_FUI_E] = 0
        n_classes += 1
    # pair classes: suited, or an honor that is neither the seat nor the round wind
    iw[O_HC + HC_PAIR_CLASS_SUIT + 0] = class_suit
    iw[O_HC + HC_PAIR_CLASS_SUIT + 1] = SUIT_HONORS
    iw[O_HC + HC_N_PAIR_CLASSES] = N_PAIR_CLASSES
    iw[O_HC + HC_N_MELD_CLASSES] = n_classes
