"""Factories shared by every test folder.

- `tests.factories.accounts`: accounts, keys, balances and table resets (re-exported here).
- `tests.factories.world`: driving the simulated world (its clock, hand-made crawls, seeded
  profiles, `sors scheduler run-once`).
- `tests.factories.jobs`: a job worker on the test database, run until the queue is idle.
- `tests.factories.cluster`: real `sors` processes (and servers) on loopback.
"""

from tests.factories.accounts import (
    auth,
    balance_and_ledger_sum,
    create_account,
    create_member_key,
    reset_tables,
)

__all__ = ["auth", "balance_and_ledger_sum", "create_account", "create_member_key", "reset_tables"]
