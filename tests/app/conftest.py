from __future__ import annotations

import pytest


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    # Keep each phase's report on the test item, so fixtures can tell whether it failed.
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
