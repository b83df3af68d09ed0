"""Worker processes: whether they pay, how many, when they may be forked, what
each holds, what happens when one dies, and that they die with us.

One place for the rules every parallel step follows (``sitemapkit generate``'s
blocks, ``sitemapkit build``'s pages, ``build_site``'s head checks), all through
:class:`Workers`:

* a pool pays from :data:`POOL_FROM_CHUNKS` tasks on (:func:`pool_pays`); fewer
  are done in this process;
* one process a core, at most :data:`MAX_WORKERS`;
* forked, never spawned: a worker starts with everything imported, and
  reads its state from the parent's memory;
* never forked from a process running other threads (``mkdocs serve``'s
  live-reload server, a host's own pools): a lock another thread held at the
  fork stays held in the child for ever. Such a process does the work itself;
* a worker ends when the process that forked it does, even by SIGKILL;
* each process holds one state per pool, made once by the pool's ``make_state``
  (in a worker at its start, from the parent's memory the fork copied); a task
  is a module-level function called as ``task(state, *args)``, so the same task
  runs in a worker or here;
* results are taken in the order the tasks were handed out, a bounded number of
  tasks ahead (:meth:`Workers.in_order`), so memory stays flat;
* a worker that dies (the out-of-memory killer, a user's ``kill``) loses
  nothing: every task it had not finished is done again in this process, and
  so is every later one (:meth:`Workers.result`). A task may run twice, so a
  task's only effect outside its result is a file named by its content.

Memory: a forked worker shares the parent's memory until either writes to it.
So the parent's objects are frozen out of the collector's sight while workers
start (:func:`objects_frozen`), and a step whose parent holds the whole site
(``build_site``'s pages) makes every task, as bytes, before the fork and only
waits while the workers run.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Union

# concurrent.futures and multiprocessing are imported when a pool starts: most
# builds and lists are small and start none, and the two cost more to import
# than writing a small site's sitemap does.
if TYPE_CHECKING:
    import concurrent.futures

# More processes than this buy nothing: the steps they share (the walk, the
# writer) become the bottleneck.
MAX_WORKERS = 4

# Pages a worker checks at a time: enough that handing them over costs nothing
# next to reading them, few enough that every core starts early and memory stays flat.
CHUNK_PAGES = 1024
# Processes pay for themselves from this many chunks on: starting them costs
# about what checking a chunk of pages does.
POOL_FROM_CHUNKS = 4
# A URL list's block (see urllist.BLOCK_BYTES) is many chunks' worth of work:
# processes pay from the second.
POOL_FROM_BLOCKS = 2

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
    import multiprocessing

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


# mallopt(3): glibc's M_TRIM_THRESHOLD and M_MMAP_THRESHOLD.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
# A worker's buffers (a URL list's block and its formatted copies, about a
# megabyte each) are kept in its heap below this size, and the heap is given
# back to the system only past the second: glibc otherwise maps each buffer over
# 128 KiB afresh and unmaps it when freed, and the system zeroes every page of
# every buffer again (a sixth of a large list's time). A worker's peak is no
# higher for it: its buffers are freed and reused.
_WORKER_MMAP_THRESHOLD = 32 << 20
_WORKER_TRIM_THRESHOLD = 128 << 20


def keep_freed_memory() -> None:
    """Large buffers kept in this process's heap once freed (see
    _WORKER_MMAP_THRESHOLD), where the C library is glibc; else nothing."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        mallopt(_M_MMAP_THRESHOLD, _WORKER_MMAP_THRESHOLD)
        mallopt(_M_TRIM_THRESHOLD, _WORKER_TRIM_THRESHOLD)
    except (OSError, AttributeError):
        pass  # another C library (musl has no mallopt): its own ways


def _start(parent: int, initializer: Callable[..., None], initargs: tuple) -> None:
    exit_with_parent(parent)
    keep_freed_memory()
    initializer(*initargs)


class Done:
    """A task done at once: what a future gives, without the machinery."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


class InProcess:
    """A pool's interface, doing each task at once, here: one core, or no fork."""

    def __init__(self, initializer: Callable[..., None], initargs: tuple = ()) -> None:
        initializer(*initargs)

    def submit(self, task: Callable[..., Any], *args: Any) -> Done:
        return Done(task(*args))

    def shutdown(self, cancel_futures: bool = False) -> None:
        pass


#: What start_pool gives: processes, or the stand-in.
Pool = Union["concurrent.futures.ProcessPoolExecutor", InProcess]


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
    import concurrent.futures
    import multiprocessing

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


def pool_pays(tasks: int, least: int | None = None) -> bool:
    """Whether worker processes pay for a step of ``tasks`` tasks (known so far):
    from ``least`` on (default :data:`POOL_FROM_CHUNKS`, for tasks of
    :data:`CHUNK_PAGES` pages; :data:`POOL_FROM_BLOCKS` for a URL list's blocks).
    How many processes, and whether they may be forked, is :class:`Workers`'."""
    return tasks >= (POOL_FROM_CHUNKS if least is None else least)


# This process's state for each pool's make_state (see Workers).
_states: dict[Callable[..., Any], Any] = {}


def _keep_state(make_state: Callable[..., Any], args: tuple) -> None:
    _states[make_state] = make_state(*args)


def _run(make_state: Callable[..., Any], task: Callable[..., Any], args: tuple) -> Any:
    return task(_states[make_state], *args)


class Task:
    """A task handed out: what it is, to do it again here if its worker dies."""

    __slots__ = ("task", "args", "future")

    def __init__(self, task: Callable[..., Any], args: tuple, future: concurrent.futures.Future | Done | None) -> None:
        self.task, self.args, self.future = task, args, future


def _broken_pool() -> type[Exception]:
    """The error a pool's futures raise when a worker died (imported by then)."""
    from concurrent.futures.process import BrokenProcessPool

    return BrokenProcessPool


def _forget_args(handed: Task, future: concurrent.futures.Future) -> None:
    if not future.cancelled() and not isinstance(future.exception(), _broken_pool()):
        handed.args = ()


class Workers:
    """The processes of one step (``count``, default one a core; an in-process
    stand-in where :func:`start_pool` gives one), each holding the state
    ``make_state(*args)`` makes. Use as a context manager: the processes end
    with it."""

    def __init__(
        self, make_state: Callable[..., Any], args: tuple = (), count: int | None = None, ahead: int | None = None
    ) -> None:
        self.make_state, self.args = make_state, args
        count = worker_count() if count is None else count
        self._pool: Pool | None = start_pool(_keep_state, (make_state, args), count)
        #: How many tasks in_order hands out beyond the one whose result it awaits:
        #: enough to keep every core busy (default two a process; a step of big
        #: tasks names fewer, to hold less).
        self.ahead = 0 if isinstance(self._pool, InProcess) else (2 * count if ahead is None else ahead)
        self._state: Any = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        _states.pop(self.make_state, None)  # this process's, if it did the work
        self._state = None

    def submit(self, task: Callable[..., Any], *args: Any) -> Task:
        """``task(state, *args)`` handed to a worker (done at once where there are none)."""
        if self._pool is None:
            return Task(task, args, None)
        try:
            future = self._pool.submit(_run, self.make_state, task, args)
        except Exception as error:
            if not isinstance(error, _broken_pool()):
                raise
            self._lost()
            return Task(task, args, None)
        handed = Task(task, args, future)
        if not isinstance(future, Done):
            # Done by its worker, the task is not needed again: its arguments (a
            # shard's entries) are freed now, not when its result is taken.
            future.add_done_callback(functools.partial(_forget_args, handed))
        return handed

    def result(self, handed: Task) -> Any:
        """What ``handed`` returned (its exception raised); done here when its
        worker died, as is every task after it."""
        if handed.future is not None:
            try:
                return handed.future.result()
            except Exception as error:
                if not isinstance(error, _broken_pool()):
                    raise
                self._lost()
        if self._state is None:
            self._state = self.make_state(*self.args)
        return handed.task(self._state, *handed.args)

    def in_order(self, tasks: Iterable[tuple[Callable[..., Any], tuple]], ahead: int | None = None) -> Iterator[Any]:
        """The results of ``tasks`` (each ``(task, args)``), in their order, at
        most ``ahead`` (default :attr:`ahead`) handed out beyond the one awaited."""
        ahead = self.ahead if ahead is None or self._pool is None or isinstance(self._pool, InProcess) else ahead
        pending: collections.deque[Task] = collections.deque()
        for task, args in tasks:
            pending.append(self.submit(task, *args))
            while len(pending) > ahead:
                yield self.result(pending.popleft())
        while pending:
            yield self.result(pending.popleft())

    def _lost(self) -> None:
        """A worker died: the rest is done in this process."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
