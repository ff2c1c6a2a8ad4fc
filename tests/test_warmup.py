"""nbsim.warmup: the first compile of a kernel group is announced, later
calls are silent, and the warm-up command checks its group names."""
from nbsim import warmup


def test_first_compile_is_announced_then_silent(monkeypatch, tmp_path):
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)   # markers only
    said: list[str] = []
    assert not warmup.is_compiled("deal")
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said[0].startswith("compiling the deal kernels, once, about 25 s")
    assert said[-1].startswith("compiled in ")
    assert warmup.is_compiled("deal") and (tmp_path / "compiled-deal").is_file()
    said.clear()
    warmup.ensure_compiled("deal", echo=said.append, clock=False)
    assert said == []


def test_every_group_has_an_estimate_and_unknown_ones_are_refused(capsys):
    assert set(warmup.GROUPS) == {"game", "match", "wall", "deal", "score"}
    assert all(warmup.ESTIMATE_S[g] > 0 for g in warmup.GROUPS)
    assert warmup.main(["bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernel group 'bogus'" in err and "allowed: game, match" in err


def test_groups_sharing_the_engine_start_after_it(monkeypatch, tmp_path):
    """match and wall load the engine's kernels from the cache: they start
    only once game is compiled; the others start at once, in parallel."""
    import re
    import subprocess
    monkeypatch.setattr(warmup, "_folder", lambda: tmp_path)
    monkeypatch.setattr(warmup.time, "sleep", lambda s: None)
    alive: set[str] = set()
    started: list[tuple[str, frozenset]] = []

    class FakeProcess:
        def __init__(self, args):
            self.group = re.search(r"_compile\('(\w+)'\)", args[-1]).group(1)
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
    assert warmup.main(["game", "match", "wall", "deal", "score"]) == 0
    order = [g for g, _ in started]
    assert set(order[:3]) == {"game", "deal", "score"} and set(order[3:]) == {"match", "wall"}
    assert all("game" not in running for g, running in started if g in ("match", "wall"))
    assert warmup._wall_estimate(["game", "match", "wall"]) == (
        warmup.ESTIMATE_S["game"] + max(warmup.ESTIMATE_S["match"], warmup.ESTIMATE_S["wall"]))
