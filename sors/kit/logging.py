"""Structured logs: JSON by default (`sors serve`, `api`, `worker`), one short readable line
per event in the demo (SORS_LOG_JSON=false). Secrets never go in: keys are hashed before use
and only ids are logged."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog
from structlog.typing import EventDict, Processor

from sors.config import Settings

_handler: logging.Handler | None = None  # ours on the root logger, replaced on a reconfigure
_QUIET = ("request_id", "timestamp", "level", "event")


def concise(_logger: Any, _name: str, event: EventDict) -> str:
    """`12:04:05  GET /api/v1/credits → 200  3.1 ms` for requests; `time  event  k=v …` else."""
    stamp = str(event.get("timestamp", ""))[11:19]
    level = event.get("level", "info")
    mark = "" if level == "info" else f"{level.upper()}  "
    if event.get("event") == "request":
        line = (f"{event.get('method')} {event.get('path')} → {event.get('status')}  "
                f"{event.get('ms')} ms")
        return f"{stamp}  {mark}{line}"
    rest = " ".join(f"{k}={v}" for k, v in event.items() if k not in _QUIET and k != "exception")
    text = f"{stamp}  {mark}{event.get('event')}" + (f"  {rest}" if rest else "")
    if event.get("exception"):
        text += "\n" + str(event["exception"])
    return text


def configure_logging(settings: Settings) -> None:
    """structlog's own events and the standard library's records (what third-party libraries
    log: uvicorn, httpx, …) through the same processors and renderer, on stderr, at
    SORS_LOG_LEVEL. A door calls it when it starts; a later call (a CLI command that starts a
    service) replaces the earlier one for every logger not used yet (structlog keeps a
    logger's configuration from its first use)."""
    global _handler
    level = getattr(logging, settings.logging.level.upper(), logging.INFO)
    renderer: Processor = (
        structlog.processors.JSONRenderer() if settings.logging.json_lines else concise)
    stamped: list[Processor] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *stamped],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    ))
    root = logging.getLogger()
    if _handler is not None:
        root.removeHandler(_handler)
    root.addHandler(handler)
    root.setLevel(level)
    _handler = handler
    structlog.configure(
        processors=[*stamped, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )
