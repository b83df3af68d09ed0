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
* each pool has one state, made once by its ``make_state`` in this process
  just before the fork, so every worker starts with it; a task
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
import gc
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Union


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
    (Python starts its processes by spawning there since 3.8), nor where there
    is no fork (Windows)."""
    return sys.platform != "darwin" and hasattr(os, "fork") and threading.active_count() == 1 and _system_threads() == 1


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


_LIBC_UNLOADED = object()
_libc: Any = _LIBC_UNLOADED


def libc() -> Any:
    """The C library through ctypes (None where there is none to reach), loaded
    once: by a pool before it forks, so that no worker imports ctypes itself
    (each did, in 8 to 20 ms before its first task)."""
    global _libc
    if _libc is _LIBC_UNLOADED:
        _libc = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _libc = ctypes.CDLL(None, use_errno=True)
            except OSError:
                return None
            for name in ("prctl", "mallopt"):  # looked up now, not in each worker
                with contextlib.suppress(AttributeError):
                    getattr(_libc, name)
    return _libc


def exit_with_parent(parent: int) -> None:
    """A worker ends when this run's main process does, even by SIGKILL (which
    runs no clean-up): otherwise it would live on, reparented, holding its work.
    Linux delivers a signal for it; elsewhere a thread watches the parent."""
    armed = False
    c_library = libc()
    if c_library is not None:
        try:
            armed = c_library.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except AttributeError:
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
    c_library = libc()
    mallopt = getattr(c_library, "mallopt", None) if c_library is not None else None
    if mallopt is None:
        return  # not Linux, or another C library (musl has no mallopt): its own ways
    mallopt(_M_MMAP_THRESHOLD, _WORKER_MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _WORKER_TRIM_THRESHOLD)


class PoolBroken(Exception):
    """A worker died (or its pipe broke): what its tasks raise in this process."""


# A message through a pipe: its length, then the pickle.
_LENGTH = struct.Struct("<Q")
# How much of a pipe is read at a time.
_READ_BYTES = 1 << 20


def _read_message(descriptor: int) -> bytes | None:
    """A whole message from a blocking pipe; None at its end."""
    head = _read_exactly(descriptor, _LENGTH.size)
    return None if head is None else _read_exactly(descriptor, _LENGTH.unpack(head)[0])


def _read_exactly(descriptor: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(descriptor, min(left, _READ_BYTES))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _message(value: Any) -> bytes:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def _serve(parent: int, tasks: int, results: int) -> None:
    """A worker's life: each task read, done and its result (or exception)
    written back, until the pipe of tasks ends."""
    exit_with_parent(parent)
    keep_freed_memory()
    while True:
        message = _read_message(tasks)
        if message is None:
            return
        task, args = pickle.loads(message)
        try:
            outcome = (True, task(*args))
        except Exception as error:
            outcome = (False, error)
        try:
            reply = _message(outcome)
        except Exception as error:  # an exception pickle cannot carry
            reply = _message((False, RuntimeError(f"{type(error).__name__}: {error}")))
        _write_all(results, reply)


class Future:
    """A task handed to a :class:`ForkPool`: its result once a worker gave it."""

    __slots__ = ("pool", "message", "done", "ok", "value", "callbacks")

    def __init__(self, pool: ForkPool, message: bytes) -> None:
        self.pool, self.message = pool, message
        self.done = self.ok = False
        self.value: Any = None
        self.callbacks: list[Callable[[Future], None]] = []

    def add_done_callback(self, callback: Callable[[Future], None]) -> None:
        self.callbacks.append(callback)

    def result(self) -> Any:
        while not self.done:
            self.pool.poll(block=True)
        if self.ok:
            return self.value
        raise self.value

    def _set(self, ok: bool, value: Any) -> None:
        self.done, self.ok, self.value, self.message = True, ok, value, b""
        for callback in self.callbacks:
            callback(self)
        self.callbacks = []


class _Worker:
    """One forked process, as the pool sees it: its pipes, the tasks it holds
    in the order it does them, and the bytes not yet through either pipe."""

    __slots__ = ("pid", "tasks", "results", "held", "unsent", "received")

    def __init__(self, pid: int, tasks: int, results: int) -> None:
        self.pid, self.tasks, self.results = pid, tasks, results
        self.held: collections.deque[Future] = collections.deque()
        self.unsent = memoryview(b"")
        self.received = bytearray()


class ForkPool:
    """``count`` processes forked from this one, each started by
    ``initializer(*initargs)``, that take tasks (a module-level function and
    its arguments, pickled) through a pipe each and give their results through
    another. This process hands each task to the worker holding the fewest
    (:data:`HELD_PER_WORKER` at most: one being done, one waiting, so a worker
    never waits for this process), writes and reads without blocking, and only
    waits inside :meth:`Future.result`. This is the work concurrent.futures'
    process pool did, without its imports (about 25 ms, more than writing a
    small list's sitemap takes) and without its threads."""

    #: Tasks a worker holds at once: the one it does, and the next.
    HELD_PER_WORKER = 2

    def __init__(self, count: int, initializer: Callable[..., None], initargs: tuple = ()) -> None:
        self._workers: list[_Worker] = []
        self._waiting: collections.deque[Future] = collections.deque()
        self._broken = False
        parent = os.getpid()
        # Made here, once, before the fork: each worker starts with it (and
        # with the C library loaded), rather than each making its own first.
        initializer(*initargs)
        libc()
        for _ in range(count):
            tasks_read, tasks_write = os.pipe()
            results_read, results_write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker
                status = 1
                try:
                    os.close(tasks_write)
                    os.close(results_read)
                    for sibling in self._workers:  # its siblings' pipes are not its own
                        os.close(sibling.tasks)
                        os.close(sibling.results)
                    _serve(parent, tasks_read, results_write)
                    status = 0
                except BaseException:  # noqa: BLE001 (nothing of a worker's may reach the caller's code)
                    pass
                finally:
                    os._exit(status)
            os.close(tasks_read)
            os.close(results_write)
            os.set_blocking(tasks_write, False)
            os.set_blocking(results_read, False)
            self._workers.append(_Worker(pid, tasks_write, results_read))

    def submit(self, task: Callable[..., Any], *args: Any) -> Future:
        if self._broken:
            raise PoolBroken("a worker died")
        future = Future(self, _message((task, args)))
        self._waiting.append(future)
        self.poll(block=False)
        return future

    def poll(self, block: bool) -> None:
        """Hand out waiting tasks, send what the pipes take, take what results
        are there; wait for some progress when ``block``."""
        if self._broken:
            self._break()
            return
        self._hand_out()
        readers = [w.results for w in self._workers if w.held]
        writers = [w.tasks for w in self._workers if w.unsent]
        if not readers and not writers:
            return
        ready_read, ready_write, _ = select.select(readers, writers, [], None if block else 0)
        try:
            for worker in self._workers:
                if worker.tasks in ready_write:
                    self._send(worker)
                if worker.results in ready_read:
                    self._receive(worker)
        except PoolBroken:
            self._break()
            return
        # One round of progress: a caller that waits looks at its future again.
        self._hand_out()

    def _hand_out(self) -> None:
        while self._waiting:
            worker = min(self._workers, key=lambda w: len(w.held))
            if len(worker.held) >= self.HELD_PER_WORKER:
                return
            future = self._waiting.popleft()
            worker.held.append(future)
            if worker.unsent:
                worker.unsent = memoryview(bytes(worker.unsent) + future.message)
            else:
                worker.unsent = memoryview(future.message)
            try:
                self._send(worker)
            except PoolBroken:
                self._break()
                return

    def _send(self, worker: _Worker) -> None:
        try:
            while worker.unsent:
                worker.unsent = worker.unsent[os.write(worker.tasks, worker.unsent) :]
        except BlockingIOError:
            pass
        except OSError as error:  # EPIPE: the worker is gone
            raise PoolBroken("a worker died") from error

    def _receive(self, worker: _Worker) -> None:
        try:
            chunk = os.read(worker.results, _READ_BYTES)
        except BlockingIOError:
            return
        if not chunk:
            raise PoolBroken("a worker died")
        received = worker.received
        received += chunk
        while len(received) >= _LENGTH.size:
            size = _LENGTH.unpack_from(received)[0]
            end = _LENGTH.size + size
            if len(received) < end:
                break
            ok, value = pickle.loads(memoryview(received)[_LENGTH.size : end])
            del received[:end]
            worker.held.popleft()._set(ok, value)

    def _break(self) -> None:
        """A worker died: every task not done fails, and no more are taken."""
        self._broken = True
        failed = [f for w in self._workers for f in w.held] + list(self._waiting)
        for worker in self._workers:
            worker.held.clear()
        self._waiting.clear()
        for future in failed:
            if not future.done:
                future._set(False, PoolBroken("a worker died"))

    def shutdown(self) -> None:
        """The workers told there is no more and waited for (each ends after
        the task it does); the tasks not done fail."""
        self._break()
        # Both pipes closed first: a worker writing a result then ends at once,
        # rather than wait for this process to read it.
        for worker in self._workers:
            os.close(worker.tasks)
            os.close(worker.results)
        for worker in self._workers:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
        self._workers = []


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

    def shutdown(self) -> None:
        pass


#: What start_pool gives: processes, or the stand-in.
Pool = Union[ForkPool, InProcess]


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
        return ForkPool(workers, initializer, initargs)


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

    def __init__(self, task: Callable[..., Any], args: tuple, future: Future | Done | None) -> None:
        self.task, self.args, self.future = task, args, future


def _forget_args(handed: Task, future: Future) -> None:
    if not isinstance(future.value, PoolBroken):
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
            self._pool.shutdown()
        _states.pop(self.make_state, None)  # this process's, if it did the work
        self._state = None

    def submit(self, task: Callable[..., Any], *args: Any) -> Task:
        """``task(state, *args)`` handed to a worker (done at once where there are none)."""
        if self._pool is None:
            return Task(task, args, None)
        try:
            future = self._pool.submit(_run, self.make_state, task, args)
        except PoolBroken:
            self._lost()
            return Task(task, args, None)
        handed = Task(task, args, future)
        if not isinstance(future, Done):
            # Done by its worker, the task is not needed again: its arguments (a
            # shard's entries) are freed now, not when its result is taken.
            future.add_done_callback(lambda done: _forget_args(handed, done))
        return handed

    def result(self, handed: Task) -> Any:
        """What ``handed`` returned (its exception raised); done here when its
        worker died, as is every task after it."""
        if handed.future is not None:
            try:
                return handed.future.result()
            except PoolBroken:
                self._lost()
        if self._state is None:
            # The pool's, made here before the fork, or made now.
            self._state = _states.get(self.make_state) or self.make_state(*self.args)
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
            self._pool.shutdown()
            self._pool = None
