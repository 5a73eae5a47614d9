"""What a paid route's endpoint may read and change of its own bill (FastAPI dependencies).

The bill is made by the paid unit of work (`sors.api.paid`) before the endpoint runs and
settled by it after a 2xx: the endpoint may change the cost (e.g. 0 for a repeated request)
or name the job the charge is for, and a paid read passes `bill.ride` to its first read."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from sors.billing.service import RideAlong


@dataclass
class Bill:
    skill: str
    cost: int
    job_ref: str | None = None
    charged: int = 0
    balance: int | None = None
    # A paid read's charge on offer to ride along its first statement (None: charged after).
    ride: RideAlong | None = None

    def headers(self) -> dict[str, str]:
        return {"X-Credits-Charged": str(self.charged), "X-Credits-Balance": str(self.balance)}


# Async on purpose: FastAPI runs a plain `def` dependency in its thread pool.
async def get_bill(request: Request) -> Bill:
    return request.state.bill
