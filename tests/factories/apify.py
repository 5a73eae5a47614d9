"""An Apify-compatible API on loopback that replays real dataset items recorded from the
actors (tests/fixtures/sources/README.md says where each file came from).

It answers the calls the Apify source makes: `POST /v2/acts/{actor}/runs` (a run that is
RUNNING at first and SUCCEEDED when asked again, or whatever `next_status` scripts),
`GET /v2/actor-runs/{id}`, `GET /v2/datasets/{id}/items`, and `GET /v2/users/me`. A run's
items are the recorded items of the profile its input names (of a comment actor, those of
the post its `postURLs` name); a wrong token gets Apify's 401.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.factories.loopback import LoopbackServer

FIXTURES = Path(__file__).parents[1] / "fixtures" / "sources"
GOOD_TOKEN = "apify_api_test_token"


def load_items(rel: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / rel).read_text())


@dataclass
class Run:
    id: str
    actor: str
    input: dict[str, Any]
    items: list[dict[str, Any]]
    status: str
    final: str
    cost: float


@dataclass
class FakeApify:
    # actor ("user~name") -> the recorded items it can answer with
    items: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    cost_per_run: float = 0.0123
    next_status: list[str] = field(default_factory=list)  # scripted final statuses
    # actor -> recorded items it answers any input with (an actor's error item names the
    # input it was recorded for, not the one a test asks about)
    answer: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    calls: list[tuple[str, str, str | None]] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)
    server: LoopbackServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def _authorized(self, request: Request) -> bool:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return token == GOOD_TOKEN or request.query_params.get("token") == GOOD_TOKEN

    def _record(self, request: Request) -> JSONResponse | None:
        self.calls.append((request.method, request.url.path, request.headers.get("authorization")))
        if not self._authorized(request):
            return JSONResponse({"error": {"type": "token-not-valid",
                                           "message": "Authentication token is not valid."}},
                                status_code=401)
        return None

    @staticmethod
    def _wanted(actor_input: Mapping[str, Any]) -> str | None:
        if actor_input.get("profiles"):
            return str(actor_input["profiles"][0]).lower()
        for key in ("directUrls", "startUrls"):
            for entry in actor_input.get(key) or ():
                url = entry["url"] if isinstance(entry, Mapping) else entry
                return str(url).rstrip("/").rsplit("/", 1)[-1].removeprefix("@").lower()
        return None

    @staticmethod
    def _owner(item: Mapping[str, Any]) -> str:
        author = item.get("authorMeta") or {}
        name = author.get("name") or item.get("username") or item.get("ownerUsername")
        if not name and "channelUrl" in item:
            name = str(item["channelUrl"]).rsplit("@", 1)[-1]
        return str(name or "").lower()

    async def _start(self, request: Request) -> JSONResponse:
        if (refused := self._record(request)) is not None:
            return refused
        actor = request.path_params["actor"]
        if actor not in self.items and actor not in self.answer:
            return JSONResponse({"error": {"type": "record-not-found",
                                           "message": "Actor was not found"}}, status_code=404)
        actor_input = json.loads(await request.body() or b"{}")
        items = self.answer.get(actor)
        if items is None and actor_input.get("postURLs"):
            # a comment actor: the recorded comments of the post
            items = [i for i in self.items[actor]
                     if i.get("submittedVideoUrl") in actor_input["postURLs"]]
        if items is None:
            handle = self._wanted(actor_input)
            items = [i for i in self.items[actor] if self._owner(i) == handle]
        with self._lock:
            n = next(self._ids)
            final = self.next_status.pop(0) if self.next_status else "SUCCEEDED"
            run = Run(f"run{n:04d}XyZ", actor, actor_input, items, "RUNNING", final,
                      self.cost_per_run)
            self.runs.append(run)
        return JSONResponse({"data": self._run_body(run)}, status_code=201)

    def _run_body(self, run: Run) -> dict[str, Any]:
        return {"id": run.id, "actId": run.actor, "status": run.status,
                "defaultDatasetId": f"ds-{run.id}", "usageTotalUsd": run.cost}

    async def _get_run(self, request: Request) -> JSONResponse:
        if (refused := self._record(request)) is not None:
            return refused
        run = next((r for r in self.runs if r.id == request.path_params["run"]), None)
        if run is None:
            return JSONResponse({"error": {"type": "record-not-found"}}, status_code=404)
        run.status = run.final
        return JSONResponse({"data": self._run_body(run)})

    async def _items(self, request: Request) -> JSONResponse:
        if (refused := self._record(request)) is not None:
            return refused
        run_id = request.path_params["dataset"].removeprefix("ds-")
        run = next((r for r in self.runs if r.id == run_id), None)
        if run is None:
            return JSONResponse({"error": {"type": "record-not-found"}}, status_code=404)
        return JSONResponse(run.items)

    async def _me(self, request: Request) -> JSONResponse:
        if (refused := self._record(request)) is not None:
            return refused
        return JSONResponse({"data": {"id": "u1", "username": "sors-tests"}})

    def start(self) -> FakeApify:
        app = Starlette(routes=[
            Route("/v2/acts/{actor}/runs", self._start, methods=["POST"]),
            Route("/v2/actor-runs/{run}", self._get_run, methods=["GET"]),
            Route("/v2/datasets/{dataset}/items", self._items, methods=["GET"]),
            Route("/v2/users/me", self._me, methods=["GET"]),
        ])
        self.server = LoopbackServer(app)
        self.server.start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
