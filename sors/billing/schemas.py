from __future__ import annotations

from typing import Any

from sors.billing.models import LedgerEntry
from sors.kit.clock import isoformat


def ledger_entry(e: LedgerEntry) -> dict[str, Any]:
    return {
        "entryId": e.id,
        "kind": e.kind,
        "credits": e.delta,
        "balanceAfter": e.balance_after,
        "reason": e.reason,
        "skill": e.skill,
        "requestId": e.request_id,
        "jobRef": e.job_ref,
        "refundOf": e.refund_of,
        "createdAt": isoformat(e.created_at),
    }
