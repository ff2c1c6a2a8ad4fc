"""nbsim band and nbsim ladder: the play-style band (runs per style, their
comparison, duels against value, band.md; finished runs reused) and the
ladder of duels (every pair, the same figures as nbsim duel)."""
import json

import polars as pl
import pytest

from nbsim.errors import RunError
from nbsim.play.band import BAND_MD, band
from nbsim.play.duel import duel
from nbsim.play.ladder import ladder
from nbsim.run.files import open_run


@pytest.fixture(scope="module")
def banded(tmp_path_factory):
    out = tmp_path_factory.mktemp("band") / "b"
    res = band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
               duel_deals=200, workers=2, progress=False)
    return out, res


def test_band_plays_each_style_and_duels_it(banded):
    out, res = banded
    (vb,) = res
    assert vb.variant == "ningbo-3baida" and vb.styles == ["value", "defend"]
    for style, run in vb.runs.items():
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["policies"][0].startswith(style) and manifest["deals"] == 4_000
        assert len(manifest["shards"]) == 4            # every worker plays
        df = open_run(run).lf.collect()
        won = df.filter(pl.col("winner").is_not_null()).height / df.height
        est = vb.comparison.stats.filter((pl.col("key") == "win_rate")
                                         & (pl.col("run") == vb.comparison.runs[
                                             vb.styles.index(style)]["label"]))
        assert est["estimate"].item() == pytest.approx(won)
    assert set(vb.duels) == {"defend"} and vb.duels["defend"].deals == 200
    again = duel("ningbo-3baida", "defend", "value", 200, 3)
    assert vb.duels["defend"].mean == again.mean
    md = (out / BAND_MD).read_text()
    assert "### ningbo-3baida" in md and "| defend |" in md and "win rate" in md


def test_band_reuses_finished_runs(banded):
    out, res = banded
    stamps = {s: (r / "manifest.json").stat().st_mtime_ns for s, r in res[0].runs.items()}
    band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
         duel_deals=0, workers=2, progress=False)
    assert {s: (r / "manifest.json").stat().st_mtime_ns
            for s, r in res[0].runs.items()} == stamps


def test_band_expert_reference_is_paired_on_the_first_walls(banded):
    """The expert and its base replay the first N deals of the band's walls;
    a style that folds far more (caution 0.9) moves the wall-exhausted rate
    beyond its interval, and the movement table says so."""
    out, _ = banded
    res = band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
               duel_deals=0, workers=2, progress=False, expert="defend:caution=0.9",
               expert_deals=2_000, expert_base="defend")
    (vb,) = res
    x = vb.expert
    assert x is not None and x.deals == 2_000 and x.base == "defend"
    base_run, expert_run = x.runs
    full = open_run(vb.runs["defend"]).lf.collect().sort("deal").head(2_000)
    replay = open_run(base_run).lf.collect().sort("deal")
    assert replay.height == 2_000
    assert replay.drop("run_id", strict=False).equals(
        full.drop("run_id", strict=False).select(replay.drop("run_id", strict=False).columns))
    ex = open_run(expert_run).lf.collect()
    exhausted = ex.filter(pl.col("winner").is_null()).height / ex.height
    m = x.movement()
    row = m.filter(pl.col("key") == "wall_exhausted_rate").row(0, named=True)
    assert row["moves"] and row["pairing"] == "paired"
    assert row["defend:caution=0.9"].startswith(f"{exhausted:.4f}")
    assert m.height >= 5
    md = (out / BAND_MD).read_text()
    assert "Expert reference: `defend:caution=0.9` against `defend`" in md
    assert "**moves**" in md
    # the head of band.md: the expert's movement across variants, bold where it moves
    head = md.split("### ningbo-3baida")[0]
    assert "## Does strong play move the figures?" in head
    line = next(t for t in head.splitlines() if t.startswith("| wall-exhausted rate"))
    assert line.count("**") == 2 and row["difference"] in line


def test_band_keeps_its_duels_and_replays_a_changed_one(banded):
    out, res = banded
    kept = out / "ningbo-3baida" / "duels" / "defend.json"
    stamp = kept.stat().st_mtime_ns
    again = band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
                 duel_deals=200, workers=2, progress=False)
    assert kept.stat().st_mtime_ns == stamp              # reused, not replayed
    assert again[0].duels["defend"] == res[0].duels["defend"]
    # another count: refused before anything is played, the kept duel untouched ...
    with pytest.raises(RunError, match=r"defend.json' holds a duel of another request \(deals "
                                       r"is 100, the kept one's is 200\); .* --overwrite"):
        band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
             duel_deals=100, workers=2, progress=False)
    assert kept.stat().st_mtime_ns == stamp
    # ... and played with overwrite
    other = band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
                 duel_deals=100, workers=2, progress=False, overwrite=True)
    assert other[0].duels["defend"].deals == 100
    assert other[0].duels["defend"] == duel("ningbo-3baida", "defend", "value", 100, 3)


def test_band_expert_base_must_be_a_style(tmp_path):
    with pytest.raises(RunError, match="expert base 'greedy' is not a style"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,defend",
             expert="lookahead", expert_base="greedy")
    with pytest.raises(RunError, match="its own base"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,defend",
             expert="defend")
    with pytest.raises(RunError, match=r"--expert-deals must be a whole number 2 \.\. --deals"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,defend",
             expert="lookahead", expert_deals=500)


def test_band_expert_options_need_expert(tmp_path):
    from click.testing import CliRunner

    from nbsim.cli import cli
    r = CliRunner().invoke(cli, ["band", "ningbo-3baida", "--deals", "100", "--out",
                                 str(tmp_path / "b"), "--expert-deals", "50"])
    assert r.exit_code == 2 and "--expert-deals needs --expert SPEC" in r.output
    r = CliRunner().invoke(cli, ["band", "ningbo-3baida", "--deals", "100", "--out",
                                 str(tmp_path / "b"), "--expert-deals", "50",
                                 "--expert-base", "value"])
    assert r.exit_code == 2 and "--expert-deals and --expert-base need --expert SPEC" in r.output


def test_band_api_refuses_expert_settings_without_expert_and_bad_counts(tmp_path):
    """The Python API refuses what the command line refuses: the expert's
    settings without an expert (they would be ignored), and a count or seed
    that is not a whole number (no raw TypeError)."""
    for kw, msg in (({"expert_deals": 10}, "expert_deals needs an expert reference style"),
                    ({"expert_base": "value", "expert_deals": 10},
                     "expert_deals and expert_base need an expert"),
                    ({"deals": "100"}, "--deals must be a whole number, got '100'"),
                    ({"seed": 1.5}, "--seed must be a whole number, got 1.5")):
        args = {"deals": 100, "seed": 1, **kw}
        with pytest.raises(RunError, match=msg):
            band("ningbo-3baida", out=tmp_path / "b", styles="value,defend", **args)
    assert not (tmp_path / "b").exists()


def test_band_expert_on_chooses_the_variants(banded, tmp_path):
    """--expert-on: the expert plays only the variants named; a name that is
    not a variant of the band, or one without an expert, is an error."""
    out, _ = banded
    (vb,) = band("ningbo-3baida", deals=4_000, seed=3, out=out, styles="value,defend",
                 duel_deals=0, workers=2, progress=False, expert="defend:caution=0.9",
                 expert_deals=2_000, expert_on=[])
    assert vb.expert is None
    assert "## Does strong play move" not in (out / BAND_MD).read_text()
    with pytest.raises(RunError, match="--expert-on 'ninghai' is not a variant of this band"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,defend",
             expert="lookahead", expert_deals=50, expert_on=["ninghai"])
    with pytest.raises(RunError, match="expert_on needs an expert reference style"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,defend",
             expert_on=["ningbo-3baida"])


def test_band_needs_two_different_styles(tmp_path):
    with pytest.raises(RunError, match="two or more different styles"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,value")
    with pytest.raises(RunError, match="unknown policy|policy"):
        band("ningbo-3baida", deals=100, seed=1, out=tmp_path, styles="value,bogus")


def test_ladder_duels_every_pair_like_duel():
    lad = ladder(["ningbo-3baida"], "value,greedy,random", deals=150, seed=2)
    pairs = [(r.a, r.b) for r in lad.results]
    assert pairs == [("value", "greedy"), ("value", "random"), ("greedy", "random")]
    for r in lad.results:
        d = duel("ningbo-3baida", r.a, r.b, 150, 2)
        assert (r.mean, r.ci_low, r.ci_high) == (d.mean, d.ci_low, d.ci_high)
    assert lad.frame().height == 3
    md = lad.markdown()
    assert "**ningbo-3baida**" in md and md.count("| value | greedy |") == 1
    with pytest.raises(RunError, match="at least two different policies"):
        ladder(["ningbo-3baida"], "value,value", deals=10, seed=1)


def test_band_refuses_runs_of_another_request_before_playing(banded, tmp_path):
    """Finished runs of another request (here another seed) are never
    replaced silently: the band is refused before any play, naming the
    folder and the difference; --overwrite replaces them. --duel-deals and a
    run folder as --out are checked first too."""
    out, _ = banded
    runs = sorted((out / "ningbo-3baida").rglob("manifest.json"))
    before = [m.read_bytes() for m in runs]
    with pytest.raises(RunError, match=r"value' holds a run of another request \(--seed is 4, "
                                       r"the run's is 3\); give another --out, or --overwrite"):
        band("ningbo-3baida", deals=4_000, seed=4, out=out, styles="value,defend",
             duel_deals=0, workers=2, progress=False)
    assert [m.read_bytes() for m in runs] == before
    for bad in (-1, 1, 2.5):
        with pytest.raises(RunError, match="--duel-deals must be 0 .no duels. or a whole "
                                           "number 2"):
            band("ningbo-3baida", deals=100, seed=1, out=tmp_path / "b", duel_deals=bad)
    assert not (tmp_path / "b").exists()
    with pytest.raises(RunError, match="is a run folder .manifest.json.; a band needs"):
        band("ningbo-3baida", deals=100, seed=1, out=runs[0].parent, duel_deals=0)


def test_ladder_checks_its_out_file_before_the_duels(tmp_path):
    """--out is checked (and its folders made) before any duel is played."""
    from click.testing import CliRunner

    from nbsim.cli import cli
    for path, words in ((tmp_path / "f" / "x.md", None), ("/proc/ladder.md", "cannot write"),
                        (tmp_path, "is a directory")):   # click checks this one
        if words is None:
            (tmp_path / "f").write_text("a file")
            words = "is a file, not a folder"
        r = CliRunner().invoke(cli, ["ladder", "ningbo-3baida", "--policies", "value,greedy",
                                     "--deals", "100000", "--out", str(path)])
        assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output, r.output
        assert "| value" not in r.output                   # no duel was played
    deep = tmp_path / "a" / "b" / "l.md"
    r = CliRunner().invoke(cli, ["ladder", "ningbo-3baida", "--policies", "value,greedy",
                                 "--deals", "20", "--out", str(deep)])
    assert r.exit_code == 0, r.output
    assert deep.read_text(encoding="utf-8").startswith(r.output.splitlines()[0])


# scipy warns of the near-identical samples that this test is about
@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")
def test_band_expert_on_few_deals_says_what_it_cannot_tell(tmp_path):
    """An expert reference on 4 deals: a difference whose interval has no
    width (no deal-in by E in either replay) is marked 'too few deals to
    tell', not 'holds', and band.md warns that so few deals say little."""
    from nbsim.play.band import UNTOLD
    (vb,) = band("ningbo-3baida", deals=200, seed=1, out=tmp_path, styles="value,defend",
                 workers=1, progress=False, expert="defend:caution=0.9", expert_deals=4)
    m = vb.expert.movement()
    row = m.filter(pl.col("key") == "deal_in_E").row(0, named=True)
    assert row["untold"] and not row["moves"] and row["difference"] == "0 [0, 0]"
    assert not m.filter(~pl.col("untold")).is_empty()      # the others are told
    md = (tmp_path / BAND_MD).read_text()
    head = md.split("### ningbo-3baida")[0]
    line = next(t for t in head.splitlines() if t.startswith("| deal-in rate E"))
    assert f"0 [0, 0] ({UNTOLD})" in line
    assert "Only 4 deals per variant: the intervals are wide" in head
    table = vb.expert.markdown()
    line = next(t for t in table.splitlines() if t.startswith("| deal-in rate E"))
    assert line.rstrip(" |").endswith(UNTOLD) and "holds" not in line
