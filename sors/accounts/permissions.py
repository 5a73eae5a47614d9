"""Who may do what: one rule per action, in one place (docs/API.md, "Authorisation").

A key acts for its holder's role in the account's workspace — `owner` (the account's own
keys and an owner member's), `member`, `viewer` — and may carry a daily spend cap. The cap
bounds what the key's holder (an agent, say) can spend, so a capped key takes no action
that could lift the bound: no keys, no members, no billing, no integrations.

Every door reaches these rules through the API (the console and MCP call it in process), and
the scheduler's recurring charges carry the key that set them up, so its cap holds there too
(`sors.monitoring`, `sors.alerts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sors.accounts.errors import CappedKeyCannotManageKeys, CappedKeyForbidden, RoleForbidden
from sors.kit.errors import ApiError
from sors.kit.principal import Principal


class Action(StrEnum):
    READ = "read"  # free reads (GET)
    SPEND = "spend"  # paid calls
    USE = "use"  # free changes in the workspace: boards, tracking, alerts, feedback, crawls
    TOP_UP = "top_up"  # a top-up link (money in)
    MANAGE_KEYS = "manage_keys"  # create, change, revoke keys (a member: their own only)
    MANAGE_WEBHOOKS = "manage_webhooks"  # endpoints, their secrets, settings, retries
    MANAGE_MEMBERS = "manage_members"  # invite, remove
    MANAGE_BILLING = "manage_billing"  # subscribe, change plan, cancel, resume, portal


@dataclass(frozen=True, slots=True)
class Rule:
    roles: frozenset[str]
    capped: bool  # may a key with a daily cap take it?
    why: str  # the refusal's detail, for a role that may not


_ALL = frozenset({"owner", "member", "viewer"})
_WORKERS = frozenset({"owner", "member"})
_OWNER = frozenset({"owner"})

RULES: dict[Action, Rule] = {
    Action.READ: Rule(_ALL, True, ""),
    Action.SPEND: Rule(_WORKERS, True, "a viewer reads free resources only"),
    Action.USE: Rule(_WORKERS, True, "a viewer reads free resources only"),
    Action.TOP_UP: Rule(_WORKERS, True, "a viewer reads free resources only"),
    Action.MANAGE_KEYS: Rule(_WORKERS, False, "a viewer's keys are managed by the owner"),
    Action.MANAGE_WEBHOOKS: Rule(_WORKERS, False, "a viewer reads free resources only"),
    Action.MANAGE_MEMBERS: Rule(_OWNER, False, "only the workspace owner manages its members"),
    Action.MANAGE_BILLING: Rule(_OWNER, False, "only the workspace owner manages its billing"),
}


def allows(principal: Principal, action: Action) -> bool:
    rule = RULES[action]
    return principal.role in rule.roles and (rule.capped or not principal.capped)


def check(principal: Principal, action: Action) -> None:
    """Refuse (403) what `principal` may not do: its role first, then its cap."""
    rule = RULES[action]
    if principal.role not in rule.roles:
        raise RoleForbidden(
            f"This key belongs to a {principal.role} of the workspace, and {rule.why}. The "
            "workspace owner can change the role (docs/API.md, \"Authorisation\")."
        )
    if principal.capped and not rule.capped:
        raise _capped_refusal(action)


def _capped_refusal(action: Action) -> ApiError:
    if action is Action.MANAGE_KEYS:
        return CappedKeyCannotManageKeys(
            "This key has a daily spend cap, so it cannot create, change or revoke keys; "
            "use an uncapped key of the account."
        )
    return CappedKeyForbidden(
        f"This key has a daily spend cap, so it cannot {action.value.replace('_', ' ')}: a "
        "capped key may not take an action that could lift its cap. Use an uncapped key."
    )
