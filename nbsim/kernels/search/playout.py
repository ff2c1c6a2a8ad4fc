"""The lookahead's evaluator (Numba): the rest of a deal played from one
seat's view, on hidden tiles sampled consistently with that view.

docs/rules.md §2-§5. A seat deciding its discard sees its own hand,
every declared meld (others' concealed kongs face down), the discards, the
flowers set aside, the indicator and the wall's state: never the other
hands or the order of the wall. ``build_world`` deals everything the seat
cannot see at random from what it has not seen (the unseen multiset:
4 copies of a kind, 1 of a flower, less the copies it can see): each other
seat gets its public number of concealed tiles (13 - 3 x its melds; a
non-wild flower never stays in a hand), each face-down kong a kind with four
unseen copies, and the undrawn wall the rest, in random order. With the
``RESPECT_PASSED`` flag (``nbsim advise`` and ``evaluate``; not the
``lookahead`` policy) a world that gives a seat a hand that would legally
win on a kind it let go by (``View.passed``: players take every legal
win) is dealt again. Nothing in a world depends on the hidden tiles of
the real deal: ``build_world`` reads the ``View`` only (the no-leak test
covers the ``lookahead`` policy).

``evaluate_into`` plays, for every candidate discard and every sample j,
world j with the candidate discarded first (or, at a claim decision, the
discard offered and the candidate answer to it: pass, pung, kong or a
chow; worlds where another seat could have won on that discard are not
excluded), then every seat playing the playout policy to the end of the
deal (``engine.loop.play_from``, compiled apart and called by its
address: ``View.playout``). Sample j is
the same world and the same policy streams for every candidate (common
random numbers), so the candidates' differences have far smaller errors
than their values. Per candidate it sums the seat's payment (points, the
scorer's ``RES_PAY``), its square, wins, deal-ins (by the deciding seat,
also per winner), exhausted walls and failed samples (``ST_*``), and keeps
every sample's payment (``pays``) for paired intervals.
"""
import numpy as np
from numba import types

from nbsim.kernels import codes as C
from nbsim.kernels import rng
from nbsim.kernels import wall as W
from nbsim.kernels.engine import state as ES
from nbsim.kernels.engine import wins as EWIN
from nbsim.kernels.entry import call
from nbsim.kernels.jit import nrt_free
from nbsim.kernels.policies import common as CM
from nbsim.kernels.policies.catalog import MAX_PARAMS, POLICY_TABLE, code_of, param_index
from nbsim.kernels.policies.common import CLAIM_CHOW, CLAIM_PASS
from nbsim.kernels.policies.view import MAX_POND
from nbsim.kernels.ref import as_ref, ref_of

# statistics per candidate (float64[n, engine.state.SEARCH_STATS])
ST_PAY = 0             # sum of the seat's payments (points)
ST_PAY2 = 1            # sum of their squares
ST_WIN = 2             # deals the seat won
ST_DEAL_IN = 3         # deals the seat dealt in (its discard or its robbed kong)
ST_EXHAUSTED = 4       # deals that ended with the wall exhausted
ST_DEAL_IN_TO = 5      # 4 entries: deal-ins to seat s
ST_FAILED = 9          # samples with no consistent world, or an engine error
ST_N = 10              # samples played
assert ST_N < ES.SEARCH_STATS

# every policy's default parameter row, by code (the playouts' policies)
DEFAULT_PARAMS = np.zeros((len(POLICY_TABLE), MAX_PARAMS), np.float64)
for _c, _p in enumerate(POLICY_TABLE):
    for _j, _q in enumerate(_p.params):
        DEFAULT_PARAMS[_c, _j] = _q.default
DEFEND = code_of("defend")
KONG_Q = -2             # evaluate_into's claim_q: the candidates answer the own-turn kong
DEFEND_HOLD = param_index("defend", "hold")
# ``build_world``'s refine flag: deal again a world that gives a seat a hand
# that would legally win on a kind it let go by (``contradicts_passed``)
RESPECT_PASSED = 4
# ``build_world``'s refine flag (models 2 and 3): a flush target of
# ``refine_hands`` keeps the honours (the half flush of its suit), as a
# player collecting one suit holds honours too (docs/results/calibration.md)
FLUSH_HONOURS = 8
MODEL_BITS = 3          # refine & MODEL_BITS: the opponent model (0 .. 3)
PASSED_TRIES = 16       # deals of a world before the last one is kept anyway


@nrt_free(inline="always")
def _tile_id(k):
    """A physical tile id of kind ``k`` (any copy: playouts need the kind only)."""
    return k * 4 if k < C.N_PLAY else 102 + k


@nrt_free
def keep_score(hand, wild, k):
    """How much a player keeps kind ``k`` of ``hand`` (int counts[42]): 4
    per other copy, 2 per touching kind of its suit held, 1 per kind two
    away, 0.5 for a middle rank (3 to 7); a wild 1e9 (never let go). Used
    by ``refine_hands``; a cheap stand-in for a player's discard order."""
    if wild[k]:
        return 1e9
    sc = 4.0 * (hand[k] - 1)
    if k < C.HONOR0:
        r = k % 9
        if r >= 1 and hand[k - 1] > 0:
            sc += 2.0
        if r <= 7 and hand[k + 1] > 0:
            sc += 2.0
        if r >= 2 and hand[k - 2] > 0:
            sc += 1.0
        if r <= 6 and hand[k + 2] > 0:
            sc += 1.0
        if 2 <= r <= 6:
            sc += 0.5
    return sc


@nrt_free
def read_suit(view, st, s):
    """The suit (0 m, 1 p, 2 s) that seat ``s``'s public play points to as
    its flush: the suit of its first declared suited meld (face-down kongs
    excepted), else the suit it has discarded least (wild kinds not
    counted; a tie broken at random from ``st``). Reads the ``View`` only."""
    for m in range(view.n_melds[s]):
        k = view.melds[s, m, C.MELD_KIND]
        if view.melds[s, m, C.MELD_TYPE] != C.MELD_CKONG and k < C.HONOR0:
            return CM.suit_of(k)
    c0 = 0
    c1 = 0
    c2 = 0
    for p in range(view.n_pond[s]):
        k = np.int64(view.pond[s, p])
        if k < C.HONOR0 and not view.wild[k]:
            u = CM.suit_of(k)
            if u == 0:
                c0 += 1
            elif u == 1:
                c1 += 1
            else:
                c2 += 1
    low = min(c0, min(c1, c2))
    n_low = (1 if c0 == low else 0) + (1 if c1 == low else 0) + (1 if c2 == low else 0)
    r = rng.below(st, n_low)
    for u, c in ((0, c0), (1, c1), (2, c2)):
        if c == low:
            if r == 0:
                return u
            r -= 1
    return 2


@nrt_free
def refine_hands(view, g, st, refine):
    """The opponent models of ``build_world``'s ``refine`` 1, 2 and 3: each
    other seat, whose hidden hand was dealt at random, draws and discards
    once per discard it has made (``view.n_pond``): it takes the tile of a
    random position of the wall still to draw (``g.wall``, live end to
    tail, the indicator's place excepted) and puts there the tile of its
    hand it keeps least. With ``refine`` 1 that is the lowest
    ``keep_score``: its hand keeps pairs and connected tiles, as a
    player's does. With ``refine`` 2 it first picks, after each draw, the
    target a value player would (``common.choose_target`` on its hand and
    its declared melds: open hand, a flush or all pungs, within the
    variant's allowed patterns) and lets go of the tiles outside that
    target first, then the lowest ``keep_score``: where only flushes and
    all pungs win (同城游) its hand leans to one suit, as a player's does.
    With ``refine`` 3 it picks the target as with 2, but a flush target
    takes the suit its public play points to (``read_suit``: its suited
    melds, else the suit it discards least), so its hand leans to the suit
    a player reading its discards would fear. With the ``FLUSH_HONOURS``
    bit in ``refine`` (2 or 3), a full-flush target becomes the half flush
    of its suit: the honours stay in the hand as the suit's tiles do, by
    ``keep_score`` alone. Any way, every tile stays
    unseen by the seat: the hidden tiles of the hands and the wall are the
    same multiset, and only what the seat may know is read (no leak)."""
    ws = g.ws
    lo = ws[W.WS_LIVE]
    n = ws[W.WS_TAIL] + 1 - lo
    if n <= 1:
        return
    nat = g.nat
    model = refine & MODEL_BITS
    honours = (refine & FLUSH_HONOURS) != 0
    for s in range(4):
        if s == view.seat:
            continue
        h = g.hands[s]
        suit = read_suit(view, st, s) if model == 3 else -1
        for _ in range(view.n_pond[s]):
            p = lo + rng.below(st, n)
            k = W.tile_kind(np.int64(g.wall[p]))
            if p == ws[W.WS_INDICATOR] or (k >= C.FLOWER0 and not view.wild[k]):
                continue
            h[k] += 1
            target = CM.TG_OPEN
            if model >= 2:
                n_wilds = CM.split_hand(h, view.wild, nat)
                target = CM.choose_target(view.rules, view.tables, nat, n_wilds, g.melds[s],
                                          g.n_melds[s], np.int64(s), view.round_wind,
                                          g.flowers[s], nat)
                if suit >= 0:
                    if CM.TG_FULL_FLUSH <= target < CM.TG_HALF_FLUSH:
                        target = CM.TG_FULL_FLUSH + suit
                    elif CM.TG_HALF_FLUSH <= target < CM.TG_ALL_PUNGS:
                        target = CM.TG_HALF_FLUSH + suit
                if honours and CM.TG_FULL_FLUSH <= target < CM.TG_HALF_FLUSH:
                    target = CM.TG_HALF_FLUSH + (target - CM.TG_FULL_FLUSH)
            worst = -1
            low = 1e300
            for x in range(C.N_KINDS):
                if h[x] > 0:
                    sc = keep_score(h, view.wild, x)
                    if x < C.N_PLAY and not CM.kind_in_target(target, x):
                        sc -= 1000.0
                    if sc < low:
                        low = sc
                        worst = x
            h[worst] -= 1
            g.wall[p] = _tile_id(worst)


@nrt_free
def contradicts_passed(view, g, out):
    """Does the world in ``g`` give a seat other than ``view.seat`` a hand
    that would legally win on a kind it let go by since its own last discard
    (``view.passed``)? Players take every legal win, so a real hand cannot.
    The win is scored as one on a discard of the seat after it (who
    discarded it does not change whether it is legal); ``out``: scratch
    (int64[OUT_LEN], the engine's result row)."""
    for s in range(4):
        if s == view.seat:
            continue
        for k in range(C.N_KINDS):
            if view.passed[s, k] and wins_on(view, g, s, k, (s + 1) % 4, out):
                return True
    return False


@nrt_free
def wins_on(view, g, s, k, discarder, out):
    """Would seat ``s``'s hand in the world ``g`` legally win on kind ``k``
    discarded by seat ``discarder`` (docs/rules.md §5)? A flower that is
    not wild is never discarded: it wins nothing. ``out``: scratch
    (int64[OUT_LEN])."""
    return ((k < C.FLOWER0 or g.wild[k])
            and EWIN.complete_with(view.tables, g.wild, g.hands[s], g.nat, k)
            and EWIN.try_win(view.rules, view.tables, as_ref(g), np.int64(s), np.int64(k),
                          np.int64(C.WIN_DISCARD), np.int64(0), np.int64(discarder),
                          np.int64(-1), np.int64(-1), out))


@nrt_free
def discard_wins(view, g, out, wins):
    """The immediate deal-in of every kind in the world ``g``: ``wins[k]``
    (bool[N_KINDS]) is True when some seat other than ``view.seat`` would
    legally win on kind ``k`` if ``view.seat`` discarded it now
    (``wins_on``; who would claim it first does not matter). ``out``:
    scratch (int64[OUT_LEN])."""
    seat = view.seat
    for k in range(C.N_KINDS):
        wins[k] = False
        for s in range(4):
            if s != seat and wins_on(view, g, s, k, seat, out):
                wins[k] = True
                break


@nrt_free
def discard_win_counts(view, sr, n_samples, key, refine, wins, counts):
    """``counts[k]`` (float64[N_KINDS], zeroed first): in how many of
    ``n_samples`` worlds (``build_world`` with ``refine``, world j from
    the stream (``key``, j) as in ``evaluate_into``) some other seat would
    legally win on kind ``k`` discarded by ``view.seat`` now
    (``discard_wins``; ``wins`` bool[N_KINDS] scratch). ``sr``:
    ``engine.state.Search`` working memory. Returns the worlds dealt (a
    world the view leaves too few tiles for is not counted)."""
    g = ref_of(ES.search_game(sr))
    vr = as_ref(view)
    for k in range(C.N_KINDS):
        counts[k] = 0.0
    dealt = 0
    for j in range(n_samples):
        rng.stream_init(key, j, rng.STREAM_USER, sr.st)
        if build_world(vr, g, sr.st, sr.pool, sr.unseen, refine, sr.out):
            continue
        dealt += 1
        discard_wins(vr, g, sr.out, wins)
        for k in range(C.N_KINDS):
            if wins[k]:
                counts[k] += 1.0
    return dealt


@nrt_free
def build_world(view, g, st, pool, u, refine, out):
    """Fill the state ``g`` (``engine.state.Game``) with a complete deal that
    agrees with ``view`` (``policies.view.View``) and deals the hidden tiles
    at random from the stream ``st`` (uint64[RNG_LEN]); ``pool`` uint8[144]
    and ``u`` int64[42] are scratch. ``refine & MODEL_BITS`` 1, 2 or 3: the
    others' hands are then refined by ``refine_hands`` (0: uniformly random
    hands; the ``FLUSH_HONOURS`` bit is passed on to it). With the
    ``RESPECT_PASSED`` bit, a world that gives a seat a hand that would
    legally win on a kind it let go by
    (``contradicts_passed``; ``out`` int64[OUT_LEN] scratch) is dealt again
    from the same stream, up to ``PASSED_TRIES`` deals (the last is kept).
    The seat to play and the turn state are the view's. Returns 0, or 1 when the
    view leaves too few unseen tiles for the others' hands and the wall (an
    inconsistent position)."""
    seat = view.seat
    for i in range(W.WS_LEN):
        g.ws[i] = view.ws[i]
    for k in range(C.N_KINDS):
        g.wild[k] = view.wild[k]
        g.visible[k] = view.visible[k]
    for s in range(4):
        g.n_melds[s] = view.n_melds[s]
        g.flowers[s] = view.flowers[s]
        g.n_pond[s] = view.n_pond[s]
        for m in range(C.MAX_MELDS):
            for c in range(3):
                g.pub_melds[s, m, c] = view.melds[s, m, c]
                g.melds[s, m, c] = view.own_melds[m, c] if s == seat else view.melds[s, m, c]
        for t in range(4):
            g.fed[s, t] = view.fed[s, t]
        for p in range(MAX_POND):
            g.pond[s, p] = view.pond[s, p]
            g.pond_flags[s, p] = view.pond_flags[s, p]
        for k in range(C.N_KINDS):
            g.passed[s, k] = view.passed[s, k]
            g.no_win[s, k] = False
            g.no_win[s, C.N_KINDS + k] = False
    for i in range(ES.TS_LEN):
        g.ts[i] = view.pts[i]
    # what the seat has not seen
    for k in range(C.N_KINDS):
        u[k] = (4 if k < C.N_PLAY else 1) - view.visible[k] - view.hand[k]
    for m in range(view.n_melds[seat]):
        if view.own_melds[m, C.MELD_TYPE] == C.MELD_CKONG:
            u[view.own_melds[m, C.MELD_KIND]] -= 4
    for k in range(C.N_KINDS):
        if u[k] < 0:
            u[k] = 0
    # the others' face-down kongs: a kind with four unseen copies
    for s in range(4):
        if s == seat:
            continue
        for m in range(view.n_melds[s]):
            if g.melds[s, m, C.MELD_TYPE] == C.MELD_CKONG:
                n_ok = 0
                for k in range(C.N_PLAY):
                    if u[k] >= 4 and not view.wild[k]:
                        n_ok += 1
                if n_ok == 0:
                    return 1
                r = rng.below(st, n_ok)
                for k in range(C.N_PLAY):
                    if u[k] >= 4 and not view.wild[k]:
                        if r == 0:
                            g.melds[s, m, C.MELD_KIND] = k
                            u[k] -= 4
                        r -= 1
    model = refine & MODEL_BITS
    for _attempt in range(PASSED_TRIES):
        # the unseen tiles in random order
        n = np.int64(0)      # not a literal: rng.shuffle compiles once
        for k in range(C.N_KINDS):
            for _ in range(u[k]):
                pool[n] = _tile_id(k)
                n += 1
        rng.shuffle(st, pool, n)
        # the others' hands: the first tiles that may stay in a hand; the rest,
        # in order, fill the wall
        need = g.opts[:4, 0]        # the kong options' scratch: free before play resumes
        for s in range(4):
            need[s] = 0 if s == seat else 13 - 3 * view.n_melds[s]
            for k in range(C.N_KINDS):
                g.hands[s, k] = view.hand[k] if s == seat else 0
        s = 0
        n_rest = 0
        for i in range(n):
            t = pool[i]
            k = W.tile_kind(np.int64(t))
            while s < 4 and need[s] == 0:
                s += 1
            if s < 4 and (k < C.FLOWER0 or view.wild[k]):
                g.hands[s, k] += 1
                need[s] -= 1
            else:
                pool[n_rest] = t
                n_rest += 1
        while s < 4 and need[s] == 0:
            s += 1
        if s < 4:
            return 1
        ws = g.ws
        ind = ws[W.WS_INDICATOR]
        r = 0
        for p in range(ws[W.WS_LIVE], ws[W.WS_TAIL] + 1):
            if p == ind:
                g.wall[p] = _tile_id(ws[W.WS_IND_KIND])
            elif r < n_rest:
                g.wall[p] = pool[r]
                r += 1
            else:
                return 1
        if model > 0:
            refine_hands(view, g, st, model | (refine & FLUSH_HONOURS))
        if not (refine & RESPECT_PASSED) or not contradicts_passed(view, g, out):
            break
    # the engine's filters of who may win on a discard
    for s in range(4):
        if s == view.to_play:
            g.may_win[s] = True
        else:
            EWIN.update_may_win(view.tables, g.wild, g.hands[s], g.n_melds[s], g.nat, g.may_win,
                             g.no_win, np.int64(s))
    return 0


@nrt_free
def evaluate_into(view, sr, n_cands, n_samples, key, playout, claim_tile, claim_q, hold,
                  refine):
    """Play every candidate discard ``sr.cands[:n_cands]`` (kinds the seat
    to play holds) on ``n_samples`` sampled worlds (``build_world``) with
    every seat playing the policy of code ``playout`` (default parameters;
    ``hold`` >= 0 with defend: defend's ``hold`` set to it, < 0: its default)
    to the end of the deal. ``claim_q`` >= 0: the candidates are instead the
    seat's answers (``common.CLAIM_*``) to the discard ``claim_tile``, which
    the view shows made and not won on (``engine.claims.claim_discard``): a
    pung or kong answers the pung question, a chow the chow question (no
    seat pungs first), and a pass the question ``claim_q`` (0: the pung
    question, the chow question then asked as usual; 1: every claim of the
    seat, and nobody pungs); ``KONG_Q``: the candidates are the seat's
    answers to its own-turn kong question (-1 no kong, then the playout
    policy's discard; k: the kong of kind k, concealed or added, then the
    replacement draw; ``engine.turn.own_kong``); -1: the candidates are
    discards. ``sr``:
    ``engine.state.Search`` working memory (at least n_cands rows and
    n_samples columns); ``refine``: ``build_world``'s (1, 2 or 3: the others' hands
    refined by ``refine_hands``, 0: uniform); ``key``: uint64, the seed of
    the worlds (world j comes from stream (key, j) for every candidate, and
    so do the playouts' policy streams: common random numbers). Fills
    ``sr.stats[:n_cands]`` (``ST_*`` sums) and ``sr.pays[i, j]`` (the seat's
    payment in points; 0 for a failed sample). Returns the failed samples
    (every sample fails when ``view.playout`` has no engine: its pair is
    (0, 0)). The playouts' policies are ``sr.pols``, with the entries of
    ``view.playout``."""
    seat = view.seat
    engine = view.playout.engine
    no_engine = engine[0] == 0
    g = ES.search_game(sr)
    dec = view.playout.decisions
    for c in range(dec.shape[0]):
        for d in range(dec.shape[1]):
            sr.pols.decisions[c, d, 0] = dec[c, d, 0]
            sr.pols.decisions[c, d, 1] = dec[c, d, 1]
    for i in range(2):
        sr.pols.engine[i] = engine[i]
        sr.pols.scorer[i] = view.playout.scorer[i]
    for s in range(4):
        sr.pols.codes[s] = playout
        for q in range(MAX_PARAMS):
            sr.pols.params[s, q] = DEFAULT_PARAMS[playout, q]
        if playout == DEFEND and hold >= 0.0:
            sr.pols.params[s, DEFEND_HOLD] = hold
    failed = 0
    for i in range(n_cands):
        for c in range(ES.SEARCH_STATS):
            sr.stats[i, c] = 0.0
    # the world builder gets the view and the state by their addresses
    # (``nbsim.kernels.ref``), the engine the state itself
    vr = as_ref(view)
    gr = ref_of(g)
    for j in range(n_samples):
        for i in range(n_cands):
            rng.stream_init(key, j, rng.STREAM_USER, sr.st)
            bad = build_world(vr, gr, sr.st, sr.pool, sr.unseen, refine, sr.out)
            if no_engine:
                bad = 1
            sr.pays[i, j] = 0.0
            if bad == 0:
                for s in range(4):
                    rng.stream_init(key, j, rng.STREAM_POLICY + s, g.prng[s])
                # the engine's play_from, called by its address (View.playout)
                if claim_q == KONG_Q:
                    call(engine[0], engine[1], types.int64,
                         (view.rules, view.tables, sr.pols, g, sr.out, sr.log,
                          sr.probe, np.int64(-1), np.int64(-1), np.int64(0),
                          np.int64(0), sr.cands[i]))
                elif claim_q < 0:
                    call(engine[0], engine[1], types.int64,
                         (view.rules, view.tables, sr.pols, g, sr.out, sr.log,
                          sr.probe, sr.cands[i], np.int64(-1), np.int64(0),
                          np.int64(0), np.int64(-2)))
                else:
                    a = sr.cands[i]
                    q = claim_q if a == CLAIM_PASS else (1 if a >= CLAIM_CHOW else 0)
                    call(engine[0], engine[1], types.int64,
                         (view.rules, view.tables, sr.pols, g, sr.out, sr.log,
                          sr.probe, np.int64(claim_tile), np.int64(seat),
                          np.int64(q), np.int64(a), np.int64(-2)))
                bad = 1 if sr.out[ES.O_ERROR] != 0 else 0
            if bad:
                sr.stats[i, ST_FAILED] += 1.0
                failed += 1
                continue
            out = sr.out
            pay = float(out[ES.O_SCORE + C.RES_PAY + seat])
            sr.pays[i, j] = pay
            st = sr.stats
            st[i, ST_N] += 1.0
            st[i, ST_PAY] += pay
            st[i, ST_PAY2] += pay * pay
            winner = out[ES.O_WINNER]
            if winner < 0:
                st[i, ST_EXHAUSTED] += 1.0
            elif winner == seat:
                st[i, ST_WIN] += 1.0
            elif out[ES.O_DISCARDER] == seat:
                st[i, ST_DEAL_IN] += 1.0
                st[i, ST_DEAL_IN_TO + winner] += 1.0
    return failed


@nrt_free
def self_draw_waits(view, sr, discard, key, wins):
    """The seat's legal self-drawn wins after it discards ``discard``:
    ``wins[t]`` (bool[42]) for every kind t that completes the hand and
    scores a legal self-drawn win (no special context), and
    ``sr.unseen[t]`` the copies of t the seat has not seen. Returns the
    unseen tiles its draws come from: every unseen tile but a non-wild
    flower (a drawn one is replaced) and the others' face-down kongs."""
    g = ref_of(ES.search_game(sr))
    u = sr.unseen
    rng.stream_init(key, 0, rng.STREAM_USER, sr.st)
    build_world(as_ref(view), g, sr.st, sr.pool, u, np.int64(0), sr.out)
    seat = view.seat
    for k in range(C.N_KINDS):
        u[k] = (4 if k < C.N_PLAY else 1) - view.visible[k] - view.hand[k]
        g.hands[seat, k] = view.hand[k]
    g.hands[seat, discard] -= 1
    total = 0
    for s in range(4):
        for m in range(view.n_melds[s]):
            if view.melds[s, m, C.MELD_TYPE] == C.MELD_CKONG:
                if s == seat:
                    u[view.own_melds[m, C.MELD_KIND]] -= 4
                else:
                    total -= 4
    for k in range(C.N_KINDS):
        if u[k] < 0:
            u[k] = 0
        if k < C.FLOWER0 or view.wild[k]:
            total += u[k]
    for t in range(C.N_KINDS):
        wins[t] = False
        if u[t] > 0 and (t < C.FLOWER0 or view.wild[t]):
            if EWIN.complete_with(view.tables, g.wild, g.hands[seat], g.nat, t):
                wins[t] = EWIN.try_win(view.rules, view.tables, g, seat, t,
                                    np.int64(C.WIN_SELF_DRAW), np.int64(0), np.int64(-1),
                                    np.int64(-1), np.int64(-1), sr.out)
    return total
