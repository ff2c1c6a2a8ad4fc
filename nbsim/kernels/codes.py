"""Integer codes shared by every kernel: kinds, melds, win kinds, rule options,
tai/fan/fu item ids, result layouts and error codes.

Everything here is a plain ``int`` constant (or a tuple of names for the
wrappers), so Numba freezes them as compile-time constants. The layout of the
flat rules array (``R_*``) is defined here once; ``nbsim.rules.ruleset`` fills it and
the kernels read it.

Tile kinds (docs/rules.md §1):
    0-8   1m..9m (characters)      9-17  1p..9p (dots)
    18-26 1s..9s (bamboo)          27-30 East South West North (1z..4z)
    31-33 White Green Red (5z..7z) 34-41 flowers 1f..8f
"""
from nbsim.kernels.items import FAN_ITEM_TABLE, FU_ITEM_TABLE, TAI_ITEM_TABLE

# ---------------------------------------------------------------- kinds
N_KINDS = 42          # all kinds, flowers included
N_PLAY = 34           # suited + honor kinds (the kinds a hand is built from)
MAN0 = 0
PIN0 = 9
SOU0 = 18
HONOR0 = 27
EAST = 27
SOUTH = 28
WEST = 29
NORTH = 30
WHITE = 31
GREEN = 32
RED = 33
FLOWER0 = 34          # 1f; flowers 34..41 (group A 34..37, group B 38..41)
N_FLOWERS = 8
N_TILES = 144         # physical tiles: 4 x 34 + 8 flowers
NO_KIND = -1

# seats / winds: 0 E, 1 S, 2 W, 3 N (seat winds; the dealer is East)
SEAT_NAMES = ("E", "S", "W", "N")

# ---------------------------------------------------------------- melds
MELD_CHOW = 0         # 3 consecutive ranks, claimed or (in a reading) concealed
MELD_PUNG = 1         # 3 identical
MELD_KONG = 2         # exposed kong (from a discard, or added to a pung)
MELD_CKONG = 3        # concealed kong
MELD_PAIR = 4         # only inside readings
MELD_NAMES = ("chow", "pung", "kong", "ckong")
MAX_MELDS = 4

# ---------------------------------------------------------------- win kinds
WIN_SELF_DRAW = 0
WIN_DISCARD = 1
WIN_ROBBING_KONG = 2
WIN_BY_NAMES = ("self_draw", "discard", "robbing_kong")

# context flags (bit mask)
CTX_AFTER_KONG = 1    # winning tile is a kong or flower replacement
CTX_LAST_TILE = 2     # winning tile is the last drawable tile
CTX_HEAVENLY = 4      # dealer complete before the first discard
CTX_EARTHLY = 8       # see earthly_hand_rule
CONTEXT_NAMES = ("after_kong", "last_tile", "heavenly", "earthly")

# ---------------------------------------------------------------- option codes
WILDS_NONE = 0
WILDS_3BAIDA = 1
WILDS_7BAIDA = 2
WILDS_NAMES = ("none", "3baida", "7baida")

DWW_ALLOW = 0
DWW_FORBID_WILD_PAIR = 1
DWW_FORBID_ANY_WILD_USE = 2
DWW_NAMES = ("allow", "forbid_wild_pair", "forbid_any_wild_use")

EARTHLY_DEALER_FIRST_DISCARD = 0
EARTHLY_FIRST_DRAW = 1
EARTHLY_NAMES = ("dealer_first_discard", "first_draw")

FIRST_ROUND_OFF = 0
FIRST_ROUND_FIRST_HAND = 1
FIRST_ROUND_EVERY_HAND = 2
FIRST_ROUND_NAMES = ("off", "first_hand", "every_hand")

PAY_NINGBO = 0
PAY_NINGBO_5X = 1
PAY_NINGHAI = 2
PAY_NAMES = ("ningbo", "ningbo_5x", "ninghai")

SYSTEM_TAI = 0        # Ningbo tai
SYSTEM_FAN_FU = 1     # Ninghai fan and fu
SYSTEM_NAMES = ("tai", "fan_fu")

# allowed_patterns: bit mask; 0 = any complete hand may win
PAT_FULL_FLUSH = 1
PAT_HALF_FLUSH = 2
PAT_ALL_HONORS = 4
PAT_ALL_PUNGS = 8
PATTERN_NAMES = ("full_flush", "half_flush", "all_honors", "all_pungs")

# points schemes (docs/rules.md §8)
SCHEME_YAO_BAN_SAN = 0
SCHEME_YAO_BAN_LIU = 1
SCHEME_YAO_ER_LIU = 2
SCHEME_TUI_DAO_BA = 3
SCHEME_NAMES = ("yao_ban_san", "yao_ban_liu", "yao_er_liu", "tui_dao_ba")
N_SCHEMES = 4
# per scheme: base B (points before doubling), whether fu is added, cap, and
# whether silver is rounded to 50s (幺半六, 幺二六) or paid 1:1
SCHEME_BASE = (30, 60, 100, 100)
SCHEME_USES_FU = (1, 1, 1, 0)
SCHEME_CAP = (300, 500, 1000, 800)
SCHEME_SILVER_ROUND = (0, 1, 1, 0)

# ---------------------------------------------------------------- tai items
# docs/rules.md §6. The ids and their order are the rows of the item registry
# (``items.TAI_ITEM_TABLE``); the numbers below are their indices there
# (checked at import). A variant's [scoring.tai] maps id -> tai; an id it
# omits does not exist in the variant (stored as TAI_ABSENT).
TAI_ITEMS = tuple(r.id for r in TAI_ITEM_TABLE)
T_SELF_DRAWN = 0
T_CHICKEN_HAND = 1
T_ALL_CHOWS = 2
T_EDGE_WAIT = 3
T_CLOSED_WAIT = 4
T_SINGLE_WAIT = 5
T_DUAL_PUNG_WAIT = 6
T_BIG_SINGLE_WAIT = 7
T_ALL_PUNGS = 8
T_OUT_WITH_REPLACEMENT = 9
T_NO_WILDS = 10
T_THREE_WILDS = 11
T_ROBBING_THE_KONG = 12
T_LAST_TILE_DRAW = 13
T_HEAVENLY_HAND = 14
T_EARTHLY_HAND = 15
T_FULL_FLUSH = 16
T_HALF_FLUSH = 17
T_ALL_HONORS = 18
T_SEAT_FLOWER = 19
T_FLOWER_SET = 20
T_ALL_FLOWERS = 21
T_DRAGON_PUNG = 22
T_SEAT_WIND_PUNG = 23
T_PREVALENT_WIND_PUNG = 24
T_WILD_SINGLE_WAIT = 25
T_WILD_DRAWN = 26
N_TAI = len(TAI_ITEMS)
TAI_ABSENT = -1

# ---------------------------------------------------------------- Ninghai fan
# docs/rules.md §8; ids and order: items.FAN_ITEM_TABLE
FAN_ITEMS = tuple(r.id for r in FAN_ITEM_TABLE)
F_SEAT_FLOWER = 0
F_FLOWER_SET = 1
F_DRAGON_PUNG = 2
F_FULL_FLUSH = 3
F_ALL_HONORS = 4
F_HALF_FLUSH = 5
F_ALL_PUNGS = 6
N_FAN = len(FAN_ITEMS)

# ---------------------------------------------------------------- Ninghai fu
# "terminal" means terminal or honor (幺九), "simple" ranks 2-8
# ids and order: items.FU_ITEM_TABLE
FU_ITEMS = tuple(r.id for r in FU_ITEM_TABLE)
FU_EXPOSED_PUNG_TERMINAL = 0
FU_EXPOSED_PUNG_SIMPLE = 1
FU_CONCEALED_PUNG_TERMINAL = 2
FU_CONCEALED_PUNG_SIMPLE = 3
FU_EXPOSED_KONG_TERMINAL = 4
FU_EXPOSED_KONG_SIMPLE = 5
FU_CONCEALED_KONG_TERMINAL = 6
FU_CONCEALED_KONG_SIMPLE = 7
FU_FLOWER = 8
FU_SELF_DRAWN = 9
FU_CLOSED_WAIT = 10
N_FU = len(FU_ITEMS)

# ---------------------------------------------------------------- rules array
# One flat int64 array holds a whole RuleSet for the kernels. Scalars first,
# then fixed-size blocks at the offsets below.
R_WILDS = 0                     # WILDS_*
R_DICE_THROWS = 1               # 1 (Ningbo) or 2 (Ninghai, source 004)
R_RESERVE_STACKS = 2            # stacks kept back at the end of the wall
R_RESERVE_STACKS_PER_KONG = 3
R_DEALER_KEEPS_ON_DRAW = 4      # 0/1: the dealer keeps the deal when the wall is exhausted
R_ALLOW_CHOW = 5
R_FORBID_CHOW_SWAP = 6
R_NO_KONG_AFTER_PUNG = 7
R_FIRST_ROUND = 8               # FIRST_ROUND_*
R_MIN_TAI = 9
R_SELF_DRAW_ONLY = 10
R_DISCARD_WIN_WILD_RULE = 11    # DWW_*
R_ALLOWED_PATTERNS = 12         # PAT_* mask, 0 = any
R_WAIT_NEEDS_SINGLE_KIND = 13
R_EARTHLY_RULE = 14             # EARTHLY_*
R_THREE_WILDS_SELF_DRAW_ONLY = 15
R_SYSTEM = 16                   # SYSTEM_*
R_PAYMENT_RULE = 17             # PAY_*
R_BASE_POINTS = 18
R_BOUND_DISCARDER_PAYS = 19
R_CAP = 20                      # 0 = no cap
R_FAN_CAP = 21
R_POINTS_SCHEME = 22            # SCHEME_*
R_SILVER_ROUNDING = 23
R_THREE_MELDS_LIABILITY = 24
R_DRAGON_SUCC = 25              # 3 entries: successor kind of White, Green, Red
R_WILD_SINGLE_CAN_ROB = 28      # 0: a player waiting on a wild single (抛搭) may not rob a kong
R_TAI = 30                      # N_TAI entries: tai per item, TAI_ABSENT if absent
R_FAN = R_TAI + N_TAI           # N_FAN entries
R_FU = R_FAN + N_FAN            # N_FU entries
R_SEAT_FLOWERS = R_FU + N_FU    # 4 x 8 entries: [seat * 8 + flower] = 1 if seat flower
R_SCHEME_BASE = R_SEAT_FLOWERS + 32   # N_SCHEMES entries each
R_SCHEME_USES_FU = R_SCHEME_BASE + N_SCHEMES
R_SCHEME_CAP = R_SCHEME_USES_FU + N_SCHEMES
R_SCHEME_SILVER_ROUND = R_SCHEME_CAP + N_SCHEMES
R_LEN = R_SCHEME_SILVER_ROUND + N_SCHEMES

# ---------------------------------------------------------------- error codes
# Kernels return these instead of raising; the wrappers turn them into messages.
OK = 0
E_TILE_COUNT = 1            # concealed tiles + melds do not make 14 (kongs as 3)
E_FIVE_COPIES = 2           # more than 4 tiles of a kind in hand + melds + winning tile + indicator
E_FLOWER_IN_HAND = 3        # a non-wild flower among the concealed tiles
E_WILD_IN_MELD = 4          # a wild tile inside a declared meld
E_CHOW_NOT_ALLOWED = 5      # a chow meld where allow_chow is false
E_INDICATOR_NO_WILDS = 6    # an indicator in a variant without wilds
E_ROB_WILD = 7              # robbing a kong on a wild
E_BAD_FED = 8               # fed counts more melds than the claimed melds shown
E_BAD_SEAT = 9              # discarder/fed seat that is not another seat
E_BAD_HEAVENLY = 10         # heavenly context where it cannot apply
E_BAD_EARTHLY = 11          # earthly context that does not fit earthly_hand_rule
E_BAD_AFTER_KONG = 12       # after_kong on a win that is not self-drawn
E_BAD_FLOWER = 13           # a wild flower or the indicator among set-aside flowers
E_NO_INDICATOR = 14         # a wild variant without an indicator
E_BAD_MELD = 15             # malformed meld
E_BAD_ARG = 16              # an argument out of range (win_by, win tile, counts, context bits)
E_BAD_KONG_FROM = 17        # kong_from without a kong-replacement self-draw or exposed kong
E_BAD_LIABLE = 18           # liable seat where the variant has no three-melds liability
ERROR_NAMES = (
    "ok", "tile_count", "five_copies", "flower_in_hand", "wild_in_meld",
    "chow_not_allowed", "indicator_no_wilds", "rob_wild", "bad_fed",
    "bad_seat", "bad_heavenly", "bad_earthly", "bad_after_kong", "bad_flower",
    "no_indicator", "bad_meld", "bad_arg", "bad_kong_from", "bad_liable",
)

# legal-win decision reasons (why a complete hand is not a legal win)
WHY_LEGAL = 0
WHY_NOT_COMPLETE = 1
WHY_BELOW_MIN_TAI = 2
WHY_PATTERN_NOT_ALLOWED = 3
WHY_WILD_DISCARD_RULE = 4
WHY_SELF_DRAW_ONLY = 5
WHY_WILD_SINGLE_NO_ROB = 6
WHY_THREE_WILDS_SELF_DRAW = 7
WHY_NAMES = (
    "legal", "not_complete", "below_min_tai", "pattern_not_allowed",
    "wild_discard_rule", "self_draw_only", "wild_single_cannot_rob",
    "three_wilds_self_draw_only",
)

# ---------------------------------------------------------------- meld arrays
# A player's declared melds: int8[MAX_MELDS, 3] rows (type MELD_*, kind, from
# seat). kind is the lowest tile of a chow, the tile of a pung/kong; from seat
# is the absolute seat (0-3) whose discard was claimed, -1 for a concealed
# kong, the player's own seat for an added kong made from its own pung's
# source (the pung's source seat is kept).
MELD_TYPE = 0
MELD_KIND = 1
MELD_FROM = 2

# ---------------------------------------------------------------- score result
# score.score_win fills an int64[RES_LEN] result array. Tai, fan, fu and points are
# in their own units; the items are those of the counted reading (docs/rules.md
# §6 and §8, the reading choice and its tie-breaks in §10.3 and §10.4).
RES_ERROR = 0          # E_* code (OK = 0); nothing else is valid when non-zero
RES_COMPLETE = 1       # 1 if the 14 tiles form 4 melds + pair (with wilds)
RES_WIN = 2            # 1 if a legal win under every rule of the variant
RES_WHY = 3            # WHY_* reason (WHY_LEGAL when RES_WIN)
RES_TAI = 4            # total tai of the counted reading (three_wilds included)
RES_TAI_FOR_MIN = 5    # tai of the counted reading without three_wilds
RES_FAN = 6            # Ninghai fan (capped)
RES_FU = 7             # Ninghai fu
RES_POINTS = 8         # N_SCHEMES entries: Ninghai points per scheme
RES_SILVER = 12        # silver each payer owes under the config's points_scheme
RES_PAY = 13           # 4 entries: net points per seat (E S W N), zero-sum
RES_WILDS = 17         # wild tiles among the winner's 14 concealed tiles
RES_ITEMS = 18         # N_TAI entries: tai per item of the counted reading
RES_PRESENT = RES_ITEMS + N_TAI     # bit mask: bit t set when item t of TAI_ITEMS applies
                                    # in the counted reading, 0-tai items included (tai
                                    # systems; 0 for Ninghai and incomplete hands)
RES_FAN_ITEMS = RES_PRESENT + 1     # N_FAN entries: Ninghai fan per item of FAN_ITEMS of the
                                    # counted reading, before the fan cap (RES_FAN is the
                                    # capped total: min(sum, fan_cap))
RES_FU_ITEMS = RES_FAN_ITEMS + N_FAN    # N_FU entries: Ninghai fu per item of FU_ITEMS of
                                        # the counted reading (they add up to RES_FU)
RES_LEN = RES_FU_ITEMS + N_FU

# Ninghai fu of a pung or kong: its item of FU_ITEMS is
# SET_FU_KONG * kong + SET_FU_CONCEALED * concealed + SET_FU_SIMPLE * (not terminal)
SET_FU_KONG = 4
SET_FU_CONCEALED = 2
SET_FU_SIMPLE = 1
N_FU_SETS = 8         # the set items FU_EXPOSED_PUNG_TERMINAL .. FU_CONCEALED_KONG_SIMPLE

# ---------------------------------------------------------------- game events
# The engine's event log: int32[n, EV_LEN] rows, one per action, in order.
A_DICE = 0            # tile = die value (one row per die, in throw order)
A_INDICATOR = 1       # tile = indicator kind, pos = wall position
A_DEAL = 2            # seat receives tile from wall position pos
A_FLOWER = 3          # seat sets a flower aside (tile)
A_DRAW = 4            # seat draws tile from the live end (pos)
A_REPLACE = 5         # seat draws a replacement tile from the tail end (pos)
A_DISCARD = 6         # seat discards tile
A_CHOW = 7            # seat chows tile from `from`; meld = lowest kind of the chow
A_PUNG = 8            # seat pungs tile from `from`
A_KONG = 9            # seat makes an exposed kong of tile discarded by `from`
A_ADDED_KONG = 10     # seat adds tile to its exposed pung
A_CONCEALED_KONG = 11 # seat declares a concealed kong of tile
A_WIN = 12            # seat wins on tile; meld = win_by (WIN_*); from = discarder/robbed or -1
A_EXHAUSTED = 13      # the wall is exhausted: no winner
A_PASS_WIN = 14       # seat declines a legal win on tile (policy choice); meld = win_by
ACTION_NAMES = ("dice", "indicator", "deal", "flower", "draw", "replace", "discard",
                "chow", "pung", "kong", "added_kong", "concealed_kong", "win",
                "exhausted", "pass_win")
EV_SEAT = 0
EV_ACTION = 1
EV_TILE = 2
EV_MELD = 3
EV_FROM = 4
EV_POS = 5
EV_LEN = 6

# deal outcomes (game mode)
OUT_SELF_DRAWN = 0
OUT_DISCARD = 1
OUT_ROBBING_KONG = 2
OUT_WALL_EXHAUSTED = 3
OUTCOME_NAMES = ("self_drawn", "discard", "robbing_kong", "wall_exhausted")

# ---------------------------------------------------------------- shanten
SHANTEN_INVALID = 99   # hand.shanten: tile total or a count out of range

# every item number is its row's index in the registry
for _table in (TAI_ITEM_TABLE, FAN_ITEM_TABLE, FU_ITEM_TABLE):
    for _i, _row in enumerate(_table):
        assert globals()[_row.const] == _i, (_row.const, _i)
del _table, _i, _row
