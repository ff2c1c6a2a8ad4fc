"""``nbsim advise``'s output: the advice as an aligned text table
(``format_advice``, with ``describe_position`` for its head), as plain data
(``advice_json``: ``--json``) and as a bar chart of the expected payments
(``plot_advice``: ``--plot``). Units: payments in points per deal for the
seat, probabilities per deal, 95% intervals (mean +- 1.96 se).
"""
from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nbsim.args import writable_file
from nbsim.errors import RunError
from nbsim.play.advice.fits import (
    TARGET_LABELS,
    Advice,
    CandidateAdvice,
    TargetFit,
    fit_key,
)
from nbsim.play.advice.notation import SEATS
from nbsim.rules.tiles import KIND_NAMES, format_tiles
from nbsim.stats import fill

__all__ = ["describe_position", "format_advice", "advice_json", "plot_advice", "waits_cell",
           "race_line"]


def _fit_cell(fits: Sequence[TargetFit], family: str) -> str:
    """'1/24' (shanten / acceptance) of a target; a flush family shows its
    best suit ('p 3/12'); '-' when the melds rule it out, 'x' marks a target
    the variant does not let win."""
    pool = [f for f in fits if f.target == family or f.target.startswith(family + "_")]
    if not pool:
        return "-"
    f = min(pool, key=fit_key)
    suit = f.target[-1] + " " if f.target != family else ""
    star = "*" if f.shanten == 0 and f.legal_ready is False else ""
    return f"{suit}{f.shanten}{star}/{f.acceptance}{'' if f.allowed else 'x'}"


def waits_cell(c: CandidateAdvice) -> str:
    """The legal waits of a move ('1z 5z 9m'; '(s)' a legal win only
    self-drawn, '(d)' only on a discard), 'no legal win' when tiles complete
    the hand but none into a legal win, '-' when none completes it."""
    if not c.waits:
        return "-"
    legal = [KIND_NAMES[k] + ("" if sd and dc else "(s)" if sd else "(d)")
             for k, sd, dc in c.waits if sd or dc]
    return " ".join(legal) if legal else "no legal win"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Rows under ``header`` as text columns (``stats.text_table``: the move
    left-aligned, blocks stacked when wider than the terminal)."""
    import polars as pl

    from nbsim.stats import text_table
    cols = [f"{i}" for i in range(len(header))]
    df = pl.DataFrame([dict(zip(cols, r, strict=True)) for r in rows], schema=cols,
                      orient="row").rename(dict(zip(cols, header, strict=True)))
    return text_table(df, left=True).split("\n")


def _candidate_tables(adv: Advice, raced: bool) -> list[str]:
    """The candidates' rows, best first. Simulated: a main table of what
    decides (move, waits, deals, P(win), E[pay] with its interval, vs best,
    deal-in), then a second of the detail (shanten/acceptance per target,
    deal-in to each opponent, exact own-draw P(win)); else one table of the
    targets and waits."""
    me = adv.position.seat
    opp = [s for s in range(4) if s != me]
    sim = adv.simulated
    paired = adv.ranked_by == "lookahead"
    has_exact = any(c.exact_p_win is not None for c in adv.candidates)
    targets = ["open", "full flush", "half flush", "all pungs"]
    main = ["move", "waits", *(["deals"] if raced else [])]
    detail = ["move", *targets]
    if sim:
        main += ["P(win)", "E[pay] [95% CI]", *(["vs best [95% CI]"] if paired else []),
                 "deal-in"]
        detail += [f"to {SEATS[s]}" for s in opp]
    if has_exact:
        detail.append("exact own-draw P(win)")
    # the first simulated row is the reference of "vs best" (a legal win,
    # not simulated, may stand above it)
    top = next((c for c in adv.candidates if c.mean_pay is not None), None)
    rows_main, rows_detail = [], []
    for c in adv.candidates:
        label = c.label + (f" then {KIND_NAMES[c.then_discard]}" if c.then_discard >= 0 else "")
        m = [label, "" if c.action == "win" else waits_cell(c)]
        d = [label] + [(("complete" if fam == "open" else "") if c.action == "win"
                        else _fit_cell(c.targets, fam))
                       for fam in ("open", "full_flush", "half_flush", "all_pungs")]
        if raced:
            m.append("-" if c.deals is None else str(c.deals))
        if sim:
            won = _won(c, me)
            if won is not None:
                # a legal win ends the deal: its payment is certain, not sampled
                m += ["1", f"{won:+.2f} (certain)"] + ["-"] * paired + ["0"]
                d += ["0"] * len(opp)
            elif c.mean_pay is None:
                m += ["-"] * (3 + paired)
                d += ["-"] * len(opp)
            else:
                m += [f"{c.p_win:.3f}", f"{c.mean_pay:+.2f} [{c.pay_low:+.2f}, "
                      f"{c.pay_high:+.2f}]"]
                if paired:
                    m.append(("best" if c is adv.recommended else "best simulated")
                             if c is top else
                             f"{c.diff:+.2f} [{c.diff_low:+.2f}, {c.diff_high:+.2f}]"
                             + (" ~" if c.within_noise else ""))
                m.append(f"{c.p_deal_in:.3f}")
                d += [f"{(c.p_deal_in_to or (0.0,) * 4)[s]:.3f}" for s in opp]
        if has_exact:
            d.append("-" if c.exact_p_win is None else
                     f"{c.exact_p_win:.3f} ({c.exact_draws} "
                     f"draw{'' if c.exact_draws == 1 else 's'})")
        rows_main.append(m)
        rows_detail.append(d)
    if not sim:
        # not simulated: the targets and the waits in one table
        return _table([*detail, *main[1:]],
                      [d + m[1:] for d, m in zip(rows_detail, rows_main, strict=True)])
    return [*_table(main, rows_main), "", *_table(detail, rows_detail)]


def describe_position(adv: Advice) -> list[str]:
    """The position in words and notation (the head of ``format_advice``)."""
    st = adv.state
    lines = [f"{adv.variant}: seat {st['seat']}, round {st['round']}"
             + (f", indicator {st['indicator']} (wilds: "
                f"{' '.join(KIND_NAMES[k] for k in adv.wilds)})" if 'indicator' in st else "")
             + f", {st['wall_left']} tile{'' if st['wall_left'] == 1 else 's'} left to draw"]
    mine = " ".join(st.get("melds", {}).get(st["seat"], []))
    lines.append(f"hand {st['hand']}" + (f"  melds {mine}" if mine else "")
                 + (f"  drawn {st['drawn']}" if "drawn" in st else ""))
    if adv.decision == "claim":
        lines.append(f"offered {st['offered']} discarded by {st['from']}: pass or claim")
    for s in SEATS:
        bits = []
        if s != st["seat"] and st.get("melds", {}).get(s):
            bits.append("melds " + " ".join(st["melds"][s]))
        if st.get("discards", {}).get(s):
            bits.append("discards " + st["discards"][s])
        if st.get("flowers", {}).get(s):
            bits.append("flowers " + st["flowers"][s])
        if st.get("passed", {}).get(s):
            bits.append("let go by " + st["passed"][s])
        if bits:
            lines.append(f"  {s}: " + "  ".join(bits))
    return lines


def _advice(adv: Advice, what: str) -> Advice:
    """``adv`` when it is an Advice; else RunError naming what was given."""
    if not isinstance(adv, Advice):
        raise RunError(f"{what}: expected an Advice (nbsim.advise or build_advice), got "
                       f"{type(adv).__name__}")
    return adv


def _won(c: CandidateAdvice, me: int) -> float | None:
    """The seat's payment (points) when ``c`` is a legal win; else None."""
    if c.action != "win" or c.score is None or not c.score.win:
        return None
    return float((c.score.payments or {}).get(SEATS[me], 0))


def format_advice(adv: Advice) -> str:
    """The advice as text no wider than ``stats.TEXT_WIDTH`` columns: one
    row per candidate, best first, in a main table (the waits, the deals
    played, P(win), the expected payment with its 95% interval, the paired
    difference to the best and the deal-in chance) and a detail table
    (shanten/acceptance per target, the deal-in chance to each opponent and
    the exact own-draw P(win)); then the recommendation and a legend
    (units: points per deal, probabilities). Unsimulated advice shows the
    targets and the waits in one table. Raises RunError when ``adv`` is
    not an Advice."""
    lines = describe_position(_advice(adv, "format_advice"))
    if adv.decision == "discard":
        n = sum(c.action == "discard" for c in adv.candidates)
        kongs = sum(c.action == "kong" for c in adv.candidates)
        what = ("discard candidate" + ("" if n == 1 else "s") + (", a self-drawn win" if any(
            c.action == "win" for c in adv.candidates) else "")
                + (f", {kongs} kong{'s' if kongs > 1 else ''}" if kongs else ""))
    else:
        n = len(adv.candidates)
        what = "claim candidate" + ("s" if n != 1 else "")
    sim = adv.simulated
    raced = sim and adv.rounds > 1
    if raced:
        lines.append(f"{n} {what}, raced on sampled deals from seed {adv.seed} "
                     f"({race_line(adv)}), the rest of the deal played by {adv.base}, "
                     f"opponents model {adv.opponents}")
    elif sim:
        lines.append(f"{n} {what}, {adv.samples} sampled deals each from seed "
                     f"{adv.seed}, the rest of the deal played by {adv.base}, opponents "
                     f"model {adv.opponents}")
    else:
        lines.append(f"{n} {what}, ranked by shanten and tile acceptance "
                     f"(not simulated: --samples 0)")
    lines = [fill(line, indent="    ") for line in lines]
    lines.append("")
    lines += _candidate_tables(adv, raced)
    lines.append("")
    me = adv.position.seat
    paired = adv.ranked_by == "lookahead"
    has_exact = any(c.exact_p_win is not None for c in adv.candidates)
    best = adv.recommended
    rec: list[str] = []
    if paired and best.mean_pay is not None:
        rec.append(f"recommended: {_move(best)} (expected {best.mean_pay:+.2f} points per "
                     f"deal [{best.pay_low:+.2f}, {best.pay_high:+.2f}], P(win) "
                     f"{best.p_win:.3f}, P(deal in) {best.p_deal_in:.3f})")
        if adv.reason:
            rec.append(f"why: {adv.reason}")
        close = adv.close
        if close:
            rec.append("within the noise of it (the paired 95% interval of the difference "
                         "holds 0): " + ", ".join(_move(c) for c in close)
                         + "; more --samples or --budget would tell them apart")
        else:
            # the next simulated move (an illegal win is listed but not played)
            runner = next((c for c in adv.candidates
                           if c is not best and c.mean_pay is not None), None)
            if runner is not None:
                rec.append(f"the runner-up, {_move(runner)}, is behind by more than the noise "
                           f"(its paired 95% interval lies below 0)")
        if adv.stopped == "budget":
            rec.append(f"the {adv.budget:g} s budget ended the race: --samples {adv.samples} "
                       f"with this seed gives this answer again")
    elif _won(best, me) is not None:
        rec.append(f"recommended: {_move(best)}, a legal win ({_won(best, me):+.2f} points "
                   f"to the seat, certain)")
    else:
        b = best.best_target
        rec.append(f"recommended by shanten and acceptance: {_move(best)}"
                     + (f" ({_target_label(b.target)}: {b.shanten}"
                        f"{'*' if b.legal_shanten != b.shanten else ''} from ready, "
                        f"{b.acceptance} tiles accepted)" if b is not None else ""))
        if adv.reason:
            rec.append(f"why: {adv.reason}")
    rec += [f"note: {note}" for note in adv.notes]
    lines += [fill(t, indent="  ") for t in rec]
    legend = ["open / full flush / half flush / all pungs: shanten/acceptance toward the target "
              "(0 = ready for a legal win; 0*: ready, but every hand its waits complete is not "
              "a legal win, e.g. under the variant's minimum tai, so it ranks as 1 from ready; "
              "acceptance = unseen tiles that lower the shanten; a flush shows its best suit; "
              "x: not a winning pattern in this variant; -: ruled out by the melds; "
              "docs/rules.md §10.2)",
              "waits: the tiles that complete the hand after the move into a legal win, "
              "self-drawn and on a discard ((s): only self-drawn, (d): only on a discard); "
              "no legal win: tiles complete it, none into a legal win; -: not ready"]
    if raced:
        legend.append("deals: the sampled deals a move was played on; the race drops a move "
                      "once its paired 95% interval to the leader lies below 0 and plays the "
                      "rest on new common deals; a dropped move is never within the noise (its "
                      "vs best is to the final best on its own deals)")
    if sim:
        legend.append("E[pay]: mean payment to the seat in points per deal, 95% interval mean "
                      "+- 1.96 se; P(win), deal-in (in total and to each opponent): "
                      "probabilities per deal"
                      + ("; vs best: paired difference on the same sampled deals, ~ within "
                         "the noise" if paired else ""))
    if has_exact:
        legend.append("exact own-draw P(win): exact (own draws, no opponents): the chance that "
                      "the seat's own remaining draws complete the ready hand if nobody else "
                      "wins, claims or declares a kong and the seat keeps its hand; a flower "
                      "drawn by any seat is replaced from the tiles left without a turn, and "
                      "Ninghai's reserve is never drawn (docs/lookahead.md); (n draws): the "
                      "most own draws, every fourth tile left")
    lines.append("")
    lines += [fill(t, indent="  ") for t in legend]
    return "\n".join(lines)


def race_line(adv: Advice) -> str:
    """'3 rounds, 800 deals for the best, decided: one move left' and the
    like: how the race over the candidates went and why it ended."""
    why = {"decided": "ended with one move left",
           "samples": f"ended at its cap of {adv.cap} deals",
           "budget": f"ended by the {adv.budget:g} s budget" if adv.budget else "ended"}
    return (f"{adv.rounds} round{'' if adv.rounds == 1 else 's'}, {adv.samples} deals for "
            f"the best, {why.get(adv.stopped, 'ended')}")


def _move(c: CandidateAdvice) -> str:
    if c.action == "discard":
        return f"discard {c.label}"
    if c.then_discard >= 0:
        return f"{c.label}, then discard {KIND_NAMES[c.then_discard]}"
    return c.label


def _target_label(name: str) -> str:
    for fam, label in TARGET_LABELS.items():
        if name == fam:
            return label
        if name.startswith(fam + "_"):
            return f"{label} ({name[-1]})"
    return name


def _json_num(x):
    if x is None:
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def advice_json(adv: Advice) -> dict[str, Any]:
    """The advice as plain data (``nbsim advise --json``): the variant, the
    table state in notation, the decision, the wilds, the lookahead's
    settings, the candidates best first (tiles in notation, every number of
    ``CandidateAdvice``, targets with shanten, acceptance and the kinds
    accepted), the recommendation, the candidates within the noise and the
    notes. Payments are points per deal; probabilities per deal. Raises
    RunError when ``adv`` is not an Advice."""
    cands = []
    for c in _advice(adv, "advice_json").candidates:
        d: dict[str, Any] = {
            "move": _move(c), "action": c.action, "tile": KIND_NAMES[c.kind], "code": c.code,
            "chow": format_tiles([c.chow, c.chow + 1, c.chow + 2]) if c.chow >= 0 else None,
            "then_discard": KIND_NAMES[c.then_discard] if c.then_discard >= 0 else None,
            "targets": [{"target": f.target, "shanten": f.shanten, "acceptance": f.acceptance,
                         "accepted": format_tiles(f.accepted), "allowed": f.allowed,
                         "legal_ready": f.legal_ready,
                         **({"then_discard": KIND_NAMES[f.then_discard]}
                            if f.then_discard >= 0 else {})}
                        for f in c.targets]}
        for name in ("mean_pay", "se_pay", "pay_low", "pay_high", "p_win", "se_win",
                     "p_deal_in", "p_exhausted", "diff", "diff_se", "diff_low", "diff_high",
                     "exact_p_win", "exact_draws"):
            d[name] = _json_num(getattr(c, name))
        d["p_deal_in_to"] = ({SEATS[s]: _json_num(v) for s, v in enumerate(c.p_deal_in_to)}
                             if c.p_deal_in_to is not None else None)
        d["within_noise"] = c.within_noise
        d["deals"] = c.deals
        d["dropped"] = c.dropped
        d["win_pay"] = _json_num(c.win_pay)
        d["waits"] = [{"tile": KIND_NAMES[k], "self_drawn": sd, "discard": dc}
                      for k, sd, dc in c.waits]
        if c.score is not None:
            d["win"] = {"legal": c.score.win, "why": c.score.why, "tai": c.score.tai,
                        "fan": c.score.fan, "payments": c.score.payments}
        cands.append(d)
    return {"variant": adv.variant, "state": adv.state, "decision": adv.decision,
            "wilds": format_tiles(adv.wilds) if adv.wilds else "",
            "ranked_by": adv.ranked_by, "simulated": adv.simulated,
            "samples": adv.samples, "seed": adv.seed, "budget": adv.budget,
            "cap": adv.cap, "rounds": adv.rounds, "stopped": adv.stopped or None,
            "reason": adv.reason,
            "base": adv.base, "opponents": adv.opponents,
            "units": {"pay": "points per deal for the seat",
                      "p": "probability per deal",
                      "interval": "95%, mean +- 1.96 se"},
            "recommended": _move(adv.recommended),
            "within_noise": [_move(c) for c in adv.close],
            "candidates": cands, "notes": list(adv.notes)}


def plot_path(path: str | Path) -> Path:
    """``path`` checked as the target of ``--plot`` before any work is done:
    a file name whose extension is an image format matplotlib writes (.png,
    .svg, .pdf, ...), in an existing folder where this process can create
    it (``args.writable_file``, which opens it to check). Raises RunError
    naming what is wrong and what is allowed."""
    from matplotlib.backend_bases import FigureCanvasBase
    path = Path(path)
    formats = sorted(FigureCanvasBase.get_supported_filetypes())
    if path.suffix.lower().lstrip(".") not in formats:
        raise RunError(f"--plot {str(path)!r}: the file name must end in an image format: "
                       + ", ".join("." + f for f in formats) + " (.png is the usual one)")
    return writable_file(path, "--plot", error=RunError)


def plot_advice(adv: Advice, path: str | Path) -> Path:
    """A bar chart (PNG, or the format of ``path``'s extension) of each
    candidate's expected payment (points per deal) with its 95% interval,
    best first, the recommendation highlighted and a zero line; the caption
    names the position and the lookahead's settings. Raises RunError when
    the advice was not simulated (samples 0: there is no payment to draw)
    or for a bad ``path`` (``plot_path``) or an ``adv`` that is not an Advice."""
    from nbsim.analysis.plots import save_figure, subplots
    rows = [c for c in _advice(adv, "plot_advice").candidates if c.mean_pay is not None]
    if not rows:
        raise RunError("--plot: the candidates were not simulated (--samples 0), so there is "
                       "no expected payment to plot; give --samples N")
    path = plot_path(path)
    fig, ax = subplots(figsize=(max(5.0, 0.65 * len(rows) + 2.0), 4), dpi=110)
    xs = list(range(len(rows)))
    means = [c.mean_pay or 0.0 for c in rows]
    lo = [m - (c.pay_low if c.pay_low is not None else m) for m, c in zip(means, rows,
                                                                          strict=True)]
    hi = [(c.pay_high if c.pay_high is not None else m) - m for m, c in zip(means, rows,
                                                                            strict=True)]
    colors = ["tab:green" if c is rows[0] else
              ("tab:olive" if c.within_noise else "tab:blue") for c in rows]
    ax.bar(xs, means, color=colors, alpha=0.85)
    ax.errorbar(xs, means, yerr=[lo, hi], fmt="none", color="black", capsize=4)
    ax.axhline(0.0, color="#444", linewidth=0.8)
    ax.set_xticks(xs)
    ax.set_xticklabels([c.label if c.then_discard < 0 else
                        f"{c.label}\nthen {KIND_NAMES[c.then_discard]}" for c in rows],
                       fontsize=8)
    ax.set_ylabel("expected payment (points per deal)")
    best = ("the recommendation" if rows[0] is adv.recommended else
            f"the best simulated; recommended: {_move(adv.recommended)}")
    title = (f"{adv.variant}: {adv.decision} candidates in the advice's order (green: "
             f"{best}; olive: within its noise), 95% intervals")
    # about 13 characters of the 9-point title per inch of width
    ax.set_title(textwrap.fill(title, int(fig.get_figwidth() * 13)), fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    st = adv.state
    caption = (f"seat {st['seat']}, round {st['round']}, hand {st['hand']}"
               + (f", indicator {st['indicator']}" if "indicator" in st else "")
               + (f", offered {st['offered']} by {st['from']}" if "offered" in st else "")
               + f", {st['wall_left']} tiles left; {adv.samples} playouts per candidate, "
                 f"seed {adv.seed}, rest played by {adv.base}, opponents model "
                 f"{adv.opponents} (nbsim advise)")
    try:
        return save_figure(fig, path, caption)
    except OSError as e:
        raise RunError(f"--plot {str(path)!r}: cannot write ({e.strerror or e})") from None
