"""``nbsim server start|stop|status``: the opt-in warm server (``nbsim.server``;
``nbsim.client`` says when the ``nbsim`` command uses one). The commands
talk to the servers through ``nbsim.protocol`` only; ``nbsim.cli``
registers the group."""
from __future__ import annotations

import click


@click.group("server")
def server_group():
    """The opt-in warm server: a process that has imported nbsim and its
    libraries once and runs each ``nbsim`` call in a fork of itself
    (``nbsim.server``), so a call skips the libraries' start-up.

    By default every ``nbsim`` command runs in its own process. Once
    ``nbsim server start`` has started a server, the commands of the same
    setup (code, packages, NBSIM_*/NUMBA_* settings) run in it while it
    lives; it stops after NBSIM_SERVER_IDLE seconds without a command
    (default 900) or on ``nbsim server stop``. NBSIM_SERVER=1 starts one
    when a call finds none; NBSIM_SERVER=0 never uses one."""


@server_group.command("status")
def server_status_cmd():
    """List the running servers in the servers' folder (NBSIM_SERVER_DIR,
    else $XDG_RUNTIME_DIR/nbsim, else <tmp>/nbsim-<uid>): pid, commands
    served and running, kernels preloaded, seconds idle; '*' marks the one
    this shell's calls use (none with NBSIM_SERVER=0)."""
    from nbsim.protocol import server_mode, servers

    used = server_mode() != "off"            # an unknown NBSIM_SERVER stops here
    found = servers()
    if not found:
        click.echo("no nbsim server is running")
    for st in found:
        mark = "*" if st["current"] and used else " "
        click.echo(f"{mark} pid {st['pid']}: {st['requests']} commands, "
                   f"{st['running']} running, preloaded {', '.join(st['preloaded']) or 'none'}, "
                   f"idle {st['idle_s']:.0f} s of {st['idle_limit_s']:.0f} s "
                   f"({st['socket']})")


@server_group.command("start")
def server_start_cmd():
    """Start the server of this setup (if none runs) and wait until it
    answers (at most 60 s); later ``nbsim`` calls with the same settings run
    in it until it stops."""
    from nbsim.protocol import start

    st = start()
    if st is None:
        raise click.ClickException("the server did not answer within 60 s; its log is next "
                                   "to its socket (nbsim server status lists the folder)")
    click.echo(f"server pid {st['pid']} at {st['socket']}, preloaded "
               f"{', '.join(st['preloaded']) or 'no kernels'}")


@server_group.command("stop")
def server_stop_cmd():
    """Stop every nbsim server in the servers' folder (NBSIM_SERVER_DIR,
    else $XDG_RUNTIME_DIR/nbsim, else <tmp>/nbsim-<uid>); each lets its
    running commands finish first."""
    from nbsim.protocol import stop_all

    pids = stop_all()
    click.echo(f"asked {len(pids)} server(s) to stop" + (f": pid {', '.join(map(str, pids))}"
                                                          if pids else ""))
