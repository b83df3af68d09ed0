"""Worker processes: how many, when they may be forked, and that they die with us.

One place for the rules every parallel step follows (``sitemapkit generate``'s
blocks, ``sitemapkit build``'s pages, ``build_site``'s head checks):

* one process a core, at most :data:`MAX_WORKERS`;
* forked, never spawned: a worker starts in a millisecond with everything
  imported, and reads its state from the parent's memory;
* never forked from a process running other threads (``mkdocs serve``'s
  live-reload server, a host's own pools): a lock another thread held at the
  fork stays held in the child for ever. Such a process does the work itself;
* a worker ends when the process that forked it does, even by SIGKILL.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Union

# More processes than this buy nothing: the steps they share (the walk, the
# writer) become the bottleneck.
MAX_WORKERS = 4

# Pages a worker checks at a time: enough that handing them over costs nothing
# next to reading them, few enough that every core starts early and memory stays flat.
CHUNK_PAGES = 1024
# Processes pay for themselves from this many chunks on (starting them costs
# about what checking a thousand pages does).
POOL_FROM_CHUNKS = 4

# prctl(2): "Set the parent-death signal of the calling process".
_PR_SET_PDEATHSIG = 1


def worker_count() -> int:
    """How many processes a parallel step uses: one a core this process may
    run on, at most MAX_WORKERS."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return min(cpus, MAX_WORKERS)


def can_fork() -> bool:
    """Whether worker processes may be forked from this process now: not on
    macOS, whose system libraries are not safe to use in a forked child
    (Python starts its processes by spawning there since 3.8)."""
    return (
        sys.platform != "darwin"
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and _system_threads() == 1
    )


# How long a thread just joined may still count as one of the process's (it is
# leaving the system then, holding nothing): polled this often, this many times.
_EXITING_THREAD_POLL = 0.002
_EXITING_THREAD_POLLS = 25


def _system_threads() -> int:
    """The threads of this process as the system counts them, where it does: threads
    a C library started (a BLAS pool) hold locks too. A thread this process joined
    a moment ago (the writer's) is given the moment to leave."""
    count = 1
    for _ in range(_EXITING_THREAD_POLLS):
        try:
            with open("/proc/self/status") as status:
                count = next((int(line.split()[1]) for line in status if line.startswith("Threads:")), 1)
        except (OSError, ValueError):
            return 1  # not Linux: Python's own count is all there is
        if count == 1:
            break
        time.sleep(_EXITING_THREAD_POLL)
    return count


def exit_with_parent(parent: int) -> None:
    """A worker ends when this run's main process does, even by SIGKILL (which
    runs no clean-up): otherwise it would live on, reparented, holding its work.
    Linux delivers a signal for it; elsewhere a thread watches the parent."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="sitemapkit-watch-parent", daemon=True).start()


def _start(parent: int, initializer: Callable[..., None], initargs: tuple) -> None:
    exit_with_parent(parent)
    initializer(*initargs)


class InProcess:
    """A pool's interface, doing each task at once, here: one core, or no fork."""

    def __init__(self, initializer: Callable[..., None], initargs: tuple = ()) -> None:
        initializer(*initargs)

    def submit(self, task: Callable[..., Any], *args: Any) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        future.set_result(task(*args))
        return future

    def shutdown(self, cancel_futures: bool = False) -> None:
        pass


#: What start_pool gives: processes, or the stand-in.
Pool = Union[concurrent.futures.ProcessPoolExecutor, InProcess]


@contextlib.contextmanager
def objects_frozen() -> Iterator[None]:
    """The objects this process holds, out of the collector's sight: a collection
    writes to every object it looks at, and each write to memory a forked worker
    shares copies the page it is on. Nothing if some are frozen already (by a
    caller, or by the host tool itself)."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def start_pool(initializer: Callable[..., None], initargs: tuple = (), workers: int | None = None) -> Pool:
    """``workers`` processes (default :func:`worker_count`), each started by
    ``initializer(*initargs)``; an :class:`InProcess` stand-in where there is
    one core or forking is not safe (see :func:`can_fork`)."""
    workers = worker_count() if workers is None else workers
    if workers <= 1 or not can_fork():
        return InProcess(initializer, initargs)
    with objects_frozen():
        pool = concurrent.futures.ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_start,
            initargs=(os.getpid(), initializer, initargs),
        )
        # The first task forks every worker (with fork, the executor starts them
        # all at once): now, while the objects are frozen.
        pool.submit(int)
    return pool
