"""The errors of accounts, their keys and the roles of a workspace."""

from __future__ import annotations

from sors.kit.errors import ApiError


class RoleForbidden(ApiError):
    status = 403
    code = "role_forbidden"
    title = "Not allowed for this role"


class CappedKeyCannotManageKeys(ApiError):
    status = 403
    code = "capped_key_cannot_manage_keys"
    title = "Forbidden for a capped key"


class LastKey(ApiError):
    status = 409
    code = "last_key"
    title = "Last key"


class CappedKeyForbidden(ApiError):
    status = 403
    code = "capped_key_forbidden"
    title = "Forbidden for a capped key"
