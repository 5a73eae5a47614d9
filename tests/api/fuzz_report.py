"""Reads the NDJSON event report of a Schemathesis run (`--report ndjson`) into the requests
it sent, so tests/api/test_schemathesis.py can show what the fuzzer did rather than trust its
counters: which OpenAPI links it really followed (the value in the next request is the one
the previous answer held), and which keys the key operations touched."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit


@dataclass
class Step:
    case_id: str
    phase: str
    method: str
    path: str  # the request's path, parameters filled in
    template: str  # the operation's path, e.g. /api/v1/posts/{postId}
    path_parameters: dict[str, Any]
    status: int | None
    body: Any  # the parsed JSON answer, or None
    link: str | None  # the name of the OpenAPI link this request came through, if one applied
    parent: Step | None


def read_steps(report: Path) -> list[Step]:
    """Every request of the run that has both its generated case and its answer recorded."""
    steps: list[Step] = []
    for line in report.read_text().splitlines():
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        recorder = finished["recorder"]
        cases, interactions = recorder.get("cases", {}), recorder.get("interactions", {})
        by_id: dict[str, Step] = {}
        for case_id, node in cases.items():
            interaction = interactions.get(case_id)
            if interaction is None:
                continue  # generated, never sent (e.g. filtered out)
            by_id[case_id] = _step(finished["phase"], case_id, node, interaction)
        for case_id, node in cases.items():
            if case_id in by_id and node.get("parent_id") in by_id:
                by_id[case_id].parent = by_id[node["parent_id"]]
        steps.extend(by_id.values())
    return steps


def _step(phase: str, case_id: str, node: dict, interaction: dict) -> Step:
    case, response = node["value"], interaction.get("response")
    body = None
    if response and response.get("content"):
        try:
            body = json.loads(base64.b64decode(response["content"]["$base64"]))
        except ValueError:
            body = None
    transition = node.get("transition")
    link = None
    if transition and node.get("is_transition_applied"):
        # "<source> -> [<status>] <link name> -> <target>"
        link = transition["id"].split(" -> ")[1].split("] ", 1)[1]
    return Step(
        case_id=case_id,
        phase=phase,
        method=interaction["request"]["method"],
        path=unquote(urlsplit(interaction["request"]["uri"]).path),
        template=case["path"],
        path_parameters=case.get("path_parameters") or {},
        status=response["status_code"] if response else None,
        body=body,
        link=link,
        parent=None,
    )


def pointer(document: Any, expression: str) -> Any:
    """The value a `$response.body#/a/0/b` runtime expression names, or None."""
    prefix = "$response.body#"
    if not expression.startswith(prefix):
        raise ValueError(f"unsupported runtime expression {expression!r}")
    value = document
    for token in filter(None, expression[len(prefix):].split("/")):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        elif isinstance(value, dict) and token in value:
            value = value[token]
        else:
            return None
    return value


@dataclass
class Link:
    name: str
    source: str  # operation ids
    target: str
    target_path: str
    parameter: str  # the target's path parameter the link fills
    expression: str


def declared_link(openapi: dict, source: str, target: str) -> Link:
    """The document's link from `source`'s 200 answer to `target` (operation ids)."""
    operations = {
        op["operationId"]: (path, op)
        for path, item in openapi["paths"].items()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    links = operations[source][1]["responses"].get("200", {}).get("links", {})
    for name, spec in links.items():
        if spec.get("operationId") == target:
            (where, expression), = spec["parameters"].items()
            assert where.startswith("path."), (
                f"{source} → {target}: {where} is not a path parameter")
            return Link(name, source, target, operations[target][0], where[len("path."):],
                        expression)
    raise AssertionError(f"the document declares no link {source} → {target}")


def followed(steps: list[Step], link: Link) -> list[Step]:
    """Requests that went through `link` carrying the very value the previous answer held,
    and were answered 2xx: the link was followed, not just named."""
    out = []
    for step in steps:
        if step.link != link.name or step.template != link.target_path or step.parent is None:
            continue
        value = pointer(step.parent.body, link.expression)
        if (value is not None and step.path_parameters.get(link.parameter) == value
                and step.path.rstrip("/").endswith(f"/{value}")
                and step.status is not None and 200 <= step.status < 300):
            out.append(step)
    return out
