"""Run embarrassingly parallel work on this machine, a Dask cluster or a Ray cluster.

Tournament pairs, simulation batches, training runs and solver shards are all the same shape of
work: a list of independent *tasks*, each a JSON-able dictionary of parameters, and one function
that turns a task into a small result. :func:`run_tasks` runs them on one of three backends:

``local`` (the default)
    Processes on this machine (:class:`concurrent.futures.ProcessPoolExecutor`); with one worker
    the tasks run in this process.
``dask``
    A :mod:`dask.distributed` cluster: ``address="tcp://HOST:PORT"`` connects to a running
    scheduler, no address starts a :class:`~dask.distributed.LocalCluster` for the run.
``ray``
    A Ray cluster (``pip install 'dicelab[ray]'``): ``address="ray://HOST:10001"`` or ``"auto"``;
    no address starts Ray locally.

Guarantees, whatever the backend and the number of workers:

* **Bit-for-bit reproducible.** Every task carries its own seed (derive them with
  :func:`task_seed`: the ``index``-th child of ``SeedSequence(seed)``, exactly what
  ``SeedSequence(seed).spawn(n)[index]`` gives), batches have fixed sizes, and results are
  returned in task order, so how tasks are spread over workers cannot change a number.
* **Progress as tasks finish** (a rich bar on stderr).
* **Dead workers lose nothing.** A task whose worker dies is run again (the local backend rebuilds
  its pool; Dask and Ray reschedule); results are keyed by task, so a task that happens to finish
  twice is counted once.
* **Resumable.** With ``store=DIR`` every finished result is written, as it arrives, to Parquet
  files in ``DIR`` (one row per task, keyed by ``task_id``, with a digest of the task's
  parameters). Running the same job again with the same store loads the finished tasks and runs
  only the rest. A store holding another job's results (other function, or different parameters
  under the same task id) is refused with a one-line error.

A task function should be a module-level function of an installed package, so workers import it
(one defined in a script or a test is sent by value through ``cloudpickle``, which the ``dask``
extra installs). It returns a mapping from column names to results: ``bool``, ``int``,
``float``, ``str`` or a numpy array (any shape; returned as a numpy array of the same dtype and
shape). Local workers are started with ``forkserver`` (never ``fork``: a process that has run
numba's parallel code cannot fork safely) and use one core each.

>>> from dicelab.core.backends import Task, run_tasks
>>> tasks = [Task(str(i), {"x": i}) for i in range(4)]
>>> results = run_tasks(_square, tasks, workers=1, progress=False)
>>> [r["y"] for r in results]
[0, 1, 4, 9]
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import numpy as np

from dicelab.core.errors import DicelabError, require
from dicelab.core.memory import available_bytes
from dicelab.core.progress import progress_bar

BACKENDS: tuple[str, ...] = ("local", "dask", "ray")
RESULT_SCALARS = (bool, int, float, str)
_SHAPES = "__shapes__"
_DIGEST = "__params_sha256__"
_KEY = "task_id"

Result = dict[str, Any]
TaskFn = Callable[[dict[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class Task:
    """One unit of work: a unique ``key`` and the JSON-able ``params`` handed to the function;
    ``memory``, about the bytes the task holds at its peak (0: small), lets local workers start it
    only where it fits beside the tasks already running (it is not part of the :meth:`digest`)."""

    key: str
    params: dict[str, Any] = field(default_factory=dict)
    memory: float = 0.0

    def digest(self) -> str:
        """sha256 of the parameters (canonical JSON), to recognise the task in a results store."""
        blob = json.dumps(self.params, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


def task_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The seed sequence of task ``index`` of a job seeded with ``seed``.

    Equal to ``np.random.SeedSequence(seed).spawn(index + 1)[index]``, but computed on the worker
    from two integers, so tasks only need to carry ``seed`` and ``index``.
    """
    return np.random.SeedSequence(int(seed), spawn_key=(int(index),))


def batches(total: int, size: int) -> list[tuple[int, int]]:
    """Split ``total`` items into fixed-size ``(start, count)`` batches (the last may be short).

    The split depends on ``total`` and ``size`` only, never on the number of workers.
    """
    require(size >= 1, f"batch size must be at least 1, got {size}")
    return [(s, min(size, total - s)) for s in range(0, total, size)]


def check_backend(backend: str, address: str | None = None) -> None:
    """Raise a one-line :class:`DicelabError` for an unknown backend or a misplaced address."""
    require(
        backend in BACKENDS, f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}"
    )
    if backend == "local":
        require(
            address is None,
            "--address needs --backend dask or ray; the local backend has no address",
        )
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise DicelabError(
                "the ray backend needs the 'ray' package: pip install 'dicelab[ray]' (or use --backend dask)"
            ) from None


# --------------------------------------------------------------------------------------------
# results: normalisation and the Parquet store


def _normalise(key: str, result: Mapping[str, Any]) -> Result:
    if not isinstance(result, Mapping):
        raise TypeError(
            f"task {key!r}: the task function must return a mapping, got {type(result).__name__}"
        )
    out: Result = {}
    for name, value in result.items():
        if not isinstance(name, str) or name in (_KEY, _SHAPES, _DIGEST):
            raise TypeError(f"task {key!r}: bad result column name {name!r}")
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, RESULT_SCALARS):
            out[name] = value
        elif isinstance(value, (np.ndarray, list, tuple)):
            arr = np.asarray(value)
            if arr.dtype.kind not in "biuf":
                raise TypeError(
                    f"task {key!r}: array {name!r} must be numeric or bool, got {arr.dtype}"
                )
            out[name] = arr
        else:
            raise TypeError(
                f"task {key!r}: result {name!r} has unsupported type {type(value).__name__}"
            )
    return out


def _to_row(key: str, digest: str, result: Result) -> dict[str, Any]:
    row: dict[str, Any] = {_KEY: key, _DIGEST: digest}
    shapes: dict[str, Any] = {}
    for name, value in result.items():
        if isinstance(value, np.ndarray):
            shapes[name] = [value.dtype.str, list(value.shape)]
            row[name] = value.ravel().tolist()
        else:
            row[name] = value
    row[_SHAPES] = json.dumps(shapes, sort_keys=True)
    return row


def _from_row(row: Mapping[str, Any]) -> Result:
    shapes = json.loads(row[_SHAPES])
    out: Result = {}
    for name, value in row.items():
        if name in (_KEY, _DIGEST, _SHAPES) or value is None:
            continue
        if name in shapes:
            dtype, shape = shapes[name]
            out[name] = np.asarray(value, dtype=np.dtype(dtype)).reshape(shape)
        else:
            out[name] = value
    return out


class ResultStore:
    """Finished task results in a folder of Parquet files, written as they arrive.

    Each flush writes one ``part-*.parquet`` file atomically (write, then rename), so a run killed
    at any moment leaves only whole files behind. ``job.json`` names the task function, so a
    store cannot be resumed by another job by mistake.
    """

    def __init__(self, path: str | os.PathLike[str], job: str, flush_seconds: float = 1.0) -> None:
        self.path = Path(path)
        self.job = job
        self.flush_seconds = flush_seconds
        self._pending: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()
        self._found: dict[str, tuple[str, Result]] | None = None
        if self.path.exists() and not self.path.is_dir():
            raise DicelabError(f"results store {self.path} exists and is not a folder")
        self.path.mkdir(parents=True, exist_ok=True)
        manifest = self.path / "job.json"
        if manifest.exists():
            try:
                stored = json.loads(manifest.read_text()).get("job")
            except json.JSONDecodeError:
                raise DicelabError(
                    f"{manifest} is not valid JSON; remove the store to start over"
                ) from None
            if stored != job:
                raise DicelabError(
                    f"results store {self.path} belongs to job {stored!r}, not {job!r}; use another --store"
                )
        else:
            manifest.write_text(json.dumps({"job": job, "format": 1}, indent=2))

    def load(self) -> dict[str, tuple[str, Result]]:
        """Every stored result: task id -> (parameter digest, result); read once, then kept."""
        import pyarrow.parquet as pq

        if self._found is not None:
            return self._found
        found: dict[str, tuple[str, Result]] = {}
        for part in sorted(self.path.glob("part-*.parquet")):
            try:
                rows = pq.read_table(part).to_pylist()
            except Exception as exc:  # noqa: BLE001 - any unreadable file is reported the same way
                raise DicelabError(
                    f"cannot read {part}: {exc}; remove it to run those tasks again"
                ) from None
            for row in rows:
                found[row[_KEY]] = (row[_DIGEST], _from_row(row))
        self._found = found
        return found

    def add(self, key: str, digest: str, result: Result) -> None:
        self._pending.append(_to_row(key, digest, result))
        if self._found is not None:
            self._found[key] = (digest, result)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._last_flush = time.monotonic()
        if not self._pending:
            return
        table = pa.Table.from_pylist(self._pending)
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.path / (name + ".tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, self.path / name)
        self._pending = []

    def compact(self, max_parts: int = 64) -> None:
        """Rewrite the store as one Parquet file once it holds more than ``max_parts`` files.

        The merged file is written (atomically) before the old ones are removed, so a crash in
        between leaves duplicate rows, which :meth:`load` reads as one result per task.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.flush()
        parts = sorted(self.path.glob("part-*.parquet"))
        if len(parts) <= max_parts:
            return
        rows = [_to_row(key, digest, result) for key, (digest, result) in self.load().items()]
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.path / (name + ".tmp")
        pq.write_table(pa.Table.from_pylist(rows), tmp)
        os.replace(tmp, self.path / name)
        for part in parts:
            part.unlink(missing_ok=True)


def read_results(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of a results store (``task_id`` plus the result columns), for later analysis."""
    p = Path(path)
    require(p.is_dir(), f"no results store at {p}")
    job = json.loads((p / "job.json").read_text()).get("job", "")
    rows = []
    for key, (_, result) in ResultStore(p, job).load().items():
        rows.append({_KEY: key, **result})
    return rows


# --------------------------------------------------------------------------------------------
# the runner


def _job_name(fn: Callable[..., Any]) -> str:
    return f"{fn.__module__}.{getattr(fn, '__qualname__', fn.__name__)}"


class Session:
    """An open backend that runs several jobs in a row on the same workers.

    ``with Session("dask", address=...) as session: session.run(fn, tasks)`` keeps one process
    pool, Dask client (and ``LocalCluster``) or Ray connection for every :meth:`run` inside the
    block: what layered work (a solver that runs layer after layer) needs. :func:`run_tasks` is
    one job in its own session.
    """

    def __init__(
        self,
        backend: str = "local",
        address: str | None = None,
        workers: int | None = None,
        max_retries: int = 3,
        memory: float | None = None,
    ) -> None:
        check_backend(backend, address)
        require(workers is None or workers >= 1, f"workers must be at least 1, got {workers}")
        require(max_retries >= 0, f"max_retries must be at least 0, got {max_retries}")
        require(memory is None or memory > 0, f"the memory budget must be positive bytes, got {memory}")
        self.backend = backend
        self.address = address
        self.workers = workers
        self.max_retries = max_retries
        self.memory = memory
        self._pool: ProcessPoolExecutor | None = None
        self._cluster: Any = None
        self._client: Any = None
        self._ray_started = False

    # -- lifetime ---------------------------------------------------------------------------
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop what this session started (a remote cluster named by an address is left running)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None
        if self._ray_started:
            import ray

            ray.shutdown()
            self._ray_started = False

    @property
    def n_workers(self) -> int:
        """How many tasks can run at once."""
        if self.backend == "local":
            return self.workers or (os.cpu_count() or 1)
        if self.backend == "dask":
            client = self._dask()
            return max(
                1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
            )
        import ray

        self._ray()
        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    # -- one job ----------------------------------------------------------------------------
    def run(
        self,
        fn: TaskFn,
        tasks: Sequence[Task],
        *,
        store: str | os.PathLike[str] | ResultStore | None = None,
        progress: bool = True,
        description: str = "tasks",
        on_result: Callable[[str, Result], None] | None = None,
    ) -> list[Result]:
        """Run ``fn(task.params)`` for every task; results in task order (see :func:`run_tasks`).

        ``store`` may be an open :class:`ResultStore`, to share one store between many jobs.
        """
        keys = [t.key for t in tasks]
        require(len(set(keys)) == len(keys), "task ids must be unique")
        digests = {t.key: t.digest() for t in tasks}
        results: dict[str, Result] = {}
        if isinstance(store, ResultStore):
            rstore: ResultStore | None = store
            require(
                store.job == _job_name(fn),
                f"results store {store.path} belongs to job {store.job!r}",
            )
        else:
            rstore = ResultStore(store, _job_name(fn)) if store is not None else None
        if rstore is not None:
            for key, (digest, result) in rstore.load().items():
                if key in digests:
                    if digest != digests[key]:
                        raise DicelabError(
                            f"results store {rstore.path} holds task {key!r} with other parameters; "
                            "use another --store for a different job"
                        )
                    results[key] = result
        todo = [t for t in tasks if t.key not in results]

        with progress_bar(
            description, total=len(tasks), enabled=progress and len(tasks) > 1
        ) as bar:
            bar.advance(len(tasks) - len(todo))

            def accept(key: str, raw: Mapping[str, Any]) -> None:
                if key in results:  # finished twice (a retried task whose first run also returned)
                    return
                result = _normalise(key, raw)
                results[key] = result
                if rstore is not None:
                    rstore.add(key, digests[key], result)
                if on_result is not None:
                    on_result(key, result)
                bar.advance()

            try:
                if todo:
                    if self.backend == "local":
                        self._run_local(fn, todo, accept)
                    elif self.backend == "dask":
                        self._run_dask(fn, todo, accept)
                    else:
                        self._run_ray(fn, todo, accept)
            finally:
                if rstore is not None:
                    rstore.compact()
        return [results[k] for k in keys]

    # -- local processes --------------------------------------------------------------------
    def _new_pool(self) -> ProcessPoolExecutor:
        # never fork: a process that has run numba's parallel (OpenMP) code cannot fork safely
        import multiprocessing as mp

        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(
            max_workers=self.n_workers, mp_context=mp.get_context(method), initializer=_worker_init
        )
        # start every worker now: CPython starts them one per submit, and its watcher thread may
        # be waiting on the older workers only, so a new worker that dies goes unnoticed until
        # another task ends, and the tasks handed out meanwhile are taken for suspects
        launch = getattr(pool, "_launch_processes", None)
        if launch is not None:
            launch()
        return pool

    def _memory_budget(self) -> float:
        """The bytes local tasks may hold together: the session's ``memory``, else nine tenths of
        what the machine has available as the job starts (the tasks' figures are estimates)."""
        return self.memory if self.memory is not None else 0.9 * available_bytes()

    def _run_local(self, fn: TaskFn, todo: list[Task], accept: Callable[[str, Any], None]) -> None:
        if self.n_workers <= 1 or len(todo) <= 1:
            for t in todo:
                accept(t.key, fn(t.params))
            return
        # a task starts when a worker is free and its memory fits beside the running tasks' (the
        # first in order that fits; with nothing running, any task starts): two large trainings on
        # one machine run one after the other instead of the kernel killing one of them. The tasks
        # running when a worker died (out of memory, most often) run again alone.
        budget = self._memory_budget()
        attempts = {t.key: 0 for t in todo}
        remaining = {t.key: t for t in todo}
        alone: set[str] = set()

        def need(t: Task) -> float:
            return math.inf if t.key in alone else t.memory

        while remaining:
            if self._pool is None:
                self._pool = self._new_pool()
            waiting = list(remaining.values())
            running: dict[Future[Any], Task] = {}
            broken = False
            try:
                call, payload = _shippable(fn)
                while (waiting or running) and not broken:
                    held = sum(need(t) for t in running.values())
                    i = 0
                    while i < len(waiting) and len(running) < self.n_workers:
                        t = waiting[i]
                        if running and held + need(t) > budget:
                            i += 1
                            continue
                        waiting.pop(i)
                        attempts[t.key] += 1
                        running[self._pool.submit(call, payload, t.params)] = t
                        held += need(t)
                    done, _ = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        t = running.pop(fut)
                        try:
                            value = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            alone.add(t.key)
                            continue
                        accept(t.key, value)
                        remaining.pop(t.key, None)
            except BrokenProcessPool:
                broken = True
            if broken:  # a worker died: start a fresh pool and run the unfinished tasks again
                alone.update(t.key for t in running.values())
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None
                for key in remaining:
                    if attempts[key] > self.max_retries:
                        raise DicelabError(
                            f"task {key!r} lost its worker {attempts[key]} times; giving up "
                            "(out of memory, or the worker cannot import the task function)"
                        )

    # -- Dask -------------------------------------------------------------------------------
    def _dask(self) -> Any:
        if self._client is not None:
            return self._client
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise DicelabError(
                "the dask backend needs dask.distributed: pip install 'dicelab[dask]'"
            ) from None
        import logging

        if self.address is None:
            self._cluster = LocalCluster(
                n_workers=self.workers or (os.cpu_count() or 1),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
                env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},  # one core per worker
            )
            self._client = Client(self._cluster)
        else:
            try:
                self._client = Client(self.address, timeout="20s")
            except (OSError, TimeoutError) as exc:
                raise DicelabError(
                    f"cannot reach the Dask scheduler at {self.address}: {exc}"
                ) from None
        return self._client

    def _run_dask(self, fn: TaskFn, todo: list[Task], accept: Callable[[str, Any], None]) -> None:
        from dask.distributed import as_completed

        client = self._dask()
        run_id = uuid.uuid4().hex[:12]
        futures = {}
        for t in todo:
            fut = client.submit(
                fn, t.params, key=f"dicelab-{run_id}-{t.key}", pure=False, retries=self.max_retries
            )
            futures[fut.key] = (fut, t.key)
        try:
            for fut in as_completed([f for f, _ in futures.values()]):
                _, key = futures.pop(fut.key)
                accept(key, fut.result())
                fut.release()
        finally:
            for fut, _ in futures.values():  # an error or an interruption: drop what is left
                fut.cancel()

    # -- Ray --------------------------------------------------------------------------------
    def _ray(self) -> None:
        import ray

        if not ray.is_initialized():
            ray.init(address=self.address, log_to_driver=False)
            self._ray_started = True

    def _run_ray(self, fn: TaskFn, todo: list[Task], accept: Callable[[str, Any], None]) -> None:
        import ray

        self._ray()
        remote = ray.remote(max_retries=self.max_retries)(fn)
        refs = {remote.remote(t.params): t.key for t in todo}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                accept(refs[ref], ray.get(ref))


def _worker_init() -> None:
    """A local worker uses one core: the pool provides the parallelism."""
    os.environ["OMP_NUM_THREADS"] = "1"
    try:
        import numba

        numba.set_num_threads(1)
    except (ImportError, ValueError):  # pragma: no cover - numba is a dependency
        pass


def _call_by_value(payload: bytes, params: dict[str, Any]) -> Any:
    import cloudpickle

    return cloudpickle.loads(payload)(params)


def _call_direct(fn: TaskFn, params: dict[str, Any]) -> Any:
    return fn(params)


def _shippable(fn: TaskFn) -> tuple[Callable[..., Any], Any]:
    """How to send ``fn`` to a fresh worker process: by reference, or through cloudpickle when
    it is importable only here (a function of a script or a test module)."""
    import importlib

    module = getattr(fn, "__module__", None)
    try:
        if module and module != "__main__":
            obj: Any = importlib.import_module(module)
            for part in fn.__qualname__.split("."):
                obj = getattr(obj, part)
            if obj is fn and _importable_by_path(module):
                return _call_direct, fn
    except (ImportError, AttributeError):
        pass
    try:
        import cloudpickle
    except ImportError:
        return _call_direct, fn
    return _call_by_value, cloudpickle.dumps(fn)


def _importable_by_path(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def run_tasks(
    fn: TaskFn,
    tasks: Sequence[Task],
    *,
    backend: str = "local",
    address: str | None = None,
    workers: int | None = None,
    store: str | os.PathLike[str] | None = None,
    progress: bool = True,
    description: str = "tasks",
    max_retries: int = 3,
    on_result: Callable[[str, Result], None] | None = None,
) -> list[Result]:
    """Run ``fn(task.params)`` for every task and return the results in task order.

    ``backend`` is ``"local"``, ``"dask"`` or ``"ray"``; ``address`` points Dask or Ray at a
    running cluster; ``workers`` is the number of local processes (default: every core) or of
    workers in the Dask ``LocalCluster`` started when no address is given. ``store`` makes the run
    resumable (see the module docstring). ``on_result(task_id, result)`` is called in this process
    as each result arrives. A task whose worker dies is retried up to ``max_retries`` times.
    """
    with Session(backend, address, workers, max_retries) as session:
        return session.run(
            fn, tasks, store=store, progress=progress, description=description, on_result=on_result
        )


def _square(params: dict[str, Any]) -> dict[str, Any]:
    """A tiny task for the docstring example and smoke tests: ``y = x * x``."""
    return {"y": int(params["x"]) ** 2}
