"""Base classes for request bodies: unknown fields ignored, wrong types refused."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, populate_by_name=True)
