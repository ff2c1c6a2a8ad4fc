"""What a player sees when it decides: the public table view (``View``) and
the policies' scratch arrays (``Scratch``).

The engine builds one ``View`` for the seat to decide (``engine.decisions.make_view``)
and passes it (by its address: ``nbsim.kernels.ref``), the seat's parameter
row and random stream to the policy.
A policy reads nothing else: no other player's concealed tiles, no wall
order. Everything in a View is what that player would know at a real table
(docs/rules.md §2-§4):

========== ====================== ==============================================
field      type                   meaning
========== ====================== ==============================================
rules      int64[R_LEN]           the variant's rules (``codes.R_*``)
tables     lookup-table tuple     ``nbsim.rules.lookups.load_tables()``
seat       int64                  the deciding seat (0 E = dealer, 1 S, 2 W, 3 N)
to_play    int64                  the seat whose turn it is (for a claim: the
                                  discarder)
round_wind int64                  0..3
indicator  int64                  indicator kind, -1 without wilds
tiles_left int64                  drawable tiles left in the wall
turn       int64                  discards made so far in the deal
n_kongs    int64                  kongs declared so far (all seats)
hand       int8[42]               own concealed tiles (counts by kind; wilds at
                                  their own kind)
own_melds  int8[4, 3]             own declared melds (type, kind, from seat)
melds      int8[4, 4, 3]          every seat's declared melds as the table
                                  shows them: a concealed kong lies face down,
                                  its kind is -1 (own: see own_melds)
n_melds    int64[4]               declared melds per seat
flowers    uint8[4]               flowers set aside per seat (bit f: flower f)
visible    int8[42]               copies of each kind face up on the table:
                                  discards (claimed or not), melds but
                                  concealed kongs, flowers, the indicator
wild       bool[42]               the wild kinds
pond       int8[4, MAX_POND]      each seat's discards in order (kinds)
pond_flags int8[4, MAX_POND]      per discard: POND_DRAWN (it was the tile just
                                  drawn), POND_CLAIMED (someone claimed it)
n_pond     int64[4]               discards per seat
passed     bool[4, 42]            kinds each seat let go by since its own last
                                  discard (discards and added-kong tiles of the
                                  others it could have won on and did not)
fed        int8[4, 4]             bound-pair counts: fed[a, b] = melds a claimed
                                  from b's discards (docs/rules.md §7)
ws         int64[WS_LEN]          the wall's state (``wall.WS_*``): positions
                                  drawn from the live end and the tail, the
                                  indicator's place; never the tiles
pts        int64[TS_LEN]          the public turn state (``engine.state.TS_*``): whose
                                  turn, kong locks, chow-swap limits, claims
                                  and kongs so far; ``TS_DRAWN`` is the drawn
                                  kind only when the deciding seat drew it
                                  (-1 otherwise: another seat's draw is hidden)
playout    ``Playout``            the engine a search policy plays its sampled
                                  worlds out with and the policies it can
                                  play there: entry pairs (address, tag) of
                                  ``engine.loop.play_from``, of the compiled
                                  decisions of the policies that play, by
                                  code, and of the engine's scorer
                                  (``nbsim.kernels.entry``)
========== ====================== ==============================================

A seat's concealed tile count is public too (``concealed_count``); the
copies the deciding seat has not seen are ``unseen`` / ``fill_unseen``.
"""
from collections import namedtuple

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free

MAX_POND = 40            # discards one seat can make in a deal (143 tiles / 4 + claims)
POND_DRAWN = 1           # the discard was the tile just drawn (摸打)
POND_CLAIMED = 2         # the discard was claimed for a meld

View = namedtuple("View", (
    "rules", "tables", "seat", "to_play", "round_wind", "indicator", "tiles_left", "turn",
    "n_kongs", "hand", "own_melds", "melds", "n_melds", "flowers", "visible", "wild", "pond",
    "pond_flags", "n_pond", "passed", "fed", "ws", "pts", "playout"))
# a View's ``playout``: engine int64[2], the entry pair of the engine's turn
# loop (0, 0 where no search is played); decisions
# int64[len(POLICY_TABLE), 4, 2], the entry pairs of the policies'
# decisions by code ((0, 0) for a policy that does not play); scorer
# int64[2], the entry pair of the scorer the turn loop calls
# (``catalog.Policies``: a View holds the seats' record's arrays, not its
# codes or parameters)
Playout = namedtuple("Playout", ("engine", "decisions", "scorer"))

# policy scratch: int8[34] natural counts (nat, tmp, nat2), float64 work
# vectors (deal-in danger and claim-feeding cost per kind, per seat threat
# and worth, a general one), an int64 one, the unseen copies, and
# the kinds a decision considers (``kinds``, int64[42]: a list, ascending,
# so that loops visit only those kinds instead of testing all 42) and a
# memo per group and fit class (``memo``, int8[4 x MEMO_W]: 0 not known)
# ``search``: the working memory of a search policy's playouts
# (``engine.state.Search``, made by ``engine.state.new_search``)
Scratch = namedtuple("Scratch", ("nat", "tmp", "nat2", "danger", "feed", "threat", "worth",
                                 "work", "iwork", "unseen", "kinds", "memo", "search"))

N_WORK = 120           # >= 42 + 2 x 36 (iwork: defend.acceptances), 42 + 42 (work:
                       # defend.choose_discard)
MEMO_W = 128           # > the largest fit class of a suit (125) or the honors (54)


def scratch_arrays():
    """Fresh policy scratch arrays, in ``Scratch``'s field order less
    ``search`` (numpy, in Python; allocate once per batch)."""
    return (np.zeros(C.N_PLAY, np.int8), np.zeros(C.N_PLAY, np.int8),
            np.zeros(C.N_PLAY, np.int8), np.zeros(C.N_KINDS, np.float64),
            np.zeros(C.N_KINDS, np.float64), np.zeros(4, np.float64),
            np.zeros(4, np.float64),
            np.zeros(N_WORK, np.float64), np.zeros(N_WORK, np.int64),
            np.zeros(C.N_KINDS, np.int64), np.zeros(C.N_KINDS, np.int64),
            np.zeros(4 * MEMO_W, np.int8))


@njit(cache=True, inline="always")
def scratch_of(a, search):
    """A ``Scratch`` of the arrays ``a`` (``scratch_arrays``) and ``search``."""
    return Scratch(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                   search)


@njit(cache=True, inline="always")
def concealed_count(view, s):
    """Concealed tiles of seat ``s``: the deciding seat's own count, or for
    another seat 13 - 3 x its melds (public; it is not holding a drawn
    tile while the deciding seat decides)."""
    if s == view.seat:
        t = 0
        for k in range(C.N_KINDS):
            t += view.hand[k]
        return t
    return 13 - 3 * view.n_melds[s]


@nrt_free(inline="always")
def fill_unseen(view, out):
    """``out[k] = unseen(view, k)`` for every kind k (0..41; a flower counts
    its one copy); returns the total: the tiles the deciding seat cannot
    see (the others' concealed tiles and the wall), at least 1."""
    for k in range(C.N_PLAY):
        out[k] = 4 - view.visible[k] - view.hand[k]
    for k in range(C.N_PLAY, C.N_KINDS):
        out[k] = 1 - view.visible[k] - view.hand[k]
    for i in range(view.n_melds[view.seat]):
        if view.own_melds[i, C.MELD_TYPE] == C.MELD_CKONG:
            out[view.own_melds[i, C.MELD_KIND]] -= 4
    t = 0
    for k in range(C.N_KINDS):
        if out[k] < 0:
            out[k] = 0
        if k < C.N_PLAY:
            t += out[k]
    return t if t > 0 else 1


@njit(cache=True, inline="always")
def unseen(view, k):
    """Copies of kind ``k`` (0..33) the deciding seat has not seen: 4 minus
    the visible copies and its own (concealed hand and concealed kongs)."""
    u = 4 - view.visible[k] - view.hand[k]
    for i in range(view.n_melds[view.seat]):
        if (view.own_melds[i, C.MELD_TYPE] == C.MELD_CKONG
                and view.own_melds[i, C.MELD_KIND] == k):
            u -= 4
    return u if u > 0 else 0
