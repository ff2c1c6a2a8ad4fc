"""Reading the opponents (Numba): the ``defend`` policy's defence, one small
function per question, from the deciding seat's public ``View`` only.

* ``ready_chance(n_melds, n_discards, pond_flags)``: how likely seat ``o`` is ready (waiting), from
  its melds, its number of discards and whether it has been discarding the
  tile it just drew (a ready hand keeps its shape).
* ``shown`` / ``win_worth``: what ``o`` would score, in tai (Ningbo; at least the
  minimum, plus what shows: a one-suit pattern, dragon and wind pungs, its seat
  flowers) or in points (Ninghai, from the fan that shows).
* ``wait_prior(k, unseen)`` x ``wait_by_seat(p, k, pattern, in_pond)``: how likely a
  ready ``o`` waits on kind ``k``.
  Ningbo has no rule that makes an earlier discard of ``o`` safe, so such a
  kind is safer, not safe; a kind ``o`` let go by since its own last
  discard is safe while players take every legal win; a kind whose copies
  are all visible cannot be waited on as a pair or pung; a seat showing a
  one-suit pattern waits in that suit or in honors.
* ``legal_chance(rules, tai, pattern)``: how likely a completed hand of ``o`` is a legal
  win on a discard (the minimum tai, allowed patterns, self-drawn only).
* ``deal_in_cost(rules, bound, mutual, worth, liable)``: what dealing ``o`` its win costs beyond
  what its win would cost anyway, from the variant's payment rule (docs/rules.md
  §7 and §8): Ningbo 2T, a bound discarder 4T or 5T; nothing in
  7-baida (no discard wins); Ninghai: only its three-melds liability.
* ``bind_feed_cost(...)`` / ``kong_feed_cost(...)``: what a claim of ``k``
  by ``o`` would cost: a third meld from the same discarder binds it (三包:
  5T on a self-drawn win); an exposed kong makes the discarder pay for a win
  on the replacement.
* ``fill_danger(view, scr, with_feed, kinds, n_kinds)``: the expected cost in
  points of discarding each of the listed kinds, summed over the opponents
  (ready x wait x legal x cost, plus the claim costs), into ``scr.danger``.

Only ``fill_danger`` takes the whole view (and is inlined into its caller,
so the view is not passed again): the helpers it calls per seat and per
kind take just the arrays they read (a view passed by value to a function
called in an inner loop costs more than the work).
All figures are estimates from simple models; the weights are the
``defend`` parameters (``table.POLICY_TABLE``) or the constants below,
which duels chose (``make ladder``).
"""
import math

import numpy as np

from nbsim.kernels import codes as C
from nbsim.kernels.jit import njit, nrt_free
from nbsim.kernels.policies.common import suit_of
from nbsim.kernels.policies.view import POND_DRAWN, fill_unseen

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

# wait_prior, wait_by_seat: the chance that a ready hand is completed by a given kind
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

# caution_weight(caution) = CAUTION_SCALE x caution / (1 - caution)
CAUTION_SCALE = 0.25


@nrt_free(kernel_only=True)
def ready_chance(n_melds, n_discards, pond_flags):
    """P(a seat with ``n_melds`` declared melds and ``n_discards`` discards
    (flags ``pond_flags``, int8[MAX_POND], of its pond row) is ready), 0 below
    READY_FLOOR. Float in [0, 1]."""
    recent = 0
    for i in range(max(0, n_discards - 2), n_discards):
        if pond_flags[i] & POND_DRAWN:
            recent += 1
    x = (READY_BIAS + READY_PER_MELD * n_melds + READY_PER_DISCARD * n_discards
         + READY_PER_DRAWN_DISCARD * recent)
    p = 1.0 / (1.0 + math.exp(-x))
    return p if p >= READY_FLOOR else 0.0


@nrt_free(kernel_only=True)
def suit_pattern(melds, n_melds):
    """The one suit a seat's exposed melds (``melds`` int8[4, 3] as the table
    shows them) point to: 0 m, 1 p, 2 s when two or more melds are of that
    suit and the rest honors; 3 when two or more are honors and none suited;
    -1 otherwise."""
    suit = -1
    n_suited = 0
    n_honor = 0
    for i in range(n_melds):
        k = melds[i, C.MELD_KIND]
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


@njit(cache=True, inline="always")
def _tai(rules, item):
    v = rules[C.R_TAI + item]
    return 0.0 if v < 0 else float(v)


@nrt_free
def shown(rules, melds, n_melds, flowers, seat, round_wind, pat):
    """(tai, fan) that seat ``seat``'s table shows (its ``melds`` int8[4, 3],
    ``flowers`` bit mask and ``suit_pattern`` ``pat``): a one-suit pattern
    (half flush), dragon and wind pungs, three pungs (all pungs), its seat
    flowers (docs/rules.md §6 and §8)."""
    tai = 0.0
    fan = 0
    if pat >= 0 and pat < 3:
        tai += _tai(rules, C.T_HALF_FLUSH)
        fan += rules[C.R_FAN + C.F_HALF_FLUSH]
    n_pung = 0
    for i in range(n_melds):
        t = melds[i, C.MELD_TYPE]
        k = melds[i, C.MELD_KIND]
        if t == C.MELD_CHOW:
            continue
        n_pung += 1
        if k >= C.WHITE:
            tai += _tai(rules, C.T_DRAGON_PUNG)
            fan += rules[C.R_FAN + C.F_DRAGON_PUNG]
        elif k >= C.EAST:
            if k - C.EAST == seat:
                tai += _tai(rules, C.T_SEAT_WIND_PUNG)
            if k - C.EAST == round_wind:
                tai += _tai(rules, C.T_PREVALENT_WIND_PUNG)
    if n_pung >= 3:
        tai += _tai(rules, C.T_ALL_PUNGS)
    for f in range(C.N_FLOWERS):
        if flowers & (1 << f) and rules[C.R_SEAT_FLOWERS + seat * 8 + f]:
            tai += _tai(rules, C.T_SEAT_FLOWER)
            fan += rules[C.R_FAN + C.F_SEAT_FLOWER]
    return tai, fan


@nrt_free(kernel_only=True)
def win_worth(rules, tai, fan):
    """What a win showing ``tai`` (Ningbo) or ``fan`` (Ninghai) would pay per
    payer unit: T = tai + base points (tai at least the minimum, plus 1.5 for
    what does not show), or the silver of a typical win with that fan. Float."""
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


@nrt_free(kernel_only=True)
def legal_chance(rules, tai, pat):
    """P(a completed hand that shows ``tai`` and ``suit_pattern`` ``pat`` is a
    legal win on a discard): 0 where wins are self-drawn only; with
    ``allowed_patterns``, whether a pattern shows; with a tai minimum, a
    logistic in the tai that shows minus the minimum (docs/rules.md
    §5). Float."""
    if rules[C.R_SELF_DRAW_ONLY]:
        return 0.0
    p = 1.0
    if rules[C.R_ALLOWED_PATTERNS] != 0:
        p = LEGAL_PATTERN_SHOWN if pat >= 0 else LEGAL_PATTERN_HIDDEN
    if rules[C.R_SYSTEM] == C.SYSTEM_TAI and rules[C.R_MIN_TAI] > 0:
        x = LEGAL_BIAS + LEGAL_PER_TAI * (tai - rules[C.R_MIN_TAI] + 2.0)
        p *= 1.0 / (1.0 + math.exp(-x))
    return p


@nrt_free(inline="always")
def wait_prior(k, u):
    """How likely a ready seat waits on kind ``k`` (0..33), the part that is
    the same for every seat: by the kind's rank and its unseen copies ``u``
    (an honor only as a pair or pung, so never with no copy unseen). Float;
    ``wait_by_seat`` finishes it."""
    if k >= C.HONOR0:
        # only a pair or pung wait: needs a copy in o's hand
        if u == 0:
            return 0.0
        return WAIT_BASE * WAIT_HONOR * (1.0 if u >= 2 else 0.6)
    r = k % 9
    if r == 0 or r == 8:
        p = WAIT_BASE * WAIT_TERMINAL
    elif r == 1 or r == 7:
        p = WAIT_BASE * WAIT_NEAR_TERMINAL
    else:
        p = WAIT_BASE * WAIT_MIDDLE
    return p * WAIT_BY_UNSEEN[u if u < 4 else 3]


@nrt_free(inline="always")
def wait_by_seat(p, k, pat, in_pond):
    """P(kind ``k`` completes a ready seat's hand) from its ``wait_prior``
    ``p``: whether the seat discarded ``k`` itself (``in_pond``) and its
    ``suit_pattern`` ``pat``; a kind it let go by is handled by the caller
    (it is safe). Float."""
    if in_pond:
        p *= WAIT_IN_POND
    if pat >= 0:
        s = suit_of(k)
        if s == pat:
            p *= WAIT_ON_SUIT
        elif s == 3:
            p *= WAIT_HONOR_ON_PATTERN
        else:
            p *= WAIT_OFF_SUIT
    return p


@nrt_free(kernel_only=True)
def deal_in_cost(rules, bound, mutual, worth, liable_shows):
    """Points lost by dealing a seat its win, beyond what its win would cost
    the deciding seat anyway (docs/rules.md §7 and §8): ``bound``: the
    seat claimed 3+ melds from the decider's discards, ``mutual``: both
    ways; ``liable_shows``: Ninghai three-melds liability may apply. Float >= 0."""
    if rules[C.R_SELF_DRAW_ONLY]:
        return 0.0
    rule = rules[C.R_PAYMENT_RULE]
    if rule == C.PAY_NINGHAI:
        # every loser pays the same; the liable discarder pays all three shares
        return 2.0 * worth if liable_shows else 0.0
    if rule == C.PAY_NINGBO:
        cost = 2.0 * worth
        if bound:
            cost = rules[C.R_BOUND_DISCARDER_PAYS] * worth + (2.0 * worth if mutual else 0.0)
    else:
        cost = 4.0 * worth if bound else 2.0 * worth
    anyway = 0.45 * (5.0 * worth if bound else worth)
    c = cost - anyway
    return c if c > 0.0 else 0.0


@nrt_free(kernel_only=True)
def _exposed_melds(melds, n_melds):
    n = 0
    for i in range(n_melds):
        if melds[i, C.MELD_TYPE] != C.MELD_CKONG:
            n += 1
    return n


@nrt_free(kernel_only=True)
def claim_chance(rules, concealed, is_next, k, unseen, hidden):
    """Rough P(a seat with ``concealed`` concealed tiles can and will claim a
    discard of kind ``k`` (0..33) for a meld): a pair of ``k`` in its hand
    (pung), or the two neighbours of a chow when it is the next seat
    (``is_next``) and chows are allowed. unseen: int64[42]
    (``view.fill_unseen``); hidden: their total."""
    f = concealed / hidden
    u = unseen[k]
    p = 0.0
    if u >= 2:
        q = f * u
        p += 0.5 * q * q * 0.5
    if rules[C.R_ALLOW_CHOW] and k < C.HONOR0 and is_next:
        r = k % 9
        for j in range(3):
            lo = r - j
            if lo < 0 or lo + 2 > 8:
                continue
            a = 1.0
            for t in range(3):
                if t != j:
                    a *= f * unseen[k - j + t]
            p += 0.5 * a
    return p if p < 1.0 else 1.0


@nrt_free(inline="always")
def kong_feed_cost(share, u, worth, ready):
    """Expected points a discard of a kind with ``u`` >= 3 unseen copies
    costs by feeding an exposed kong whose replacement may win, to a seat
    with ready chance ``ready`` and win worth ``worth``; ``share``: its
    concealed tiles over the unseen total (``claim_chance``'s f). It depends
    on the kind only through ``u``, so ``fill_danger`` works it out once per
    seat for u = 3 and 4."""
    q = share * u
    return q * q * q / 6.0 * ready * 0.15 * 5.0 * worth


@nrt_free(inline="always")
def bind_feed_cost(rules, concealed, is_next, k, unseen, hidden, worth, p_win):
    """Expected points a discard of ``k`` costs through a claim that makes a
    seat with two melds from the decider's discards bound (its third:
    docs/rules.md §7): its later win (chance ``p_win`` = 0.35 + 0.3 x
    its ready chance) costs a bound player 5T on a self-draw (instead of T
    or nothing), 2T on another's discard (ningbo) or 4T if it discards."""
    return claim_chance(rules, concealed, is_next, k, unseen, hidden) * p_win * 2.5 * worth


@nrt_free(inline="always")
def fill_danger(view, scr, with_feed, kinds, n_kinds):
    """Expected points lost by discarding each held kind k in ``kinds[:n_kinds]``
    (int64, kinds 0..41), over the three opponents: ``scr.danger[k]`` by
    dealing in (P(ready) x P(k completes) x P(legal) x the deal-in cost)
    and, with ``with_feed``, ``scr.feed[k]`` by feeding a claim (a binding
    third meld: ``bind_feed_cost``, a kong: ``kong_feed_cost``; none under
    Ninghai payments); 0 for the other kinds. Fills ``scr.unseen``
    (``view.fill_unseen``); scr.threat[o] and scr.worth[o] are left with
    each seat's ready chance and worth; uses ``scr.work`` as scratch.
    Returns the largest ready chance (0 when no threat shows)."""
    me = view.seat
    rules = view.rules
    wild = view.wild
    unseen = scr.unseen
    danger_k = scr.danger
    feed_k = scr.feed
    prior = scr.work        # [k]: wait_prior of each natural kind held
    for k in range(C.N_KINDS):
        danger_k[k] = 0.0
        feed_k[k] = 0.0
    hidden = fill_unseen(view, unseen)
    for i in range(n_kinds):
        k = kinds[i]
        if not wild[k]:
            prior[k] = wait_prior(k, unseen[k])
    top = 0.0
    n_wild_ready = 0.0
    ninghai = rules[C.R_PAYMENT_RULE] == C.PAY_NINGHAI
    for d in range(1, 4):
        o = (me + d) % 4
        melds = view.melds[o]
        n_melds = view.n_melds[o]
        ready = ready_chance(n_melds, view.n_pond[o], view.pond_flags[o])
        pat = suit_pattern(melds, n_melds)
        tai, fan = shown(rules, melds, n_melds, view.flowers[o], o, view.round_wind, pat)
        worth = win_worth(rules, tai, fan)
        scr.threat[o] = ready
        scr.worth[o] = worth
        if ready > top:
            top = ready
        bound = view.fed[o, me] >= 3
        liable = (rules[C.R_THREE_MELDS_LIABILITY] != 0
                  and _exposed_melds(melds, n_melds) >= 3)
        cost = (deal_in_cost(rules, bound, bound and view.fed[me, o] >= 3, worth, liable)
                * legal_chance(rules, tai, pat))
        n_wild_ready += ready * cost
        danger = ready > 0.0 and cost > 0.0
        fed_to_me = view.fed[o, me]
        # the feed costs are 0 for a seat that is not one meld short of
        # being bound and shows no threat (and always under Ninghai payments)
        feeds = with_feed and not ninghai and (fed_to_me == 2 or ready > 0.0)
        if not danger and not feeds:
            continue
        in_pond = np.int64(0)       # bit k: o has discarded kind k
        for i in range(view.n_pond[o]):
            in_pond |= np.int64(1) << view.pond[o, i]
        rc = ready * cost
        concealed = 13 - 3 * n_melds
        is_next = o == (me + 1) % 4
        binds = fed_to_me == 2
        p_win = 0.35 + 0.3 * ready
        share = concealed / hidden
        kong3 = kong_feed_cost(share, 3, worth, ready)
        kong4 = kong_feed_cost(share, 4, worth, ready)
        for i in range(n_kinds):
            k = kinds[i]
            if wild[k]:
                continue
            if danger and not view.passed[o, k]:
                danger_k[k] += rc * wait_by_seat(prior[k], k, pat, (in_pond >> k) & 1 != 0)
            if feeds:
                c = 0.0
                if binds:
                    c = bind_feed_cost(rules, concealed, is_next, k, unseen, hidden, worth,
                                       p_win)
                u = unseen[k]
                if u >= 3 and k < C.N_PLAY:
                    c += kong4 if u >= 4 else kong3
                feed_k[k] += c
    # a discarded wild completes any ready hand
    for i in range(n_kinds):
        k = kinds[i]
        if wild[k]:
            danger_k[k] = 0.9 * n_wild_ready
    scr.threat[me] = 0.0
    scr.worth[me] = 0.0
    return top


@njit(cache=True, inline="always")
def caution_weight(caution):
    """The weight of danger against hand value for a ``caution`` in [0, 1]:
    CAUTION_SCALE x caution / (1 - caution): 0 at 0 (no defence), growing
    without bound toward 1 (fold whenever a threat shows). Duels on
    ningbo-3baida found the best weight about a tenth of the models' face
    value (caution 0.3 at this scale; the default)."""
    if caution <= 0.0:
        return 0.0
    if caution >= 1.0:
        return 1e6
    return CAUTION_SCALE * caution / (1.0 - caution)
