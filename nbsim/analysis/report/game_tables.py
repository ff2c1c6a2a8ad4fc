"""The game-mode tables of ``nbsim report`` (``nbsim simulate --mode game``:
one row per played deal; the list with what each shows is in
``nbsim.analysis.report.report``'s module doc): outcomes, value of a win, tai or fan
distribution, tai / fan / fu items, payments by seat and by policy, the
winner's gain, rates by seat, game length, flowers at the end, match
totals, and the main table drawn from them (``table_main_game``). Each is
``table_*(lf, ctx) -> Table | None`` (``nbsim.analysis.report.deal_tables``); intervals
are 95% (``nbsim.stats``): Wilson for proportions, t for means.
"""
from __future__ import annotations

import math

import polars as pl

from nbsim.analysis.report.deal_tables import (
    SEATS,
    SUMMARY_SCHEMA,
    WIN,
    RunContext,
    Table,
    collect,
    flower_count,
    seat_distribution,
    seat_means,
    summary_rows,
    winner_gain,
)
from nbsim.rules.names import FAN_NAMES, FU_NAMES, TAI_NAMES, tai_label
from nbsim.run import schema as S
from nbsim.stats import T_NOTE, WILSON_NOTE, mean_row, prop_row, t_interval, wilson

MAX_GAIN_ROWS = 30          # winner_gain: bin the gains when more distinct values


def _value_label(ctx: RunContext) -> str:
    return "tai" if ctx.system == "tai" else "fan"


def table_outcomes(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """How deals end (docs/rules.md §4-§5): P(win), P(self-drawn win),
    P(discard win), P(robbing the kong), P(wall exhausted) over all deals,
    and the self-drawn share of wins, each with a 95% Wilson interval."""
    o = pl.col("outcome")
    r = lf.select(pl.len().alias("n"), WIN.sum().alias("win"),
                  (o == "self_drawn").sum().alias("self_drawn"),
                  (o == "discard").sum().alias("discard"),
                  (o == "robbing_kong").sum().alias("robbing_kong"),
                  (o == "wall_exhausted").sum().alias("wall_exhausted"))
    c = collect(r).row(0, named=True)
    n, w = c["n"], c["win"]
    rows = [("win", "deals", w, n), ("self-drawn win", "deals", c["self_drawn"], n),
            ("discard win", "deals", c["discard"], n),
            ("robbing the kong", "deals", c["robbing_kong"], n),
            ("wall exhausted", "deals", c["wall_exhausted"], n),
            ("self-drawn share of wins", "wins", c["self_drawn"], w)]
    df = pl.DataFrame([{"event": e, "of": of, **prop_row(k, m)} for e, of, k, m in rows],
                      schema={"event": pl.String, "of": pl.String, "count": pl.Int64,
                              "n": pl.Int64, "p": pl.Float64, "se": pl.Float64,
                              "ci_low": pl.Float64, "ci_high": pl.Float64})
    return Table("outcomes", "Outcomes of the deals", df, WILSON_NOTE)


def _win_quantities(ctx: RunContext, names: list[str]) -> list[tuple[str, pl.Expr]]:
    if ctx.system == "tai":
        q = [("tai", pl.col("tai"))]
    else:
        q = [("fan", pl.col("fan")), ("fu", pl.col("fu"))]
        q += [(f"points ({c[len('points_'):]})", pl.col(c))
              for c in names if c.startswith("points_")]
    return q + [("winner's gain (points)", winner_gain())]


def table_win_means(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Means over wins with 95% t intervals: tai (docs/rules.md §6) or, in
    fan/fu variants, fan, fu and points under every scheme (§8); and the
    winner's gain (net points, §7/§8), plus min, median and max (exact, from
    value counts)."""
    names = lf.collect_schema().names()
    qs = _win_quantities(ctx, names)
    rows = summary_rows(lf, ctx, [(q, f"win:{q}", e) for q, e in qs], WIN)
    what = "tai" if ctx.system == "tai" else "fan, fu, points"
    return Table("win_means", f"Value of a win: mean {what} and the winner's gain",
                 pl.DataFrame(rows, schema=SUMMARY_SCHEMA),
                 T_NOTE + "; over wins only (n = wins); points are net points of the winner")


def table_distribution(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """P(tai = k) and P(tai >= k | win) for k = min .. max seen (fan in
    fan/fu variants), with 95% Wilson intervals."""
    col = _value_label(ctx)
    q = "tai" if ctx.system == "tai" else "fan"
    g = ctx.value_counts(lf, f"win:{q}", pl.col(col), WIN).rename({"x": col, "c": "wins"})
    total = int(g["wins"].sum()) if g.height else 0
    counts = {int(k): int(c) for k, c in g.iter_rows()}
    rows = []
    if counts:
        ge = total
        for k in range(min(counts), max(counts) + 1):
            c = counts.get(k, 0)
            lo, hi = wilson(c, total)
            glo, ghi = wilson(ge, total)
            rows.append({col: k, "wins": c, "p": c / total, "ci_low": lo, "ci_high": hi,
                         "p_at_least": ge / total, "ge_ci_low": glo, "ge_ci_high": ghi})
            ge -= c
    schema = {col: pl.Int64, "wins": pl.Int64, "p": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64, "p_at_least": pl.Float64, "ge_ci_low": pl.Float64,
              "ge_ci_high": pl.Float64}
    return Table(f"{col}_distribution", f"Distribution of the {col} of wins",
                 pl.DataFrame(rows, schema=schema),
                 f"p = P({col} = k | win), p_at_least = P({col} >= k | win) over "
                 f"{total:,} wins; " + WILSON_NOTE)


def table_tai_items(lf: pl.LazyFrame, ctx: RunContext) -> Table | None:
    """For each tai item of the variant (docs/rules.md §6; columns tai_<item>
    and has_<item>; the Chinese name beside the id), items worth 0 tai in the
    variant included: P(item applies | win) and P(item applies) per deal,
    each with a 95% Wilson interval, its mean tai per win and its share of
    the mean total tai; most frequent first. A run written before the
    has_<item> columns existed counts an item where its tai is non-zero, so
    an item worth 0 tai there has no frequency (null)."""
    if ctx.system != "tai":
        return None
    names = lf.collect_schema().names()
    items = [c[4:] for c in names if c.startswith("tai_")]
    if not items:
        return None
    aggs = [pl.len().alias("deals"), WIN.sum().alias("wins"),
            pl.col("tai").cast(pl.Float64).filter(WIN).mean().alias("tai")]
    for it in items:
        c = pl.col(f"tai_{it}")
        applies = pl.col(f"has_{it}") if f"has_{it}" in names else c > 0
        aggs += [(applies & WIN).sum().alias(f"k_{it}"),
                 c.cast(pl.Float64).filter(WIN).mean().alias(f"m_{it}")]
    r = collect(lf.select(aggs)).row(0, named=True)
    deals, wins, mean_tai = r["deals"], r["wins"], r["tai"]
    rows, unknown = [], []
    empty = {"count": None, "p": None, "ci_low": None, "ci_high": None}
    for it in items:
        value = ctx.tai_values.get(it)
        m = r[f"m_{it}"]
        if value == 0 and f"has_{it}" not in names:
            unknown.append(it)
            per_win = per_deal = empty
        else:
            per_win, per_deal = prop_row(r[f"k_{it}"], wins), prop_row(r[f"k_{it}"], deals)
        rows.append({"item": it, "chinese": TAI_NAMES.get(it, ""), "tai": value,
                     "wins": per_win["count"], "p": per_win["p"],
                     "ci_low": per_win["ci_low"], "ci_high": per_win["ci_high"],
                     "p_deal": per_deal["p"], "deal_ci_low": per_deal["ci_low"],
                     "deal_ci_high": per_deal["ci_high"], "mean_tai": m,
                     "share_of_tai": (m / mean_tai) if (m is not None and mean_tai) else None})
    schema = {"item": pl.String, "chinese": pl.String, "tai": pl.Int64, "wins": pl.Int64,
              "p": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
              "p_deal": pl.Float64, "deal_ci_low": pl.Float64, "deal_ci_high": pl.Float64,
              "mean_tai": pl.Float64, "share_of_tai": pl.Float64}
    df = (pl.DataFrame(rows, schema=schema)
          .sort(["p", "mean_tai", "item"], descending=[True, True, False], nulls_last=True))
    note = (f"p = P(item applies | win) over {wins:,} wins, p_deal = P(item applies) over "
            f"{deals:,} deals ({WILSON_NOTE}); items worth 0 tai in the variant are counted "
            f"too; tai = the item's value in the config ('each' items count once per flower "
            f"or pung); mean_tai = mean tai the item adds per win; share_of_tai = mean_tai / "
            f"mean total tai")
    if unknown:
        note += (f". This run has no has_<item> columns (written by an older nbsim), so "
                 f"items worth 0 tai have no frequency: "
                 f"{', '.join(tai_label(z) for z in unknown)}")
    return Table("tai_items", "Tai items: how often each applies to a win and per deal", df,
                 note)


def _fan_fu_item_table(lf: pl.LazyFrame, ctx: RunContext, family: str) -> Table | None:
    """One Ninghai item table (family 'fan' or 'fu'; columns fan_<item> /
    fu_<item>): per item, P(it applies | win) with a 95% Wilson interval
    (it applies when its value is non-zero) and its mean per win with a 95%
    t interval. None outside fan/fu variants or for a run without the item
    columns."""
    if ctx.system != "fan_fu":
        return None
    ids = FAN_NAMES if family == "fan" else FU_NAMES
    names = lf.collect_schema().names()
    items = [it for it in ids if f"{family}_{it}" in names]
    if not items:
        return None
    aggs = [WIN.sum().alias("wins"), pl.col(family).cast(pl.Float64).filter(WIN).mean()
            .alias("total")]
    for it in items:
        c = pl.col(f"{family}_{it}").filter(WIN)
        aggs += [(c > 0).sum().alias(f"k_{it}"), c.cast(pl.Float64).mean().alias(f"m_{it}"),
                 c.cast(pl.Float64).std().alias(f"s_{it}")]
    r = collect(lf.select(aggs)).row(0, named=True)
    wins, total = r["wins"], r["total"]
    values = ctx.fan_values if family == "fan" else ctx.fu_values
    rows = []
    for it in items:
        pw = prop_row(r[f"k_{it}"], wins)
        mr = mean_row(wins, r[f"m_{it}"], r[f"s_{it}"])
        m = r[f"m_{it}"]
        rows.append({"item": it, "chinese": ids[it], family: values.get(it),
                     "wins": pw["count"], "p": pw["p"], "ci_low": pw["ci_low"],
                     "ci_high": pw["ci_high"], f"mean_{family}": mr["mean"],
                     "mean_ci_low": mr["ci_low"], "mean_ci_high": mr["ci_high"],
                     f"share_of_{family}": (m / total) if (m is not None and total) else None})
    schema = {"item": pl.String, "chinese": pl.String, family: pl.Int64, "wins": pl.Int64,
              "p": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
              f"mean_{family}": pl.Float64, "mean_ci_low": pl.Float64,
              "mean_ci_high": pl.Float64, f"share_of_{family}": pl.Float64}
    df = (pl.DataFrame(rows, schema=schema)
          .sort(["p", f"mean_{family}", "item"], descending=[True, True, False],
                nulls_last=True))
    if family == "fan":
        title = "Fan items (番): how often each applies to a win"
        what = ("mean_fan = mean fan the item adds per win, before the fan cap, so the "
                "shares of the capped mean fan may add up to more than 1 (docs/rules.md §8)")
    else:
        title = "Fu items (胡): how often each applies to a win"
        what = ("mean_fu = mean fu the item adds per win; the items add up to the fu, so the "
                "shares add up to 1 (docs/rules.md §8)")
    note = (f"p = P(item applies | win) over {wins:,} wins ({WILSON_NOTE}); {family} = the "
            f"item's value in the config (per flower or set); {what}; mean intervals: "
            f"{T_NOTE}")
    return Table(f"{family}_items", title, df, note)


def table_fan_items(lf: pl.LazyFrame, ctx: RunContext) -> Table | None:
    """Ninghai fan items (docs/rules.md §8; columns fan_<item>): P(item
    applies | win) with a 95% Wilson interval and its mean fan per win
    (before the fan cap) with a 95% t interval."""
    return _fan_fu_item_table(lf, ctx, "fan")


def table_fu_items(lf: pl.LazyFrame, ctx: RunContext) -> Table | None:
    """Ninghai fu items (docs/rules.md §8; columns fu_<item>): P(item applies
    | win) with a 95% Wilson interval and its mean fu per win with a 95% t
    interval; the items add up to the fu."""
    return _fan_fu_item_table(lf, ctx, "fu")


def table_pay_per_seat(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Mean net points per deal of each seat (E = dealer) with 95% t intervals
    (docs/rules.md §7-§8; the four means add up to 0)."""
    aggs = []
    for seat in SEATS:
        c = pl.col(f"pay_{seat.lower()}").cast(pl.Float64)
        aggs += [c.count().alias(f"n{seat}"), c.mean().alias(f"m{seat}"),
                 c.std().alias(f"s{seat}")]
    r = lf.select(aggs).collect(engine="streaming").row(0, named=True)
    rows = [{"seat": seat, "dealer": seat == "E",
             **mean_row(r[f"n{seat}"], r[f"m{seat}"], r[f"s{seat}"])} for seat in SEATS]
    schema = {"seat": pl.String, "dealer": pl.Boolean, "n": pl.Int64, "mean": pl.Float64,
              "sd": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    return Table("pay_per_seat", "Mean net points per deal by seat",
                 pl.DataFrame(rows, schema=schema), T_NOTE + "; n = deals")


def _policies(lf: pl.LazyFrame) -> list[str]:
    """The policies that hold a seat in the run, sorted (one streaming
    group-by over the four policy columns: a handful of seatings)."""
    cols = S.seat_columns("policy")
    combos = collect(lf.group_by(cols).agg(pl.len()))
    return sorted({p for c in cols for p in combos[c].drop_nulls().to_list()})


def table_pay_by_policy(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Win rate and mean net points per seat-deal of each bot policy
    (policy_e .. policy_n say who sat where; useful for --policies runs).

    A policy that holds m seats of a deal is scored by the mean over those
    seats, so each deal gives one value (deals are independent, seats of one
    deal are not): mean pay with a t interval over deals; win rate = P(one of
    its seats wins) / m with that probability's Wilson interval divided by m
    (exact because a deal has at most one winner; m is constant in a run).
    All policies are aggregated in one streaming pass; in a run of
    independent deals the seating is the manifest's (policies by seat E S W
    N), so no policy column needs to be read."""
    seating = ctx.manifest.get("policies") if ctx.manifest.get("game_format",
                                                                "deals") == "deals" else None
    fixed = isinstance(seating, list) and len(seating) == len(SEATS)
    seats_of: list = seating if isinstance(seating, list) else []
    pols = sorted(set(seats_of)) if fixed else _policies(lf)
    aggs = []
    for i, pol in enumerate(pols):
        if fixed:                       # the same seats in every deal: no policy column read
            mine = [seat for seat, p in zip(SEATS, seats_of, strict=False) if p == pol]
            held = pl.lit(True)
            m = pl.lit(len(mine))
            pay = pl.sum_horizontal([pl.col(f"pay_{seat.lower()}") for seat in mine])
            won = pl.col("winner").is_in(mine).fill_null(False)
            n_expr = pl.len()
        else:
            is_p = [(pl.col(f"policy_{s}") == pol).fill_null(False) for s in S.SEAT_SUFFIXES]
            m = pl.sum_horizontal([e.cast(pl.Int32) for e in is_p])
            pay = pl.sum_horizontal([pl.when(e).then(pl.col(f"pay_{s}")).otherwise(0)
                                     for e, s in zip(is_p, S.SEAT_SUFFIXES, strict=False)])
            won = pl.any_horizontal([e & (pl.col("winner") == s.upper()).fill_null(False)
                                     for e, s in zip(is_p, S.SEAT_SUFFIXES, strict=False)])
            held = m > 0
            n_expr = held.sum()
        x = pl.when(held).then(pay.cast(pl.Float64) / m)
        share = pl.when(held).then(won.cast(pl.Float64) / m)
        aggs += [n_expr.alias(f"n{i}"), pl.when(held).then(m).min().alias(f"mmin{i}"),
                 pl.when(held).then(m).max().alias(f"mmax{i}"),
                 (won & held).sum().alias(f"won{i}"), share.mean().alias(f"sm{i}"),
                 share.std().alias(f"ss{i}"), x.mean().alias(f"pm{i}"),
                 x.std().alias(f"ps{i}")]
    r = collect(lf.select(aggs)).row(0, named=True) if aggs else {}
    rows = []
    for i, pol in enumerate(pols):
        n = r[f"n{i}"]
        if r[f"mmin{i}"] == r[f"mmax{i}"]:
            seats = int(r[f"mmin{i}"])
            lo, hi = wilson(r[f"won{i}"], n)
            win = {"win_rate": r[f"won{i}"] / n / seats, "win_ci_low": lo / seats,
                   "win_ci_high": hi / seats}
        else:                                  # pragma: no cover - m is fixed in a run
            seats = None
            lo, hi = t_interval(n, r[f"sm{i}"], r[f"ss{i}"])
            win = {"win_rate": r[f"sm{i}"], "win_ci_low": lo, "win_ci_high": hi}
        mr = mean_row(n, r[f"pm{i}"], r[f"ps{i}"])
        rows.append({"policy": pol, "seats": seats, "deals": n, **win,
                     "mean_pay": mr["mean"], "se": mr["se"], "ci_low": mr["ci_low"],
                     "ci_high": mr["ci_high"]})
    schema = {"policy": pl.String, "seats": pl.Int64, "deals": pl.Int64,
              "win_rate": pl.Float64, "win_ci_low": pl.Float64, "win_ci_high": pl.Float64,
              "mean_pay": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64}
    return Table("pay_by_policy", "Win rate and mean net points per seat by policy",
                 pl.DataFrame(rows, schema=schema),
                 "seats = seats the policy holds per deal; win_rate per seat-deal "
                 "(Wilson interval of P(a seat of the policy wins), divided by seats); "
                 "mean_pay per seat-deal with a t interval over deals")


def _nice_width(span: float, bins: int) -> int:
    raw = max(1.0, span / bins)
    mag = 10 ** math.floor(math.log10(raw))
    for f in (1, 2, 5, 10):
        if f * mag >= raw:
            return int(f * mag)
    return int(10 * mag)        # pragma: no cover


def table_winner_gain(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Distribution of the winner's gain (net points of the winner;
    docs/rules.md §7-§8) over wins: one row per value, or per bin of equal width
    when there are more than 30 distinct values; p and P(gain >= from)."""
    g = ctx.value_counts(lf, "win:winner's gain (points)", winner_gain(), WIN).rename(
        {"x": "gain", "c": "wins"})
    total = int(g["wins"].sum()) if g.height else 0
    width = 1
    if g.height > MAX_GAIN_ROWS:
        span = float(g["gain"].max()) - float(g["gain"].min())  # type: ignore[arg-type]
        width = _nice_width(span, MAX_GAIN_ROWS)
        g = (g.with_columns(((pl.col("gain") // width) * width).alias("gain"))
             .group_by("gain").agg(pl.col("wins").sum()).sort("gain"))
    rows, ge = [], total
    for gain, c in g.iter_rows():
        rows.append({"gain_from": int(gain), "gain_to": int(gain) + width - 1, "wins": int(c),
                     "p": c / total, "p_at_least": ge / total})
        ge -= c
    schema = {"gain_from": pl.Int64, "gain_to": pl.Int64, "wins": pl.Int64, "p": pl.Float64,
              "p_at_least": pl.Float64}
    note = (f"over {total:,} wins; p = P(gain in [from, to] | win), p_at_least = "
            f"P(gain >= from | win)")
    if width > 1:
        note += f"; gains binned by {width} points"
    return Table("winner_gain", "Distribution of the winner's gain (points)",
                 pl.DataFrame(rows, schema=schema), note)


def table_by_seat(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Per seat (E = dealer): P(win) and P(deal in: the seat discarded the
    winning tile or was robbed), with 95% Wilson intervals; plus the
    non-dealers' mean per seat (their Wilson interval of P(a non-dealer ...)
    divided by 3, exact because a deal has one winner and one discarder)."""
    aggs = [pl.len().alias("n")]
    for seat in SEATS:
        w = (pl.col("winner") == seat).fill_null(False)
        aggs += [w.sum().alias(f"w{seat}"),
                 (w & (pl.col("outcome") == "self_drawn")).sum().alias(f"sd{seat}"),
                 (pl.col("discarder") == seat).fill_null(False).sum().alias(f"d{seat}")]
    r = lf.select(aggs).collect(engine="streaming").row(0, named=True)
    n = r["n"]
    rows = []
    for seat in SEATS:
        pw, pd = prop_row(r[f"w{seat}"], n), prop_row(r[f"d{seat}"], n)
        rows.append({"seat": seat, "dealer": seat == "E", "deals": n, "wins": pw["count"],
                     "p_win": pw["p"], "ci_low": pw["ci_low"], "ci_high": pw["ci_high"],
                     "self_drawn": r[f"sd{seat}"], "dealt_in": pd["count"],
                     "p_dealt_in": pd["p"], "di_ci_low": pd["ci_low"],
                     "di_ci_high": pd["ci_high"]})
    others = SEATS[1:]
    k = sum(r[f"w{s}"] for s in others)
    d = sum(r[f"d{s}"] for s in others)
    (wlo, whi), (dlo, dhi) = wilson(k, n), wilson(d, n)
    m = len(others)
    rows.append({"seat": "S W N (per seat)", "dealer": False, "deals": n, "wins": k,
                 "p_win": k / n / m, "ci_low": wlo / m, "ci_high": whi / m,
                 "self_drawn": sum(r[f"sd{s}"] for s in others), "dealt_in": d,
                 "p_dealt_in": d / n / m, "di_ci_low": dlo / m, "di_ci_high": dhi / m})
    schema = {"seat": pl.String, "dealer": pl.Boolean, "deals": pl.Int64, "wins": pl.Int64,
              "p_win": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
              "self_drawn": pl.Int64, "dealt_in": pl.Int64, "p_dealt_in": pl.Float64,
              "di_ci_low": pl.Float64, "di_ci_high": pl.Float64}
    return Table("by_seat", "Win and deal-in rates by seat (E = dealer)",
                 pl.DataFrame(rows, schema=schema),
                 WILSON_NOTE + "; dealt_in = the seat discarded the winning tile or had its "
                 "kong robbed")


def table_flowers_end(lf: pl.LazyFrame, ctx: RunContext) -> Table | None:
    """Game runs: distribution of the number of flowers each seat has set
    aside at the end of the deal (columns flowers_end_*: the flowers of the
    deal's flower replacement and those drawn in play; docs/rules.md §2),
    with the means at the end and after the deal. None for a run written
    before the flowers_end_* columns existed."""
    if not set(S.seat_columns("flowers_end")) <= set(lf.collect_schema().names()):
        return None
    df = seat_distribution(lf, [flower_count(c) for c in S.seat_columns("flowers_end")],
                           "flowers")
    means = seat_means(df, "flowers")
    after = collect(lf.select([flower_count(c).cast(pl.Float64).mean().alias(seat)
                               for c, seat in zip(S.seat_columns("flowers"), SEATS, strict=False)]))
    return Table("flowers_per_seat",
                 "Flowers set aside per seat at the end of the deal (fraction of deals)", df,
                 "mean at the end: " + ", ".join(f"{s} {m:.4f}" for s, m in means.items())
                 + "; after the deal's flower replacement: "
                 + ", ".join(f"{s} {after[s][0]:.4f}" for s in SEATS))


def table_game_length(lf: pl.LazyFrame, ctx: RunContext) -> Table:
    """Mean turns (discards), tiles still drawable at the end and kongs
    declared per deal, with 95% t intervals, min, median and max."""
    cols = [("turns", "turns (discards)"), ("tiles_left", "tiles left"),
            ("kongs", "kongs declared")]
    rows = summary_rows(lf, ctx, [(label, f"all:{c}", pl.col(c)) for c, label in cols])
    return Table("game_length", "Game length per deal", pl.DataFrame(rows, schema=SUMMARY_SCHEMA),
                 T_NOTE + "; n = deals")


def table_matches(lf: pl.LazyFrame, ctx: RunContext) -> Table | None:
    """--format matches: mean match total per player and per policy with 95%
    t intervals over matches (a policy held by several players is scored by
    their mean per match). None for runs of independent deals."""
    mlf = ctx.matches_lf()
    if mlf is None:
        return None
    t = pl.col("total").cast(pl.Float64)
    by_player = (mlf.group_by("player", "policy")
                 .agg(t.count().alias("n"), t.mean().alias("m"), t.std().alias("s"))
                 .sort("player").collect(engine="streaming"))
    by_policy = (mlf.group_by("match", "policy").agg(t.mean().alias("x"))
                 .group_by("policy")
                 .agg(pl.col("x").count().alias("n"), pl.col("x").mean().alias("m"),
                      pl.col("x").std().alias("s"))
                 .sort("policy").collect(engine="streaming"))
    rows = [{"group": f"player {int(p)}", "policy": pol, **mean_row(n, m, s)}
            for p, pol, n, m, s in by_player.iter_rows()]
    rows += [{"group": "policy", "policy": pol, **mean_row(n, m, s)}
             for pol, n, m, s in by_policy.iter_rows()]
    schema = {"group": pl.String, "policy": pl.String, "n": pl.Int64, "mean": pl.Float64,
              "sd": pl.Float64, "se": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64}
    per = (lf.group_by("match").agg(pl.len().alias("d")).select(pl.col("d").mean())
           .collect(engine="streaming").item()) if "match" in lf.collect_schema().names() else None
    note = T_NOTE + "; n = matches; totals in points"
    if per is not None:
        note += f"; {per:.2f} deals per match on average"
    return Table("matches", "Match totals by player and by policy",
                 pl.DataFrame(rows, schema=schema), note)


def table_main_game(tables: dict[str, Table], ctx: RunContext) -> Table:
    """The main game statistics (drawn from the other tables): win rate,
    self-drawn share of wins, wall-exhausted rate (Wilson), mean tai of wins
    or, in fan/fu variants, mean points of wins under the run's points
    scheme (t)."""
    out = tables["outcomes"].df
    rows = []
    for event, label in (("win", "win rate"), ("self-drawn share of wins", "self-drawn share"),
                         ("wall exhausted", "wall-exhausted rate")):
        r = out.filter(pl.col("event") == event).row(0, named=True)
        rows.append({"statistic": label, "estimate": r["p"], "ci_low": r["ci_low"],
                     "ci_high": r["ci_high"], "n": r["n"], "interval": "Wilson"})
    wm = tables["win_means"].df
    if ctx.system == "tai":
        q, label = "tai", "mean tai of wins"
    else:
        scheme = ctx.scheme if f"points ({ctx.scheme})" in wm["quantity"].to_list() \
            else wm["quantity"][2][len("points ("):-1]
        q, label = f"points ({scheme})", f"mean points of wins ({scheme})"
    r = wm.filter(pl.col("quantity") == q).row(0, named=True)
    rows.append({"statistic": label, "estimate": r["mean"], "ci_low": r["ci_low"],
                 "ci_high": r["ci_high"], "n": r["n"], "interval": "t"})
    schema = {"statistic": pl.String, "estimate": pl.Float64, "ci_low": pl.Float64,
              "ci_high": pl.Float64, "n": pl.Int64, "interval": pl.String}
    return Table("main", "Main statistics", pl.DataFrame(rows, schema=schema),
                 "95% intervals: Wilson score (scipy.stats.binomtest) for rates, t for the "
                 "mean; n = deals, or wins for the share and the mean")
