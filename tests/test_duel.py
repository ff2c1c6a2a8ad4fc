"""Duplicate play (``nbsim.duel`` / ``nbsim duel``) and the API's config
handling for duel and replay: statistics against a direct computation from
the played rows, symmetry, bounds and one-line errors."""
import dataclasses
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

import nbsim
from nbsim.cli import cli
from nbsim.errors import ConfigError, RunError
from nbsim.rules.ruleset import load_rules
from nbsim.run.game_mode import game_frame

PAY = ["pay_e", "pay_s", "pay_w", "pay_n"]


def test_duel_statistics_match_the_played_rows(tables):
    """mean, se, interval, p-value and win shares equal a direct computation
    from the two plays of every wall (chunks smaller than the run)."""
    rs = load_rules("ningbo-3baida")
    n = 60
    res = nbsim.duel(rs, "value", "greedy", n, 5, tables=tables, chunk=25)
    p1 = game_frame(rs, 5, 0, n, ("value", "greedy", "value", "greedy"), tables)[0]
    p2 = game_frame(rs, 5, 0, n, ("greedy", "value", "greedy", "value"), tables)[0]
    a1 = p1.select(PAY).to_numpy().astype(float)
    a2 = p2.select(PAY).to_numpy().astype(float)
    d = ((a1[:, 0] + a1[:, 2] + a2[:, 1] + a2[:, 3])
         - (a1[:, 1] + a1[:, 3] + a2[:, 0] + a2[:, 2])) / 4.0
    assert res.deals == n
    assert res.mean == pytest.approx(d.mean(), abs=1e-9)
    assert res.se == pytest.approx(d.std(ddof=1) / np.sqrt(n), rel=1e-9)
    lo, hi = stats.t.interval(0.95, n - 1, loc=d.mean(), scale=d.std(ddof=1) / np.sqrt(n))
    assert (res.ci_low, res.ci_high) == pytest.approx((lo, hi), rel=1e-9)
    assert res.p_value == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-6, abs=1e-300)
    wins_a = (p1["winner"].is_in(["E", "W"]).sum() + p2["winner"].is_in(["S", "N"]).sum())
    assert res.win_rate_a == pytest.approx(wins_a / (2 * n))


def test_duel_1v3_matches_the_played_rows(tables):
    """1v3: d_i is the mean over seats of (seat s's payment with A there -
    its payment when all play B), from five direct plays of every wall; the
    win shares count A's seat and the same seat in the all-B play."""
    rs = load_rules("ningbo-3baida")
    n = 40
    res = nbsim.duel(rs, "value", "greedy", n, 7, tables=tables, chunk=15, seating="1v3")
    base = game_frame(rs, 7, 0, n, ("greedy",) * 4, tables)[0]
    p0 = base.select(PAY).to_numpy().astype(float)
    d = np.zeros(n)
    wins_a = 0
    for s, seat in enumerate("ESWN"):
        pols = tuple("value" if t == s else "greedy" for t in range(4))
        df = game_frame(rs, 7, 0, n, pols, tables)[0]
        d += df.select(PAY).to_numpy().astype(float)[:, s] - p0[:, s]
        wins_a += int((df["winner"] == seat).sum())
    d /= 4.0
    assert res.seating == "1v3" and res.deals == n
    assert res.mean == pytest.approx(d.mean(), abs=1e-9)
    assert res.se == pytest.approx(d.std(ddof=1) / np.sqrt(n), rel=1e-9)
    assert res.win_rate_a == pytest.approx(wins_a / (4 * n))
    assert res.win_rate_b == pytest.approx(base["winner"].is_in(list("ESWN")).sum() / (4 * n))
    assert "one value seat among greedy players" in res.text()


def test_duel_1v3_among_a_third_policy(tables):
    """--among C: one A seat against one B seat, the other three C. The
    all-C play cancels, so d_i is (A vs C) - (B vs C) deal by deal, and the
    result matches both the direct plays and the two plain 1v3 duels."""
    rs = load_rules("ningbo-3baida")
    n = 30
    res = nbsim.duel(rs, "value", "greedy", n, 5, tables=tables, chunk=12, seating="1v3",
                     among="defend")
    d = np.zeros(n)
    for s in range(4):
        for pol, sign in (("value", 1.0), ("greedy", -1.0)):
            pols = tuple(pol if t == s else "defend" for t in range(4))
            df = game_frame(rs, 5, 0, n, pols, tables)[0]
            d += sign * df.select(PAY).to_numpy().astype(float)[:, s]
    d /= 4.0
    assert res.mean == pytest.approx(d.mean(), abs=1e-9)
    assert res.se == pytest.approx(d.std(ddof=1) / np.sqrt(n), rel=1e-9)
    a = nbsim.duel(rs, "value", "defend", n, 5, tables=tables, seating="1v3")
    b = nbsim.duel(rs, "greedy", "defend", n, 5, tables=tables, seating="1v3")
    assert res.mean == pytest.approx(a.mean - b.mean, abs=1e-9)
    assert (res.win_rate_a, res.win_rate_b) == (a.win_rate_a, b.win_rate_a)
    assert res.among == "defend" and a.among == ""
    assert "one value seat among defend players against one greedy seat" in \
        " ".join(res.text().split())                            # wrapped to 100 columns
    with pytest.raises(RunError, match="--among defend: the other seats' policy applies to "
                                       "--seating 1v3 only"):
        nbsim.duel(rs, "value", "greedy", n, 5, tables=tables, among="defend")


@pytest.mark.parametrize("seating", ["2v2", "1v3"])
def test_duel_of_a_policy_with_itself_is_exactly_zero(seating, tables):
    res = nbsim.duel("ningbo-7baida", "greedy", "greedy", 20, 3, tables=tables, seating=seating)
    assert res.mean == 0.0 and res.se == 0.0 and res.p_value == 1.0
    assert res.win_rate_a == res.win_rate_b


def test_duel_rejects_an_unknown_seating(tables):
    with pytest.raises(RunError, match="--seating must be one of 2v2, 1v3, got '3v1'"):
        nbsim.duel("ningbo-3baida", "value", "greedy", 10, 1, tables=tables, seating="3v1")


@pytest.mark.parametrize("deals", [1, 2**62 + 1])
def test_duel_rejects_deal_counts(deals, tables):
    with pytest.raises(RunError, match=r"--deals must be 2 \.\."):
        nbsim.duel("ningbo-3baida", "value", "greedy", deals, 1, tables=tables)


def test_duel_api_refuses_bad_chunk_progress_and_tables(tables):
    """A chunk below 1 used to play nothing and report a zero result (or
    raise from range()); a progress that is not a function and tables that
    are not the lookup tables raised deep inside. Each is one RunError."""
    for chunk, msg in ((-5, "chunk must be 1..", ), (0, "chunk must be 1.."),
                       (2.5, "chunk must be a whole number")):
        with pytest.raises(RunError, match=msg):
            nbsim.duel("ningbo-3baida", "value", "greedy", 10, 1, tables=tables, chunk=chunk)
    with pytest.raises(RunError, match="progress must be None or a function"):
        nbsim.duel("ningbo-3baida", "value", "greedy", 10, 1, tables=tables, progress=True)
    with pytest.raises(RunError, match="tables must be nbsim.rules.lookups.load_tables"):
        nbsim.duel("ningbo-3baida", "value", "greedy", 10, 1, tables="x")
    seen = []
    res = nbsim.duel("ningbo-3baida", "value", "greedy", 10, 1, tables=tables, chunk=4,
                     progress=seen.append)
    assert seen == [4, 4, 2] and res.deals == 10


def test_pool_duels_refuses_what_is_not_a_list_of_results():
    for bad in (None, "p1.json", 7):
        with pytest.raises(RunError, match="results: expected a list of duel results"):
            nbsim.pool_duels(bad)


def test_duel_rejects_unknown_policy_and_config():
    with pytest.raises(RunError, match="unknown policy 'best'; allowed: random, greedy, value"):
        nbsim.duel("ningbo-3baida", "best", "greedy", 10, 1)
    with pytest.raises(ConfigError, match="no-such-variant"):
        nbsim.duel("no-such-variant", "value", "greedy", 10, 1)


def test_duel_cli_text_and_errors():
    r = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                 "--deals", "30", "--seed", "2"])
    assert r.exit_code == 0, r.output
    assert "value vs greedy, 30 duplicate deals" in r.output
    assert "95% CI" in r.output
    r = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                 "--deals", "99999999999999999999", "--seed", "2"])
    assert r.exit_code == 2
    assert "--deals must be 2 .. 4,611,686,018,427,387,904" in r.output
    assert "Traceback" not in r.output
    r = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                 "--deals", "10", "--seed", "2", "--seating", "1v3", "--json"])
    assert r.exit_code == 0, r.output
    assert '"seating": "1v3"' in r.output


@pytest.mark.parametrize("seating", ["2v2", "1v3"])
def test_duel_parts_pool_to_the_whole_duel(seating, tables):
    """Deals 0..14 and 15..39 of a seed, run as two duels (`first`) and
    pooled, give the duel of deals 0..39 at once: the same mean, standard
    error, interval, p-value and win shares, whatever the order of the parts."""
    rs = load_rules("ningbo-3baida")
    whole = nbsim.duel(rs, "value", "greedy", 40, 7, tables=tables, seating=seating)
    head = nbsim.duel(rs, "value", "greedy", 15, 7, tables=tables, seating=seating)
    tail = nbsim.duel(rs, "value", "greedy", 25, 7, tables=tables, seating=seating, first=15)
    assert (tail.seed, tail.first) == (7, 15)
    assert "25 duplicate deals (deals 15 .. 39 of seed 7)" in tail.text()
    assert tail.mean != whole.mean            # the parts are different deals
    for parts in ((head, tail), (tail, head)):
        got = nbsim.pool_duels(parts)
        assert (got.deals, got.seed, got.first, got.parts) == (40, 7, 0, "")
        for key in ("mean", "se", "ci_low", "ci_high", "p_value", "win_rate_a", "win_rate_b"):
            assert getattr(got, key) == pytest.approx(getattr(whole, key), rel=1e-9, abs=1e-12)
        assert got.text() == whole.text()


def test_pool_of_two_seeds_names_its_parts(tables):
    """Parts of different seeds (or with a gap) pool as independent deals;
    the result names its parts and has no single seed."""
    rs = load_rules("ningbo-3baida")
    a = nbsim.duel(rs, "value", "greedy", 10, 3, tables=tables)
    b = nbsim.duel(rs, "value", "greedy", 12, 4, tables=tables, first=100)
    got = nbsim.pool_duels([a, b])
    assert got.deals == 22 and got.seed is None
    assert got.parts == "seed 3: deals 0 .. 9; seed 4: deals 100 .. 111"
    assert got.mean == pytest.approx((10 * a.mean + 12 * b.mean) / 22, abs=1e-12)
    assert "22 duplicate deals (seed 3: deals 0 .. 9; seed 4: deals 100 .. 111)" in got.text()


def test_pool_refuses_what_is_not_one_duel(tables):
    """Shared deals, other policies or rules (a --set override), a result
    without seed or rules hash, a pool of separate ranges: each refused,
    naming the parts; bad --first ranges refused by duel."""
    rs = load_rules("ningbo-3baida")
    a = nbsim.duel(rs, "value", "greedy", 10, 3, tables=tables)
    b = nbsim.duel(rs, "value", "greedy", 10, 3, tables=tables, first=5)
    with pytest.raises(RunError, match="cannot pool result 1 and result 2: both hold deals "
                                       "5 .. 9 of seed 3"):
        nbsim.pool_duels([a, b])
    c = nbsim.duel(rs, "value", "random", 10, 3, tables=tables, first=10)
    with pytest.raises(RunError, match="they differ in policy B: 'greedy' and 'random'"):
        nbsim.pool_duels([a, c])
    five = load_rules("ningbo-3baida", ["win.min_tai=5"])
    d = nbsim.duel(five, "value", "greedy", 10, 3, tables=tables, first=10)
    assert d.config == a.config and d.rules_hash != a.rules_hash
    with pytest.raises(RunError, match=r"they differ in rules \(a --set override"):
        nbsim.pool_duels([a, d], names=["p1.json", "p2.json"])
    with pytest.raises(RunError, match="nothing to pool"):
        nbsim.pool_duels([])
    for old in (dataclasses.replace(a, seed=None), dataclasses.replace(a, rules_hash="")):
        with pytest.raises(RunError, match="cannot pool result 1: it records no seed or rules"):
            nbsim.pool_duels([old, b])
    e = nbsim.duel(rs, "value", "greedy", 10, 3, tables=tables, first=20)
    gap = nbsim.pool_duels([a, e])
    assert (gap.seed, gap.parts) == (3, "seed 3: deals 0 .. 9, deals 20 .. 29")
    with pytest.raises(RunError, match="it is itself a pool of separate ranges"):
        nbsim.pool_duels([gap, c])
    block = nbsim.pool_duels([a, dataclasses.replace(e, first=10)])
    assert nbsim.pool_duels([block, e]).deals == 30      # one block pools again
    for first in (-1, 2**62 - 9):
        with pytest.raises(RunError, match=r"--first must be 0 \.\. 4,611,686,018,427,387,894"):
            nbsim.duel(rs, "value", "greedy", 10, 3, tables=tables, first=first)


@pytest.mark.parametrize("seating,among", [("2v2", None), ("1v3", None), ("1v3", "greedy")])
def test_duel_does_not_depend_on_workers_or_chunks(seating, among, tables):
    """Every core plays (``workers``: each chunk's plays split into ranges
    of deals): one thread, three threads with chunks of 7 deals and the
    default give the same result, and the per-deal statistic is checked
    through its mean, se and win shares."""
    rs = load_rules("ningbo-3baida")
    runs = [nbsim.duel(rs, "value", "random", 23, 5, tables=tables, seating=seating,
                       among=among, workers=w, chunk=c)
            for w, c in ((1, None), (3, 7), (None, None))]
    assert runs[0].se > 0
    assert runs[1] == runs[0] and runs[2] == runs[0]
    with pytest.raises(RunError, match="--workers must be 1 or more, got 0"):
        nbsim.duel(rs, "value", "random", 10, 5, tables=tables, workers=0)


def test_duel_records_each_policy_in_full(tables):
    """The short names drop parameters at their defaults; the result also
    records every parameter (``a_full`` ..), in the JSON too, so that parts
    played before and after a default changed are not pooled as one duel,
    while a part of an older nbsim (no full forms) still pools."""
    from nbsim.policy_specs import parse_policy
    rs = load_rules("ningbo-3baida")
    a = nbsim.duel(rs, "value", "defend:caution=0.5", 10, 3, tables=tables, seating="1v3",
                   among="greedy")
    assert (a.a, a.b, a.among) == ("value", "defend:caution=0.5", "greedy")
    assert (a.a_full, a.b_full, a.among_full) == tuple(
        parse_policy(x).full for x in ("value", "defend:caution=0.5", "greedy"))
    assert "caution=0.5" in a.b_full and a.b_full != a.b
    b = nbsim.duel(rs, "value", "defend:caution=0.5", 10, 3, tables=tables, seating="1v3",
                   among="greedy", first=10)
    assert nbsim.pool_duels([a, b]).b_full == a.b_full
    changed = dataclasses.replace(b, b_full=a.b_full.replace("caution=0.5", "caution=0.6"))
    with pytest.raises(RunError, match="they differ in policy B's parameters: .* a default "
                                       "has changed"):
        nbsim.pool_duels([a, changed])
    old = {k: v for k, v in dataclasses.asdict(b).items() if not k.endswith("_full")}
    assert nbsim.pool_duels([a, old]).a_full == a.a_full
    assert nbsim.pool_duels([old, a]).b_full == a.b_full
    # an older part first: the parts that record full forms are still compared
    c = nbsim.duel(rs, "value", "defend:caution=0.5", 10, 3, tables=tables, seating="1v3",
                   among="greedy", first=20)
    with pytest.raises(RunError, match="cannot pool result 2 and result 3: they differ in "
                                       "policy B's parameters"):
        nbsim.pool_duels([dataclasses.replace(c, a_full="", b_full="", among_full=""), a,
                          changed])
    r = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                 "--deals", "10", "--seed", "2", "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    assert got["b_full"] == parse_policy("greedy").full and got["among_full"] == ""


def test_pool_reads_only_well_formed_results(tables):
    """``read_result`` (and ``pool`` given dicts): strict types, finite
    numbers, shares in 0..1, deal indices and seeds in range, every key."""
    from nbsim.play.pools import read_result
    good = dataclasses.asdict(nbsim.duel("ningbo-3baida", "value", "greedy", 10, 3,
                                         tables=tables))
    assert read_result(good, "g") == nbsim.duel("ningbo-3baida", "value", "greedy", 10, 3,
                                                 tables=tables)
    assert nbsim.pool_duels(iter([good])).deals == 10
    bad = {"deals": "10", "mean": float("nan"), "se": -0.5, "win_rate_a": 1.7, "first": -5,
           "seed": 2**64, "deals ": 3, "p_value": True}
    for key, value in bad.items():
        with pytest.raises(RunError, match=f"g: not a duel result of `nbsim duel --json`: "
                                           f"(key|unknown key) '{key.strip()}"):
            read_result({**good, key: value}, "g")
    with pytest.raises(RunError, match="missing required key: seating"):
        read_result({k: v for k, v in good.items() if k != "seating"}, "g")
    with pytest.raises(RunError, match="go past the last deal index"):
        read_result({**good, "first": 2**62 - 5}, "g")
    with pytest.raises(RunError, match="g: expected the JSON object `nbsim duel --json` "
                                       "prints, got an array"):
        read_result([good], "g")
    # a policy that is none: refused, not pooled under its label
    with pytest.raises(RunError, match="g: a: policy 'value' has no parameter 'nope'"):
        read_result({**good, "a": "value:nope=1"}, "g")
    with pytest.raises(RunError, match="g: among: unknown policy 'expert'"):
        read_result({**good, "among": "expert"}, "g")


def test_pool_duels_cli(tmp_path):
    """`nbsim duel --first --json` parts pooled by `nbsim pool-duels`, and
    one-line errors for a missing, empty or bad file and a foreign object."""
    files = []
    for first, deals in ((0, 8), (8, 12)):
        r = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                     "--deals", str(deals), "--seed", "2", "--first",
                                     str(first), "--json"])
        assert r.exit_code == 0, r.output
        f = tmp_path / f"part{first}.json"
        f.write_text(r.output, encoding="utf-8-sig" if first else "utf-8")   # a BOM is fine
        files.append(str(f))
    whole = CliRunner().invoke(cli, ["duel", "ningbo-3baida", "--a", "value", "--b", "greedy",
                                     "--deals", "20", "--seed", "2"])
    r = CliRunner().invoke(cli, ["pool-duels", *files])
    assert r.exit_code == 0, r.output
    assert r.output == whole.output
    r = CliRunner().invoke(cli, ["pool-duels", *files, "--json"])
    assert json.loads(r.output)["deals"] == 20
    r = CliRunner().invoke(cli, ["pool-duels", files[0], files[0]])
    assert r.exit_code == 2 and f"cannot pool '{files[0]}' and '{files[0]}'" in r.output
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "empty.json").write_text("\n")
    (tmp_path / "other.json").write_text('{"config": "ningbo-3baida", "colour": 1}')
    for name, message in ((str(tmp_path / "none.json"), "cannot read"),
                          (str(tmp_path), "cannot read"),
                          (str(tmp_path / "bad.json"), "bad JSON"),
                          (str(tmp_path / "empty.json"), "the file is empty"),
                          (str(tmp_path / "other.json"), "not a duel result of `nbsim duel "
                                                         "--json`: missing required keys")):
        r = CliRunner().invoke(cli, ["pool-duels", name])
        assert r.exit_code == 2, r.output
        assert message in r.output and "Traceback" not in r.output
        assert len(r.output.strip().splitlines()) == 1


def test_replay_api_takes_a_config_name_and_checks_bounds(tables):
    by_name = nbsim.replay("ningbo-3baida", 7, 42)
    loaded = nbsim.replay(load_rules("ningbo-3baida"), 7, 42, ("defend",) * 4)
    assert by_name.row == loaded.row
    with pytest.raises(RunError, match=r"--deal must be 0 \.\. 2\*\*62 - 1"):
        nbsim.replay("ningbo-3baida", 7, 2**62)
    with pytest.raises(RunError, match="give 4 policies"):
        nbsim.replay("ningbo-3baida", 7, 1, ("value",))
    r = CliRunner().invoke(cli, ["replay", "ningbo-3baida", "--seed", "7",
                                 "--deal", "9223372036854775808"])
    assert r.exit_code == 2
    assert "--deal must be 0 .. 2**62 - 1, got 9223372036854775808" in r.output
