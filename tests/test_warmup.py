"""nbsim.warmup: the first compile of a kernel group is announced, later
calls are silent, and the warm-up command checks its group names."""
import pytest

from nbsim import warmup


@pytest.fixture
def compiles(monkeypatch, tmp_path) -> list[list[str]]:
    """Markers in ``tmp_path`` and a stand-in for the compile processes:
    each call's groups are recorded (the list returned) and marked compiled."""
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)
    ran: list[list[str]] = []

    def fake(todo, bar):
        ran.append(list(todo))
        for g in todo:
            warmup.mark_compiled(g)
        return 0
    monkeypatch.setattr(warmup, "_compile_in_processes", fake)
    return ran


def test_first_compile_is_announced_then_silent(compiles, tmp_path):
    ran = compiles
    said: list[str] = []
    assert not warmup.is_compiled("deal")
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said[0].startswith(
        f"compiling the deal kernels, once, about {warmup.ESTIMATE_S['deal']} s")
    assert said[-1].startswith("compiled in ")
    assert warmup.is_compiled("deal") and (tmp_path / "compiled-deal").is_file()
    assert ran == [["deal"]]
    said.clear()
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said == [] and ran == [["deal"]]


def test_a_group_compiles_after_the_groups_it_loads(compiles):
    """The first advice on an empty cache compiles the game engine (and
    its scorer) first, and says so in its estimate; the search policy then
    compiles after the evaluator, whose kernels its playouts load."""
    ran = compiles
    said: list[str] = []
    warmup.ensure_compiled("advice", echo=said.append, clock=False)
    assert ran == [["game", "scorer", "advice"]]
    est = warmup.ESTIMATE_S["game"] + warmup.ESTIMATE_S["advice"]
    assert said[0].startswith(f"compiling the advice kernels (after the game kernels they "
                              f"load), once, about {est} s")
    said.clear()
    warmup.ensure_compiled("lookahead", echo=said.append, clock=False)
    assert ran[-1] == ["lookahead"]
    assert said[0].startswith(f"compiling the lookahead kernels, once, about "
                              f"{warmup.ESTIMATE_S['lookahead']} s")


def test_every_group_has_an_estimate_and_unknown_ones_are_refused(capsys):
    assert set(warmup.GROUPS) == {"game", "scorer", "match", "wall", "deal", "score", "lookahead",
                                  "advice"}
    assert all(warmup.ESTIMATE_S[g] > 0 for g in warmup.GROUPS)
    assert warmup.main(["bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernel group 'bogus'" in err and "allowed: game, scorer, match" in err


def test_groups_sharing_the_engine_start_after_it(monkeypatch, tmp_path):
    """The engine compiles in two processes (game, and its scorer at the
    same time); match, wall and advice load the engine's kernels from the
    cache and start once game is compiled, match once the evaluator
    (advice) is too; deal and score start once the scorer is."""
    import re
    import subprocess
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)
    monkeypatch.setattr(warmup.time, "sleep", lambda s: None)
    alive: set[str] = set()
    started: list[tuple[str, frozenset]] = []
    codes: list[str] = []

    class FakeProcess:
        def __init__(self, args):
            self.group = re.search(r"exercise\('(\w+)'", args[-1]).group(1)
            codes.append(args[-1])
            started.append((self.group, frozenset(alive)))
            alive.add(self.group)
            self.polls = 0
            self.returncode = None

        def poll(self):
            self.polls += 1
            if self.polls < 3:
                return None
            alive.discard(self.group)
            self.returncode = 0
            return 0

    monkeypatch.setattr(subprocess, "Popen", FakeProcess)
    assert warmup.main(["game", "match", "wall", "deal", "score", "advice"]) == 0
    order = [g for g, _ in started]
    assert set(order[:2]) == {"game", "scorer"}
    assert set(order) == {"game", "scorer", "match", "wall", "deal", "score", "advice"}
    assert all("game" not in running for g, running in started
               if g in ("match", "wall", "advice"))
    # the evaluator's chain goes first: whole matches wait for it too
    assert all("advice" not in running for g, running in started if g == "match")
    assert order.index("advice") < order.index("match")
    assert all("scorer" not in running for g, running in started if g in ("deal", "score"))
    # the engine's process waits for the scorer before compiling what calls it
    assert any("exercise('game', 'scorer')" in c for c in codes)
    assert any("exercise('deal', None)" in c for c in codes)
    est = warmup.ESTIMATE_S
    assert warmup._wall_estimate(["game", "match", "wall"]) == (
        est["game"] + max(est["match"], est["wall"]))
    assert warmup._wall_estimate(["game", "advice", "match"]) == (
        est["game"] + est["advice"] + est["match"])
    assert warmup._wall_estimate(["scorer", "deal", "score"]) == (
        est["scorer"] + max(est["deal"], est["score"]))


def test_a_compiled_engine_needs_no_scorer_process(monkeypatch, tmp_path):
    """The scorer helper joins only when the engine itself is to be compiled."""
    import subprocess
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)
    monkeypatch.setattr(warmup.time, "sleep", lambda s: None)
    (tmp_path / "compiled-game").write_text("x")
    started: list[str] = []

    class FakeProcess:
        def __init__(self, args):
            started.append(args[-1])
            self.returncode = 0

        def poll(self):
            return 0

    monkeypatch.setattr(subprocess, "Popen", FakeProcess)
    assert warmup.main(["game", "deal"]) == 0
    assert len(started) == 1 and "exercise('deal', None)" in started[0]


def test_the_engine_compiled_alone_is_announced_with_its_scorer(compiles, tmp_path):
    """ensure_compiled("game") compiles the engine in two processes at once
    (the engine and its scorer), as the warm-up does: its estimate is the
    longer of the two; with the scorer compiled, the engine's alone."""
    ran = compiles
    said: list[str] = []
    warmup.ensure_compiled("game", echo=said.append, clock=False)
    est = warmup.ESTIMATE_S
    assert ran == [["game", "scorer"]]
    assert f"about {max(est['game'], est['scorer'])} s" in said[0]
    (tmp_path / "compiled-game").unlink()
    said.clear()
    warmup.ensure_compiled("game", echo=said.append, clock=False)
    assert ran[-1] == ["game"] and f"about {est['game']} s" in said[0]


def test_a_failed_compile_is_one_clear_error(monkeypatch, tmp_path):
    """A compile process that fails raises RuntimeError naming the group and
    the command that shows why, and leaves the group uncompiled."""
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)
    monkeypatch.setattr(warmup, "_compile_in_processes", lambda todo, bar: 1)
    with pytest.raises(RuntimeError, match="python -m nbsim.warmup deal"):
        warmup.ensure_compiled("deal", echo=lambda s: None, clock=False)
    assert not warmup.is_compiled("deal")


def test_play_with_a_search_policy_announces_the_lookahead_compile(monkeypatch, tmp_path):
    """A duel and a game-mode run that play the lookahead first make sure
    its kernels are compiled (``ensure_compiled("lookahead")``, which says
    so before a first compile); play without it asks only for the game
    engine, and an advice only for the evaluator ("advice")."""
    import nbsim
    from nbsim.play.advice.advise import advise
    from nbsim.play.advice.state import position_from_options
    asked: list[str] = []
    monkeypatch.setattr(warmup, "ensure_compiled", lambda g, **kw: asked.append(g))
    nbsim.duel("ningbo-3baida", "lookahead:samples=4", "defend", 2, 1, seating="1v3")
    assert asked == ["game", "lookahead"]
    asked.clear()
    nbsim.duel("ningbo-3baida", "value", "defend", 2, 1)
    assert asked == ["game"]
    asked.clear()
    nbsim.simulate("ningbo-3baida", deals=2, seed=1, out=tmp_path / "run", mode="game",
                   policies=("lookahead:samples=4", "defend", "defend", "defend"),
                   workers=1, progress=False)
    assert asked == ["game", "lookahead"]
    asked.clear()
    rs = nbsim.load_rules("ningbo-3baida")
    pos = position_from_options(rs, hand="123m456p789s1155z7z", indicator="9m")
    advise(rs, pos, samples=4)
    assert asked == ["advice"]
