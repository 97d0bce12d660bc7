"""Where games run: local worker processes (`--jobs N`) or Ray tasks on a cluster (`--executor ray`).

Both take a job (kingdoms.tournament.worker.play_job's argument) and hand back its outcome; the runner
decides what to start, so the per-entrant concurrency limit always holds. On Ray the limit is also a Ray
resource, `kingdoms_<entrant>`: a local instance started by the runner declares it, and on an existing
cluster a game asks for it whenever the cluster declares it (e.g.
`ray start --head --resources '{"kingdoms_claude": 2}'`), so Ray itself never runs more at once.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
from collections.abc import Iterable
from typing import Any

from kingdoms.tournament.worker import cluster_job, play_job, worker_init

Outcome = dict[str, Any]


def resource_name(entrant: str) -> str:
    return f"kingdoms_{entrant}"


class LocalExecutor:
    """A pool of `jobs` worker processes (spawned once, each plays one game at a time)."""

    name = "local"

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self._pool = self._new_pool()
        self._futures: dict[cf.Future[Outcome], str] = {}

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=worker_init)

    @property
    def capacity(self) -> int:
        return self.jobs

    def describe(self) -> str:
        return f"{self.jobs} local worker process{'es' if self.jobs != 1 else ''}"

    def submit(self, key: str, job: dict[str, Any], entrants: Iterable[str]) -> None:
        self._futures[self._pool.submit(play_job, job)] = key

    def wait(self, timeout: float) -> list[tuple[str, Outcome]]:
        """Outcomes of the games finished within `timeout` seconds (a dead worker's game comes back as lost)."""
        if not self._futures:
            return []
        done, _ = cf.wait(list(self._futures), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out = []
        broken = False
        for fut in done:
            key = self._futures.pop(fut)
            try:
                out.append((key, fut.result()))
            except cf.process.BrokenProcessPool as exc:
                broken = True
                out.append((key, {"status": "lost", "error": f"the worker process died: {exc}"}))
            except Exception as exc:  # pragma: no cover - play_job catches everything it can
                out.append((key, {"status": "failed", "result": None, "error": repr(exc)}))
        if broken:
            for fut, key in list(self._futures.items()):
                out.append((key, {"status": "lost", "error": "the worker pool broke"}))
                self._futures.pop(fut)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new_pool()
        return out

    def close(self, *, kill: bool = False) -> None:
        if kill:
            for proc in list(getattr(self._pool, "_processes", {}).values()):
                proc.kill()
        self._pool.shutdown(wait=not kill, cancel_futures=True)


class RayExecutor:
    """Each game a Ray task (one CPU, plus the entrant resources the cluster declares)."""

    name = "ray"

    def __init__(self, address: str | None, jobs: int | None, limits: dict[str, int]) -> None:
        try:
            import ray
        except ImportError as exc:
            raise RuntimeError("the ray executor needs Ray: pip install -e '.[cluster]'") from exc
        self.ray = ray
        self.started_here = address is None
        if address is None:
            cpus = jobs or os.cpu_count() or 1
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                     resources={resource_name(e): float(n) for e, n in limits.items()})
        else:
            ray.init(address=address, log_to_driver=False)
        self.cluster = ray.cluster_resources()
        self.jobs = jobs or max(1, int(self.cluster.get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1, max_retries=0)(cluster_job)
        self._refs: dict[Any, str] = {}
        self.address = address

    @property
    def capacity(self) -> int:
        return self.jobs

    def describe(self) -> str:
        where = f"the Ray cluster at {self.address}" if self.address else "a local Ray instance"
        return f"up to {self.jobs} Ray tasks on {where} ({int(self.cluster.get('CPU', 0))} CPUs)"

    def submit(self, key: str, job: dict[str, Any], entrants: Iterable[str]) -> None:
        resources = {resource_name(e): 1.0 for e in set(entrants) if resource_name(e) in self.cluster}
        ref = self._remote.options(resources=resources).remote(job)
        self._refs[ref] = key

    def wait(self, timeout: float) -> list[tuple[str, Outcome]]:
        if not self._refs:
            return []
        ready, _ = self.ray.wait(list(self._refs), num_returns=1, timeout=timeout)
        if ready:
            more, _ = self.ray.wait(list(self._refs), num_returns=len(self._refs), timeout=0)
            ready = list({*ready, *more})
        out = []
        for ref in ready:
            key = self._refs.pop(ref)
            try:
                out.append((key, self.ray.get(ref)))
            except Exception as exc:  # the task's worker or node died
                out.append((key, {"status": "lost", "error": f"the Ray task failed: {exc}"}))
        return out

    def close(self, *, kill: bool = False) -> None:
        if kill:
            for ref in list(self._refs):
                self.ray.cancel(ref, force=True)
        self._refs.clear()
        self.ray.shutdown()
