"""Reading the opponents (Numba): the ``defend`` policy's defence, one small
function per question, from the deciding seat's public ``View`` only.

* ``ready_chance(view, o)``: how likely seat ``o`` is ready (waiting), from
  its melds, its number of discards and whether it has been discarding the
  tile it just drew (a ready hand keeps its shape).
* ``win_worth(view, o)``: what ``o`` would score, in tai (Ningbo; at least the
  minimum, plus what shows: a one-suit pattern, dragon and wind pungs, its seat
  flowers) or in points (Ninghai, from the fan that shows).
* ``wait_chance(view, o, k)``: how likely a ready ``o`` waits on kind ``k``.
  Ningbo has no rule that makes an earlier discard of ``o`` safe, so such a
  kind is safer, not safe; a kind ``o`` let go by since its own last
  discard is safe while players take every legal win; a kind whose copies
  are all visible cannot be waited on as a pair or pung; a seat showing a
  one-suit pattern waits in that suit or in honors.
* ``legal_chance(view, o)``: how likely a completed hand of ``o`` is a legal
  win on a discard (the minimum tai, allowed patterns, self-drawn only).
* ``deal_in_cost(view, o, worth)``: what dealing ``o`` its win costs beyond
  what its win would cost anyway, from the variant's payment rule (RULES.md
  sections 7 and 8): Ningbo 2T, a bound discarder 4T or 5T; nothing in
  7-baida (no discard wins); Ninghai: only its three-melds liability.
* ``feed_cost(view, o, k)``: what a claim of ``k`` by ``o`` would cost: a
  third meld from the same discarder binds it (三包: 5T on a self-drawn win);
  an exposed kong makes the discarder pay for a win on the replacement.
* ``fill_danger(view, scr)``: the expected cost in points of discarding each
  kind, summed over the opponents (ready x wait x legal x cost, plus the
  claim costs), into ``scr.danger``.

All figures are estimates from simple models; the weights are the
``defend`` parameters (``table.POLICY_TABLE``) or the constants below,
which duels chose (``make ladder``).
"""
import math

from numba import njit

from nbsim.kernels import codes as C
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies.common import suit_of
from nbsim.kernels.policies.view import POND_DRAWN, concealed_count, unseen

# The constants below were measured on 2,000 ningbo-3baida deals of value
# self-play (every discard, each opponent's true shanten and whether the
# discard was won on; benchmarks/calibrate_threat.py reproduces them).

# ready_chance: logistic in the seat's melds, discards and recent drawn-tile
# discards (fitted: -4.06 + 0.75 melds + 0.185 discards + 0.27 recent)
READY_BIAS = -4.06
READY_PER_MELD = 0.75
READY_PER_DISCARD = 0.185
READY_PER_DRAWN_DISCARD = 0.27
READY_FLOOR = 0.03       # below this no threat shows (the chance counts as 0)

# wait_chance: the chance that a ready hand is completed by a given kind
# (measured 0.105 on average), by the kind's rank, unseen copies, the seat's
# own discards and its suit pattern
WAIT_BASE = 0.105
WAIT_TERMINAL = 0.75     # ranks 1 and 9
WAIT_NEAR_TERMINAL = 1.05   # ranks 2 and 8
WAIT_MIDDLE = 1.35       # ranks 3-7
WAIT_HONOR = 0.45
WAIT_BY_UNSEEN = (0.7, 0.78, 1.0, 1.45)
WAIT_IN_POND = 0.05      # discarded by the seat itself: measured 30x safer (a tile it
                         # drew and could not win on stays unwinnable for it)
WAIT_OFF_SUIT = 0.75     # a suit outside a seat's one-suit pattern
WAIT_ON_SUIT = 1.5
WAIT_HONOR_ON_PATTERN = 1.3

# legal_chance: a completed hand is a legal discard win (measured 0.19 on
# average in ningbo-3baida): logistic in the tai that shows minus the minimum
LEGAL_BIAS = -0.9
LEGAL_PER_TAI = 1.0
LEGAL_PATTERN_SHOWN = 0.6    # allowed_patterns: the pattern shows
LEGAL_PATTERN_HIDDEN = 0.08


@nrt_free
def ready_chance(view, o):
    """P(seat ``o`` is ready), 0 below READY_FLOOR. Float in [0, 1]."""
    n = view.n_pond[o]
    recent = 0
    for i in range(max(0, n - 2), n):
        if view.pond_flags[o, i] & POND_DRAWN:
            recent += 1
    x = (READY_BIAS + READY_PER_MELD * view.n_melds[o] + READY_PER_DISCARD * n
         + READY_PER_DRAWN_DISCARD * recent)
    p = 1.0 / (1.0 + math.exp(-x))
    return p if p >= READY_FLOOR else 0.0


@nrt_free
def suit_pattern(view, o):
    """The one suit seat ``o``'s exposed melds point to: 0 m, 1 p, 2 s when
    two or more melds are of that suit and the rest honors; 3 when all are
    honors (an all-honors or honors-heavy hand); -1 otherwise."""
    suit = -1
    n_suited = 0
    n_honor = 0
    for i in range(view.n_melds[o]):
        k = view.melds[o, i, C.MELD_KIND]
        if k < 0:
            continue            # a concealed kong, face down
        s = suit_of(k)
        if s == 3:
            n_honor += 1
        elif suit < 0 or suit == s:
            suit = s
            n_suited += 1
        else:
            return -1
    if n_suited >= 2 or (n_suited == 1 and n_honor >= 1):
        return suit
    if n_honor >= 2 and n_suited == 0:
        return 3
    return -1


@nrt_free
def _tai(view, item):
    v = view.rules[C.R_TAI + item]
    return 0.0 if v < 0 else float(v)


@nrt_free
def shown(view, o):
    """(tai, fan) that seat ``o``'s table shows: a one-suit pattern (half
    flush), dragon and wind pungs, three pungs (all pungs), its seat flowers."""
    rules = view.rules
    tai = 0.0
    fan = 0
    pat = suit_pattern(view, o)
    if pat >= 0 and pat < 3:
        tai += _tai(view, C.T_HALF_FLUSH)
        fan += rules[C.R_FAN + C.F_HALF_FLUSH]
    n_pung = 0
    for i in range(view.n_melds[o]):
        t = view.melds[o, i, C.MELD_TYPE]
        k = view.melds[o, i, C.MELD_KIND]
        if t == C.MELD_CHOW:
            continue
        n_pung += 1
        if k >= C.WHITE:
            tai += _tai(view, C.T_DRAGON_PUNG)
            fan += rules[C.R_FAN + C.F_DRAGON_PUNG]
        elif k >= C.EAST:
            if k - C.EAST == o:
                tai += _tai(view, C.T_SEAT_WIND_PUNG)
            if k - C.EAST == view.round_wind:
                tai += _tai(view, C.T_PREVALENT_WIND_PUNG)
    if n_pung >= 3:
        tai += _tai(view, C.T_ALL_PUNGS)
    for f in range(C.N_FLOWERS):
        if view.flowers[o] & (1 << f) and rules[C.R_SEAT_FLOWERS + o * 8 + f]:
            tai += _tai(view, C.T_SEAT_FLOWER)
            fan += rules[C.R_FAN + C.F_SEAT_FLOWER]
    return tai, fan


@nrt_free
def win_worth(view, o):
    """What seat ``o``'s win would pay per payer unit: T = tai + base points
    (Ningbo; tai at least the minimum, plus what shows), or the silver of a
    typical win with the fan that shows (Ninghai). Float."""
    rules = view.rules
    tai, fan = shown(view, o)
    if rules[C.R_SYSTEM] == C.SYSTEM_FAN_FU:
        cap = rules[C.R_FAN_CAP]
        if fan > cap:
            fan = cap
        base = rules[C.R_SCHEME_BASE + rules[C.R_POINTS_SCHEME]]
        pts = (base + 24.0) * (2.0 ** fan)
        top = float(rules[C.R_SCHEME_CAP + rules[C.R_POINTS_SCHEME]])
        return pts if pts < top else top
    tai += 1.5
    if tai < rules[C.R_MIN_TAI]:
        tai = float(rules[C.R_MIN_TAI])
    return tai + rules[C.R_BASE_POINTS]


@nrt_free
def legal_chance(view, o):
    """P(a completed hand of seat ``o`` is a legal win on a discard): 0 where
    wins are self-drawn only; with ``allowed_patterns``, whether a pattern
    shows; with a tai minimum, a logistic in the tai that shows minus the
    minimum (RULES.md section 5). Float."""
    rules = view.rules
    if rules[C.R_SELF_DRAW_ONLY]:
        return 0.0
    tai, fan = shown(view, o)
    p = 1.0
    if rules[C.R_ALLOWED_PATTERNS] != 0:
        p = LEGAL_PATTERN_SHOWN if suit_pattern(view, o) >= 0 else LEGAL_PATTERN_HIDDEN
    if rules[C.R_SYSTEM] == C.SYSTEM_TAI and rules[C.R_MIN_TAI] > 0:
        x = LEGAL_BIAS + LEGAL_PER_TAI * (tai - rules[C.R_MIN_TAI] + 2.0)
        p *= 1.0 / (1.0 + math.exp(-x))
    return p


@nrt_free
def wait_chance(view, o, k):
    """P(kind ``k`` (0..33) completes a ready seat ``o``'s hand). Float."""
    if view.passed[o, k]:
        return 0.0               # it could have won on k and did not
    u = unseen(view, k)
    if k >= C.HONOR0:
        # only a pair or pung wait: needs a copy in o's hand
        if u == 0:
            return 0.0
        p = WAIT_BASE * WAIT_HONOR * (1.0 if u >= 2 else 0.6)
    else:
        r = k % 9
        if r == 0 or r == 8:
            p = WAIT_BASE * WAIT_TERMINAL
        elif r == 1 or r == 7:
            p = WAIT_BASE * WAIT_NEAR_TERMINAL
        else:
            p = WAIT_BASE * WAIT_MIDDLE
        p *= WAIT_BY_UNSEEN[u if u < 4 else 3]
    for i in range(view.n_pond[o]):
        if view.pond[o, i] == k:
            p *= WAIT_IN_POND
            break
    pat = suit_pattern(view, o)
    if pat >= 0:
        s = suit_of(k)
        if s == pat:
            p *= WAIT_ON_SUIT
        elif s == 3:
            p *= WAIT_HONOR_ON_PATTERN
        else:
            p *= WAIT_OFF_SUIT
    return p


@nrt_free
def deal_in_cost(view, o, worth):
    """Points lost by dealing seat ``o`` its win, beyond what its win would
    cost the deciding seat anyway (RULES.md sections 7, 8). Float >= 0."""
    rules = view.rules
    me = view.seat
    rule = rules[C.R_PAYMENT_RULE]
    if rules[C.R_SELF_DRAW_ONLY]:
        return 0.0
    bound = view.fed[o, me] >= 3
    mutual = bound and view.fed[me, o] >= 3
    if rule == C.PAY_NINGHAI:
        # every loser pays the same; the liable discarder pays all three shares
        return 2.0 * worth if _liability_shows(view, o) else 0.0
    if rule == C.PAY_NINGBO:
        cost = 2.0 * worth
        if bound:
            cost = rules[C.R_BOUND_DISCARDER_PAYS] * worth + (2.0 * worth if mutual else 0.0)
        anyway = 0.45 * (5.0 * worth if bound else worth)
    else:
        cost = 4.0 * worth if bound else 2.0 * worth
        anyway = 0.45 * (5.0 * worth if bound else worth)
    c = cost - anyway
    return c if c > 0.0 else 0.0


@nrt_free
def _liability_shows(view, o):
    """Ninghai: seat ``o`` shows three exposed melds (the liability rule may apply)."""
    if not view.rules[C.R_THREE_MELDS_LIABILITY]:
        return False
    n = 0
    for i in range(view.n_melds[o]):
        if view.melds[o, i, C.MELD_TYPE] != C.MELD_CKONG:
            n += 1
    return n >= 3


@nrt_free
def hidden_total(view):
    """Tiles the deciding seat cannot see (the others' concealed tiles and
    the wall), from its view. Int >= 1."""
    t = 0
    for k in range(C.N_PLAY):
        t += unseen(view, k)
    return t if t > 0 else 1


@nrt_free
def claim_chance(view, o, k, hidden):
    """Rough P(seat ``o`` can and will claim a discard of kind ``k`` (0..33)
    for a meld): a pair of ``k`` among its concealed tiles (pung), or the two
    neighbours of a chow when it is the next seat and chows are allowed."""
    c = concealed_count(view, o)
    f = c / hidden
    u = unseen(view, k)
    p = 0.0
    if u >= 2:
        q = f * u
        p += 0.5 * q * q * 0.5
    if (view.rules[C.R_ALLOW_CHOW] and k < C.HONOR0 and o == (view.seat + 1) % 4):
        r = k % 9
        for j in range(3):
            lo = r - j
            if lo < 0 or lo + 2 > 8:
                continue
            a = 1.0
            for t in range(3):
                if t != j:
                    a *= f * unseen(view, k - j + t)
            p += 0.5 * a
    return p if p < 1.0 else 1.0


@nrt_free
def feed_cost(view, o, k, hidden, worth, ready):
    """Expected points a discard of ``k`` costs through a claim by ``o``:
    becoming bound (a third meld from the deciding seat's discards: RULES.md
    section 7) and feeding an exposed kong whose replacement may win."""
    rules = view.rules
    me = view.seat
    rule = rules[C.R_PAYMENT_RULE]
    if rule == C.PAY_NINGHAI:
        return 0.0
    cost = 0.0
    if view.fed[o, me] == 2:
        # o's later win: a bound player pays 5T on a self-draw (instead of T
        # or nothing), 2T on another's discard (ningbo) or 4T if it discards
        p_win = 0.35 + 0.3 * ready
        cost += claim_chance(view, o, k, hidden) * p_win * 2.5 * worth
    u = unseen(view, k)
    if u >= 3 and k < C.N_PLAY:
        f = concealed_count(view, o) / hidden
        q = f * u
        p3 = q * q * q / 6.0
        cost += p3 * ready * 0.15 * 5.0 * worth
    return cost


@nrt_free
def fill_danger(view, scr, feed_weight):
    """scr.danger[k] (k in 0..41): expected points lost by discarding kind k,
    over the three opponents: P(ready) x P(waits on k) x deal-in cost, plus
    ``feed_weight`` x the claim costs. scr.threat[o] and scr.worth[o] are
    left with each seat's ready chance and worth. Returns the largest ready
    chance (0 when no threat shows)."""
    me = view.seat
    for k in range(C.N_KINDS):
        scr.danger[k] = 0.0
    hidden = hidden_total(view)
    top = 0.0
    n_wild_ready = 0.0
    for d in range(1, 4):
        o = (me + d) % 4
        ready = ready_chance(view, o)
        worth = win_worth(view, o)
        scr.threat[o] = ready
        scr.worth[o] = worth
        if ready > top:
            top = ready
        cost = deal_in_cost(view, o, worth) * legal_chance(view, o)
        n_wild_ready += ready * cost
        for k in range(C.N_PLAY):
            if view.hand[k] == 0 or view.wild[k]:
                continue
            dk = 0.0
            if ready > 0.0 and cost > 0.0:
                dk = ready * wait_chance(view, o, k) * cost
            if feed_weight > 0.0:
                dk += feed_weight * feed_cost(view, o, k, hidden, worth, ready)
            scr.danger[k] += dk
    # a discarded wild completes any ready hand
    for k in range(C.N_KINDS):
        if view.wild[k] and view.hand[k] > 0:
            scr.danger[k] = 0.9 * n_wild_ready
    scr.threat[me] = 0.0
    scr.worth[me] = 0.0
    return top


@njit(cache=True, inline="always")
def caution_weight(caution):
    """The weight of danger against hand value for a ``caution`` in [0, 1]:
    0 at 0 (no defence), 1 at 0.5 (the models' expected values as they are),
    growing without bound toward 1 (fold whenever a threat shows)."""
    if caution <= 0.0:
        return 0.0
    if caution >= 1.0:
        return 1e6
    return caution / (1.0 - caution)
