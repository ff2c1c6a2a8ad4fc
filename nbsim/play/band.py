"""``nbsim band``: the play-style band, the same variant played in several styles.

Every statistic nbsim reports comes from some style of play. The band plays a
variant once per style, with that policy in every seat and the same seed (the
same walls), and shows the headline statistics side by side (win rate, wall
exhausted, self-drawn share, mean tai or points of wins, deal-in rate per
seat, dealer advantage, and the per-seat win rates and net points), each
with its 95% interval (``nbsim.compare``: differences from the first style are
paired), and each style's duel against ``value`` (``nbsim.duel``). A figure
that moves little across the band holds whatever the style; one that moves
a lot depends on how the table plays.

Styles are policy specs (``nbsim.policy_specs``); the default band is ``value``,
``defend`` at its default caution and ``defend:caution=0.9`` (careful tables).

The expert reference (``expert``, e.g. ``lookahead``) is a slow, strong
style played on fewer deals (``expert_deals``): the same seed, so its deals
are the first ``expert_deals`` walls of every style's run. It is compared
with one style of the band (``expert_base``, default ``defend``) replayed on
exactly those deals, paired deal by deal: a statistic "moves" when the 95%
interval of expert minus base excludes zero and "holds" otherwise. That
tells which figures of the band depend on how strong the play is.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nbsim.errors import RunError
from nbsim.play.duel import DuelResult, duel
from nbsim.policy_specs import DEFAULT_STYLES, parse_policy
from nbsim.rules.ruleset import as_rules
from nbsim.run.files import MAX_DEALS

if TYPE_CHECKING:
    from nbsim.analysis.compare.compare import Comparison

BAND_MD = "band.md"


@dataclass
class VariantBand:
    """One variant's band: its runs (style -> folder), the comparison of
    the runs (``nbsim.analysis.compare.compare.Comparison``) and the duels against value."""
    variant: str
    styles: list[str]
    runs: dict[str, Path]
    comparison: Comparison
    duels: dict[str, DuelResult] = field(default_factory=dict)
    expert: ExpertReference | None = None

    def tables(self):
        """The band's tables as polars DataFrames of text cells: the
        headline and the per-seat statistics ('estimate [low, high]', a
        column per style), then, with duels, one row per style: its duel
        against value (points per deal and seat, 95% interval) and the
        shares of plays won."""
        import polars as pl
        comp = self.comparison
        head = comp.headline
        rename = dict(zip([c for c in head.columns if c not in ("statistic", "key")],
                          self.styles, strict=False))
        out = [t.drop("key", strict=False).rename(rename) for t in (head, comp.seats)]
        if self.duels:
            rows = []
            for s in self.styles:
                r = self.duels.get(s)
                rows.append([s, "(is value)", ""] if r is None else
                            [s, f"{r.mean:+.3f} [{r.ci_low:+.3f}, {r.ci_high:+.3f}] over "
                                f"{r.deals:,} duplicate deals",
                             f"{r.win_rate_a:.3f} / {r.win_rate_b:.3f}"])
            out.append(pl.DataFrame(rows, orient="row", schema=[
                "style", "duel against value (points per deal and seat)", "plays won"]))
        return out

    def markdown(self) -> str:
        """Headline and per-seat statistics, a column per style, then the duels."""
        from nbsim.stats import markdown_table
        lines = [f"### {self.variant}", ""]
        for t in self.tables():
            lines += [markdown_table(t), ""]
        if self.expert is not None:
            lines.append(self.expert.markdown())
        return "\n".join(lines)

    def text(self) -> str:
        """What ``nbsim band`` prints of the variant: ``tables`` as text no
        wider than ``stats.TEXT_WIDTH`` columns (``stats.text_table``: a
        wide table is stacked in blocks repeating the statistic), then the
        expert reference."""
        from nbsim.stats import text_table
        lines = [self.variant, ""]
        for t in self.tables():
            lines += [text_table(t), ""]
        if self.expert is not None:
            lines.append(self.expert.text())
        return "\n".join(lines)


@dataclass
class ExpertReference:
    """The expert style against one style of the band on the same deals.

    runs: (base run folder, expert run folder), both ``deals`` game deals
    of the band's seed; comparison: ``compare`` of the two (base first, so
    ``comparison.diff`` is expert minus base, paired deal by deal)."""
    expert: str
    base: str
    deals: int
    runs: tuple[Path, Path]
    comparison: Comparison

    def movement(self):
        """One row per headline statistic: statistic, key, base and expert
        'estimate [low, high]' cells, the paired difference (expert minus
        base) with its 95% interval, ``moves`` (True when that interval
        excludes zero) and ``untold`` (True when it has no width, e.g. no
        win among too few deals on either side: such a row neither moves
        nor holds). A polars DataFrame."""
        import polars as pl

        from nbsim.analysis.compare.estimates import HEADLINE_KEYS
        from nbsim.stats import interval_cell
        comp = self.comparison
        diff = comp.diff
        rows = []
        for key in HEADLINE_KEYS["game"]:
            d = diff.filter(pl.col("key") == key)
            st = comp.stats.filter(pl.col("key") == key)
            if not d.height or st.height < 2:
                continue
            r = d.row(0, named=True)
            base_row = st.row(0, named=True)
            exp_row = st.row(1, named=True)
            rows.append({
                "statistic": r["statistic"], "key": key,
                self.base: interval_cell(base_row["estimate"], base_row["ci_low"],
                                         base_row["ci_high"]),
                self.expert: interval_cell(exp_row["estimate"], exp_row["ci_low"],
                                           exp_row["ci_high"]),
                "difference": interval_cell(r["diff"], r["ci_low"], r["ci_high"]),
                "pairing": r["pairing"],
                "moves": bool(r["ci_low"] > 0 or r["ci_high"] < 0),
                "untold": not bool(r["ci_high"] > r["ci_low"])})
        return pl.DataFrame(rows)

    def shown(self, moves: str = "moves"):
        """The movement table as text cells, with an 'expert vs BASE' column
        saying ``moves``, 'holds' or that too few deals tell; empty when no
        headline statistic is in both runs (a polars DataFrame)."""
        import polars as pl
        m = self.movement()
        if not m.height:
            return m
        shown = m.with_columns(
            pl.when(pl.col("untold")).then(pl.lit(UNTOLD))
            .when(pl.col("moves")).then(pl.lit(moves)).otherwise(pl.lit("holds"))
            .alias("expert vs " + self.base)).drop("key", "moves", "untold", "pairing")
        return shown.rename({"difference": f"{self.expert} - {self.base} (paired)"})

    def intro(self) -> str:
        """The sentence above the movement table."""
        return (f"Expert reference: `{self.expert}` against `{self.base}` on the same "
                f"{self.deals:,} deals (the first {self.deals:,} walls of the runs above), "
                "every seat playing the style; the difference is paired deal by deal.")

    def markdown(self) -> str:
        """The movement table with a 'moves'/'holds' column, for band.md."""
        from nbsim.stats import markdown_table
        shown = self.shown("**moves**")
        if not shown.height:
            return ""
        return "\n".join([self.intro(), "", markdown_table(shown), ""])

    def text(self) -> str:
        """The movement table for the terminal: the intro wrapped and the
        table stacked to ``stats.TEXT_WIDTH`` columns."""
        from nbsim.stats import fill, text_table
        shown = self.shown()
        if not shown.height:
            return ""
        return "\n".join([fill(self.intro()), "", text_table(shown), ""])


def _folder(style: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", style).strip("-")


def _status(rs, style: str, deals: int, seed: int, run: Path, shard: int,
            overwrite: bool) -> str:
    """``run``'s status for ``style`` in every seat (``run.simulate.reuse_status``:
    a run of another request is refused unless ``overwrite``)."""
    from nbsim.run.simulate import reuse_status
    return reuse_status(rs, deals=deals, seed=seed, out=run, mode="game",
                        policies=(parse_policy(style).full,) * 4, shard_size=shard,
                        overwrite=overwrite)


def _runs_of(rs, specs: Sequence[str], deals: int, out: Path, shard: int,
             expert: str | None, expert_base: str, expert_deals: int
             ) -> list[tuple[str, str, int, Path, int]]:
    """The runs of one variant: (role "band" or "expert", style, deals,
    folder, shard size); the expert's pair is its base, then the expert."""
    runs = [("band", s, deals, out / rs.name / _folder(s), shard) for s in specs]
    if expert is not None:
        # small shards: the expert is slow, and a finished shard survives an interruption
        xs = max(2, min(250, -(-expert_deals // 4)))
        where = out / rs.name / f"expert-{expert_deals}"
        runs += [("expert", s, expert_deals, where / _folder(s), xs)
                 for s in (expert_base, expert)]
    return runs


def _played(rs, style: str, deals: int, seed: int, run: Path, shard: int,
            workers: int | None, progress: bool | None, overwrite: bool = False) -> Path:
    """The run folder of ``style`` in every seat (``deals`` game deals of
    ``seed``): reused when finished, resumed when partial, else played (a
    run of another request is replaced only with ``overwrite``)."""
    from nbsim.run.simulate import rerun_to_resume, simulate
    pols = (parse_policy(style).full,) * 4
    status = _status(rs, style, deals, seed, run, shard, overwrite)
    if status != "complete":
        with rerun_to_resume("band"):
            simulate(rs, mode="game", deals=deals, seed=seed, out=run, policies=pols,
                     workers=workers, progress=progress, resume=status == "partial",
                     overwrite=status == "different", shard_size=shard)
    return run


def _duel_kept(rs, style: str, deals: int, seed: int, folder: Path, overwrite: bool
               ) -> tuple[Path, dict, DuelResult | None]:
    """(its file, its key, the kept result or None) of ``style``'s duel
    against value. A kept duel of another request (other rules, policies,
    deals or seed; a new nbsim version only replays it) is refused unless
    ``overwrite`` (RunError): finished work is never lost silently."""
    from nbsim.run.shards import nbsim_version
    key = {"config": rs.hash, "a": parse_policy(style).full,
           "b": parse_policy("value").full, "deals": deals, "seed": seed,
           "nbsim_version": nbsim_version()}
    path = folder / f"{_folder(style)}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        kept = data["key"]
        if kept == key:
            return path, key, DuelResult(**data["result"])
        kept = dict(kept)
    except (OSError, ValueError, TypeError, KeyError):
        return path, key, None                # absent or unreadable: play it
    other = [k for k in key if k != "nbsim_version" and kept.get(k) != key[k]]
    if other and not overwrite:
        raise RunError(f"{str(path)!r} holds a duel of another request ("
                       + "; ".join(f"{k} is {key[k]!r}, the kept one's is {kept.get(k)!r}"
                                   for k in other)
                       + "); give another --out, or --overwrite to replace it")
    return path, key, None


def _dueled(rs, style: str, deals: int, seed: int, folder: Path,
            progress: Callable[[int], None] | None, overwrite: bool = False) -> DuelResult:
    """``style``'s duel against value (``deals`` duplicate deals of
    ``seed``), kept in ``folder/<style>.json`` with what decides it (the rules
    hash, both policies, deals, seed, nbsim version) and reused while those
    match, so a band written again from finished runs replays no duel
    (``_duel_kept``)."""
    path, key, kept = _duel_kept(rs, style, deals, seed, folder, overwrite)
    if kept is not None:
        return kept
    from nbsim.run.files import write_atomic
    result = duel(rs, style, "value", deals, seed, progress=progress)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps({"key": key, "result": asdict(result)}, indent=1)
                 .encode("utf-8"), path.with_name(path.name + ".tmp"))
    return result


# a difference whose interval has no width: too few deals (or events) to vary
UNTOLD = "too few deals to tell"
# fewer expert deals than this: band.md warns that its intervals are wide
FEW_EXPERT_DEALS = 1_000


def expert_summary(result: Sequence[VariantBand]) -> str:
    """The expert reference across variants, for the head of band.md: one
    row per headline statistic, one column per variant with an expert, each
    cell the paired difference (expert minus base) with its 95% interval,
    in bold when it moves. '' when no variant has an expert."""
    experts = {vb.variant: vb.expert for vb in result if vb.expert is not None}
    if not experts:
        return ""
    import polars as pl

    from nbsim.stats import markdown_table
    withx = [vb for vb in result if vb.variant in experts]
    x = next(iter(experts.values()))
    cells: dict[str, dict[str, str]] = {}
    order: list[str] = []
    moves = {v: e.movement() for v, e in experts.items()}
    for vb in withx:
        for r in moves[vb.variant].iter_rows(named=True):
            name = r["statistic"]
            if name not in cells:
                cells[name] = {}
                order.append(name)
            cells[name][vb.variant] = (f"{r['difference']} ({UNTOLD})" if r["untold"]
                                       else f"**{r['difference']}**" if r["moves"]
                                       else r["difference"])
    table = pl.DataFrame([{"statistic": n, **{vb.variant: cells[n].get(vb.variant, "-")
                                              for vb in withx}} for n in order])
    moved = {v: int(m["moves"].sum()) for v, m in moves.items()}
    untold = sum(int(m["untold"].sum()) for m in moves.values())
    caveats = []
    if untold:
        caveats.append(f"{untold} cell{'s' if untold > 1 else ''} marked '{UNTOLD}' "
                       f"{'have' if untold > 1 else 'has'} an interval of no width (no event "
                       f"varied among the deals): they neither move nor hold.")
    if x.deals < FEW_EXPERT_DEALS:
        caveats.append(f"Only {x.deals:,} deals per variant: the intervals are wide, so "
                       f"'holds' says little here (the documented band, `make band`, uses "
                       f"5,000).")
    return "\n".join([
        "## Does strong play move the figures?", "",
        f"`{x.expert}` (the expert reference) and `{x.base}` replay the first "
        f"{x.deals:,} walls of each variant's runs below, every seat playing the "
        f"style. Each cell is {x.expert} minus {x.base}, paired deal by deal, "
        "with its 95% interval; **bold**: the interval excludes zero, the figure "
        "moves with the strength of play; plain: it holds. Moving statistics "
        "per variant: " + ", ".join(f"{v} {n}" for v, n in moved.items()) + ". "
        "How much stronger the expert is than its base is measured apart, in duels "
        "(`nbsim duel VARIANT --a EXPERT --b BASE`; docs/lookahead.md for lookahead): "
        "a figure that holds here holds for play as strong as the expert's."
        + "".join(" " + c for c in caveats), "",
        markdown_table(table), ""])


def band(configs: Sequence[str | Path] | str, *, deals: int, seed: int, out: str | Path,
         styles: Sequence[str] = DEFAULT_STYLES, duel_deals: int = 0,
         workers: int | None = None,
         progress: bool | None = None,
         duel_progress: Callable[[int], None] | None = None,
         expert: str | None = None, expert_deals: int | None = None,
         expert_base: str | None = None,
         expert_on: Sequence[str] | None = None,
         overwrite: bool = False) -> list[VariantBand]:
    """Play each of ``configs`` once per style (``deals`` game deals, policy in
    every seat, seed ``seed``) into ``out/<variant>/<style>/`` (finished runs
    are reused), compare them, and duel each style but value against value
    with ``duel_deals`` duplicate deals (0: no duels; a finished duel is
    kept in ``out/<variant>/duels/`` and reused). Writes ``out/band.md``
    (with ``expert``: headed by ``expert_summary``) and returns one
    VariantBand per config.

    ``expert`` (a policy spec, e.g. ``lookahead``; None: no expert): also
    play the expert and ``expert_base`` (a style of the band; default
    defend) on the first ``expert_deals`` deals (default 5,000) into
    ``out/<variant>/expert-<deals>/<style>/`` and compare them paired
    (``ExpertReference``; a partial expert run is resumed, so an
    interrupted band loses no finished shard). ``expert_on``:
    the variant names the expert plays (None: every config); the others
    show the band without it.

    ``overwrite``: replace runs and duels in ``out`` that another request
    made (another seed, count, style or rules); without it such a run or
    duel is refused before anything is played.

    Raises ConfigError / RunError for a bad config, style, count, seed or
    folder, an ``expert_base`` that is not one of the styles,
    ``expert_deals``, ``expert_base`` or ``expert_on`` without an expert, or
    a run or duel of another request in ``out`` without ``overwrite``."""
    from nbsim.analysis.compare.compare import compare
    from nbsim.args import whole_number

    deals = whole_number(deals, "--deals", error=RunError)
    seed = whole_number(seed, "--seed", error=RunError)
    if expert is None:
        given = [n for n, v in (("expert_deals", expert_deals), ("expert_base", expert_base),
                                ("expert_on", expert_on)) if v is not None]
        if given:
            raise RunError(f"{' and '.join(given)} {'needs' if len(given) == 1 else 'need'} "
                           f"an expert reference style (expert='lookahead')")
    expert_deals = 5_000 if expert_deals is None else expert_deals
    expert_base = "defend" if expert_base is None else expert_base

    if isinstance(configs, (str, Path)):
        configs = [configs]
    if isinstance(styles, str):
        styles = [s.strip() for s in styles.split(",")]
    specs = [parse_policy(s).spec for s in styles]
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise RunError(f"a band needs two or more different styles, got {specs}")
    if expert is not None:
        expert = parse_policy(expert).spec
        expert_base = parse_policy(expert_base).spec
        if expert_base not in specs:
            raise RunError(f"expert base {expert_base!r} is not a style of the band; "
                           f"styles: {', '.join(specs)}")
        if expert == expert_base:
            raise RunError(f"the expert {expert!r} is its own base; name another style")
        if (isinstance(expert_deals, bool) or not isinstance(expert_deals, int)
                or not 2 <= expert_deals <= deals):
            raise RunError(f"--expert-deals must be a whole number 2 .. --deals ({deals:,}): "
                           f"the expert replays the first walls of the band's runs; got "
                           f"{expert_deals!r}")
    if (isinstance(duel_deals, bool) or not isinstance(duel_deals, int)
            or not (duel_deals == 0 or 2 <= duel_deals <= MAX_DEALS)):
        raise RunError(f"--duel-deals must be 0 (no duels) or a whole number 2 .. "
                       f"{MAX_DEALS:,} (an interval needs two deals), got {duel_deals!r}")
    from nbsim.analysis.sweeps import folder_of_runs
    out = folder_of_runs(out, "a band", "a folder per variant with a run per style")
    rulesets = [as_rules(c) for c in configs]
    if expert_on is not None:
        names = [rs.name for rs in rulesets]
        unknown = [v for v in expert_on if v not in names]
        if unknown:
            raise RunError(f"--expert-on {unknown[0]!r} is not a variant of this band; "
                           f"variants: {', '.join(names)}")
    # four shards per run (at most the default 100,000 deals each), so that
    # every worker thread plays; the shard size changes no row
    shard = min(100_000, max(1_000, -(-deals // 4)))
    plans = [(rs, _runs_of(rs, specs, deals, out, shard,
                           expert if expert is not None and (expert_on is None
                                                             or rs.name in expert_on) else None,
                           expert_base, expert_deals)) for rs in rulesets]
    for rs, runs_of in plans:          # a run or duel of another request: refused before any play
        for _, s, n, folder, size in runs_of:
            _status(rs, s, n, seed, folder, size, overwrite)
        for s in specs if duel_deals else ():
            if s != "value":
                _duel_kept(rs, s, duel_deals, seed, out / rs.name / "duels", overwrite)
    result = []
    for rs, runs_of in plans:
        played = [(role, s, _played(rs, s, n, seed, folder, size, workers, progress,
                                    overwrite))
                  for role, s, n, folder, size in runs_of]
        runs = {s: run for role, s, run in played if role == "band"}
        comp = compare([runs[s] for s in specs])
        vb = VariantBand(rs.name, specs, runs, comp)
        pair = [run for role, _, run in played if role == "expert"]
        if pair:
            assert expert is not None
            vb.expert = ExpertReference(expert, expert_base, expert_deals, (pair[0], pair[1]),
                                        compare(pair))
        if duel_deals:
            for s in specs:
                if s != "value":
                    vb.duels[s] = _dueled(rs, s, duel_deals, seed,
                                          out / rs.name / "duels", duel_progress, overwrite)
        result.append(vb)
    text = ["# The play-style band", "",
            f"{deals:,} game deals per style and variant, seed {seed}, the style's policy in "
            "every seat (`nbsim band`). Intervals are 95%; differences between styles are "
            "paired (same walls).", ""]
    summary = expert_summary(result)
    if summary:
        text.append(summary)
    for vb in result:
        text.append(vb.markdown())
    out.mkdir(parents=True, exist_ok=True)
    (out / BAND_MD).write_text("\n".join(text) + "\n", encoding="utf-8")
    return result
