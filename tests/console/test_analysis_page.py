"""The console's post page: queue an analysis through the one money path, then read the
breakdown with its timestamps linked to the transcript lines."""

from __future__ import annotations

import re

from tests.analyses.support import HOOK_SPAN, OUTLIER_HOOK, creator
from tests.console.conftest import csrf_of, sign_in
from tests.factories import balance_and_ledger_sum
from tests.factories.jobs import run_jobs_until_idle


async def test_the_post_page_queues_an_analysis_and_shows_the_breakdown(
    world, account, browser_client, runtime
) -> None:
    account_id, key = account
    _, outliers = await creator(world.db, "console.plan.mia")
    await sign_in(browser_client, key)
    page = await browser_client.get(f"/app/posts/{outliers[-1]}")
    assert page.status_code == 200 and 'id="act-analysis"' in page.text
    assert 'id="analysis"' not in page.text
    before = (await balance_and_ledger_sum(world.db, account_id))[0]

    r = await browser_client.post(
        f"/app/posts/{outliers[-1]}/analysis",
        data={"csrf_token": csrf_of(page.text), "form_id": "analysis-form-0001"},
    )
    assert r.status_code in (302, 303), r.text
    assert "?job=job_" in r.headers["location"]
    assert await run_jobs_until_idle(runtime, timeout=120) >= 1

    page = await browser_client.get(f"/app/posts/{outliers[-1]}")
    html = page.text
    assert 'id="analysis"' in html and "What stood out" in html
    assert "question hook" in html  # the offline summary
    # The hook's timestamp links to the transcript line spoken then.
    link = re.search(r'<a class="ts" href="#(seg-\d+)">([\d.]+)–([\d.]+) s</a>', html)
    assert link, html
    assert (float(link.group(2)), float(link.group(3))) == (
        round(HOOK_SPAN[0], 1), round(HOOK_SPAN[1], 1)
    )
    line = re.search(rf'<li id="{link.group(1)}">(.*?)</li>', html, re.S)
    assert line and OUTLIER_HOOK in line.group(1)
    # The findings as sentences, the comparison named, the hook's source said; no literal.
    findings = re.search(r'<ol class="findings" id="analysis-findings">(.*?)</ol>', html, re.S)
    assert findings and findings.group(1).count("<li") >= 1
    assert "Compared with the creator&#39;s 14 other posts" in html
    assert re.search(r'id="analysis-hook">Hook \(question, spoken', html), html
    section = html[html.index('id="analysis"'):html.index("</section>", html.index(
        'id="analysis"'))]
    assert not re.search(r"\b(True|False|None)\b", re.sub(r"<[^>]+>", " ", section))
    # 15 for the analysis and 1 for each get_post read.
    assert (await balance_and_ledger_sum(world.db, account_id))[0] == before - 15 - 1
