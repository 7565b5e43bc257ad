"""Arena matches on a Ray cluster: ``basra arena --ray ADDRESS`` and ``basra tournament
--ray ADDRESS`` (needs ``basra[ray]``).

Each duplicate match is one Ray task running :func:`basra.arena.play_arena_match`, and the
outcomes are put together in task order, so a cluster gives the same results as local
worker processes for the same seeds (searching bots against the clock excepted). The
cluster's nodes need the same ``basra`` installed; a task ships only its arguments.

``ADDRESS`` is Ray's: ``auto`` finds the cluster already running on this machine
(``ray start --head``), ``HOST:PORT`` or ``ray://HOST:PORT`` one elsewhere; ``local``
starts a private Ray instance for this run alone and stops it at the end. When this
process has already connected to Ray (``ray.init()``), that connection is used.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import Any

from basra.arena.duplicate import MatchOutcome, MatchTask, Runner, play_arena_match

__all__ = ["ClusterError", "RayMissingError", "check_reachable", "ray_runner"]


class RayMissingError(ImportError):
    """Ray is not installed."""


class ClusterError(RuntimeError):
    """The Ray cluster could not be reached."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissingError("--ray needs Ray, which is not installed: "
                              "pip install 'basra[ray]'") from None
    return ray


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Raise :class:`ClusterError` when a ``HOST:PORT`` address takes no connection (Ray
    itself would wait for minutes); other addresses (``auto``, ``local``, ``ray://``) are
    left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or "://" in address or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ClusterError(f"cannot reach a Ray cluster at {address!r}: "
                           f"{error.strerror or error}") from None


def ray_runner(address: str, num_cpus: int | None = None) -> Runner:
    """A runner (see :data:`basra.arena.Runner`) that plays every match as a Ray task.

    ``num_cpus`` limits a ``local`` instance (every core by default). Raises
    :class:`RayMissingError` at once when Ray is not installed, and
    :class:`ClusterError` when a ``HOST:PORT`` takes no connection.
    """
    ray = _import_ray()
    if address != "local" and not ray.is_initialized():
        check_reachable(address)

    def run(tasks: list[MatchTask], done: Callable[[int, MatchOutcome], None]) -> None:
        started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"logging_level": logging.ERROR, "log_to_driver": False}
            try:
                if address == "local":
                    ray.init(num_cpus=num_cpus, include_dashboard=False, **options)
                else:
                    ray.init(address=address, **options)
            except ConnectionError as error:
                raise ClusterError(f"cannot reach a Ray cluster at {address!r}: "
                                   f"{str(error).splitlines()[0]}") from None
            started = True
        try:
            play = ray.remote(num_cpus=1)(play_arena_match)
            pending = {play.remote(task): index for index, task in enumerate(tasks)}
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    done(pending.pop(ref), ray.get(ref))
        finally:
            if started:
                ray.shutdown()

    return run
