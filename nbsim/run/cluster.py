"""``nbsim simulate --cluster``: the shards of a run as Dask distributed tasks.

``--cluster local`` starts a ``distributed.LocalCluster`` of worker processes
on this machine, listening on the loopback only (scheduler, workers and the
dashboard, which Dask would otherwise bind to every interface).
``--cluster tcp://HOST:PORT`` (or ``tls://``) uses a running scheduler; its
workers must see the run folder at the same path (a shared filesystem) and
run the same nbsim version (checked before the shards fan out).

One task is one shard (``nbsim.run.shards.run_shard``: seconds of work). A worker
writes the shard's files into the run folder atomically (temporary file,
fsync, rename) and sends back only the small manifest entry; the client
writes the manifest. A worker that dies loses its running tasks: the
scheduler runs them again on another worker, which writes the same bytes
under the same names, and the client records each shard once. Before the
shards fan out, each worker compiles (or loads from the Numba cache) the
kernels one worker at a time, since concurrent Numba cache writes are a
known source of crashes.

Dask is optional: ``pip install 'nbsim[cluster]'``.
"""
from __future__ import annotations

import contextlib
import logging
import re
from pathlib import Path

from nbsim.errors import RunError

ADDRESS = re.compile(r"^(tcp|tls)://[^\s/:]+:\d{1,5}$")
CONNECT_TIMEOUT_S = 30
PROGRESS_TOPIC = "nbsim-progress-{run_id}"     # Dask events: [shard index, deals done]


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise RunError("--cluster needs Dask distributed, which is not installed: "
                       "pip install 'nbsim[cluster]'") from None
    return distributed


def check_cluster_address(cluster: str) -> None:
    """Check a --cluster value ('local' or 'tcp://HOST:PORT' / 'tls://HOST:PORT')
    and that Dask is installed. Raises RunError naming what is allowed."""
    if cluster != "local" and not ADDRESS.match(str(cluster)):
        raise RunError(f"--cluster {cluster!r}: give 'local' or a scheduler address "
                       f"tcp://HOST:PORT (tls://HOST:PORT with TLS)")
    _import_distributed()


def warm_worker(spec) -> dict:
    """Load the tables and compile (or load from the cache) the kernels one
    shard of ``spec`` needs, by computing one deal in memory. Returns the
    worker's nbsim version and process id."""
    import os

    from nbsim.run import shards
    from nbsim.version import __version__
    tables = shards.tables()
    if spec.mode == "deal":
        from nbsim.run.frames import deal_frame
        deal_frame(spec.rs.array, spec.seed, 0, 1, tables)
    elif spec.fmt == "matches":
        from nbsim.run.game_mode import match_frame
        match_frame(spec.rs, spec.seed, 0, 1, spec.policies, tables, spec.events)
    else:
        from nbsim.run.game_mode import game_frame
        game_frame(spec.rs, spec.seed, 0, 1, spec.policies, tables, spec.events)
    return {"nbsim": __version__, "pid": os.getpid()}


def _start(cluster: str, workers: int):
    """(client, LocalCluster or None) for a --cluster value."""
    distributed = _import_distributed()
    if cluster == "local":
        lc = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
            scheduler_port=0, dashboard_address="127.0.0.1:0",
            worker_dashboard_address="127.0.0.1:0", silence_logs=logging.ERROR)
        return distributed.Client(lc), lc
    try:
        return distributed.Client(cluster, timeout=CONNECT_TIMEOUT_S), None
    except (OSError, TimeoutError) as e:
        raise RunError(f"--cluster {cluster}: cannot reach the Dask scheduler ({e})") from None
    except Exception as e:      # not a Dask scheduler there, TLS without settings, ...
        hint = ("; tls:// needs Dask's TLS settings (distributed.comm.tls in the Dask "
                "config, see docs/guide/long-runs.md)" if cluster.startswith("tls://") else
                "; is a Dask scheduler listening there?")
        raise RunError(f"--cluster {cluster}: cannot connect to a Dask scheduler "
                       f"({type(e).__name__}: {str(e)[:200]}){hint}") from None


def _warm_all(client, spec, local: bool) -> None:
    """Compile the kernels on every worker before the shards fan out: one
    worker at a time (a cluster may share one Numba cache folder), or all at
    once on a LocalCluster, whose cache this process has just written."""
    from nbsim.version import __version__
    addrs = list(client.scheduler_info()["workers"])
    if not addrs:
        raise RunError("--cluster: the Dask scheduler has no workers")
    groups = [addrs] if local else [[a] for a in addrs]
    for group in groups:
        for addr, info in client.run(warm_worker, spec, workers=group).items():
            if info["nbsim"] != __version__:
                raise RunError(f"--cluster: worker {addr} runs nbsim {info['nbsim']}, this "
                               f"client {__version__}; install the same version everywhere")


def run_on_cluster(cluster: str, tasks, out: Path, workers: int, rec) -> None:
    """Run shard tasks (``shards.ShardTask``) as Dask tasks and record each
    finished shard with ``rec.record`` (``simulate._Recorder``). At most twice as
    many tasks as workers are queued at once, so a huge run does not build
    its task list up front. Raises RunError (no Dask, unreachable scheduler,
    a shard that failed on every try) or OSError from a worker's write."""
    distributed = _import_distributed()
    tasks = iter(tasks)
    first = next(tasks, None)
    if first is None:
        return
    rec.bar.set_postfix_str("starting the Dask cluster" if cluster == "local"
                            else f"connecting to {cluster}")
    if cluster == "local":
        warm_worker(first.spec)        # compile here once: the workers only load the cache
    client, lc = _start(cluster, workers)
    topic = PROGRESS_TOPIC.format(run_id=first.run_id)
    sizes: dict[int, int] = {}             # deals per submitted shard index
    try:
        _warm_all(client, first.spec, lc is not None)
        rec.bar.set_postfix_str("")
        # event = (time, [shard index, deals done]), on the Dask client's thread
        client.subscribe_topic(topic, lambda event: rec.tick(
            event[1][0], event[1][1], sizes.get(event[1][0], 0)))
        width = 2 * max(1, len(client.scheduler_info()["workers"]))
        queue = distributed.as_completed()

        live: set = set()                  # submitted and not yet recorded

        def submit(task):
            sizes[task.index] = task.stop - task.start
            fut = client.submit(_run, task, str(out), pure=False,
                                key=f"nbsim-shard-{task.run_id}-{task.index}")
            live.add(fut)
            queue.add(fut)

        submit(first)
        for _ in range(width - 1):
            t = next(tasks, None)
            if t is None:
                break
            submit(t)
        try:
            for fut in queue:
                try:
                    info = fut.result()
                except distributed.client.FutureCancelledError:  # pragma: no cover
                    raise RunError("--cluster: a shard task was cancelled") from None
                except distributed.scheduler.KilledWorker as e:
                    raise RunError(f"--cluster: shard task {e.task} killed its workers "
                                   f"repeatedly") from None
                rec.record(info)
                live.discard(fut)
                t = next(tasks, None)
                if t is not None:
                    submit(t)
        finally:                # Ctrl-C or an error: keep what the workers finished
            for fut in live:
                if fut.status == "finished":
                    rec.record(fut.result())
    finally:
        with contextlib.suppress(Exception):        # a client already gone
            client.unsubscribe_topic(topic)
        client.close()
        if lc is not None:
            lc.close()


def _run(task, out: str) -> dict:
    """The Dask task: one shard (``shards.run_shard``), its progress (deals
    per kernel chunk) sent to the client as events of ``PROGRESS_TOPIC``."""
    from nbsim.run.shards import run_shard
    try:
        worker = _import_distributed().get_worker()
    except ValueError:                  # not on a Dask worker
        return run_shard(task, out)
    topic = PROGRESS_TOPIC.format(run_id=task.run_id)
    return run_shard(task, out, lambda n: worker.log_event(topic, [task.index, int(n)]))
