"""A Python client generated with openapi-python-client from the live document works: it
searches, reads a post, crawls a profile and polls the job, and reads the balance, getting
typed objects back. The client is generated into a temporary directory, never committed."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import httpx

from tests.api.conftest import Served
from tests.factories.jobs import job_worker

CONFIG = "project_name_override: sors-client\npackage_name_override: sors_client\npost_hooks: []\n"


def _generate(served: Served, where: Path) -> None:
    doc = where / "openapi.json"
    doc.write_bytes(httpx.get(f"{served.url}/api/v1/openapi.json", timeout=30).content)
    (where / "config.yaml").write_text(CONFIG)
    tool = Path(sys.executable).parent / "openapi-python-client"
    done = subprocess.run(
        [str(tool), "generate", "--path", str(doc), "--config", str(where / "config.yaml"),
         "--meta", "none", "--output-path", str(where / "sors_client"), "--fail-on-warning"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


async def test_generated_client_calls_the_api(served: Served, tmp_path: Path, runtime) -> None:
    _generate(served, tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        sc = importlib.import_module("sors_client")
        models = importlib.import_module("sors_client.models")
        search = importlib.import_module("sors_client.api.catalog.search_outliers")
        get_post = importlib.import_module("sors_client.api.catalog.get_post")
        crawl = importlib.import_module("sors_client.api.crawling.crawl_profile")
        job = importlib.import_module("sors_client.api.jobs.get_job_status")
        credits = importlib.import_module("sors_client.api.credits_.get_credit_balance")

        client = sc.AuthenticatedClient(base_url=served.url, token=served.key, timeout=30)

        page = search.sync(client=client, body=models.SearchContentIn(page_size=2))
        assert isinstance(page, models.PostPage), page
        assert page.page_size == 2 and len(page.results) == 2
        first = page.results[0]
        assert isinstance(first, models.ScoredPost) and first.id.startswith("pst_")

        post = get_post.sync(client=client, post_id=first.id)
        assert isinstance(post, models.PostRecord), post
        assert post.id == first.id and isinstance(post.profile, models.PostOwner)
        missing = get_post.sync(client=client, post_id="pst_nope")
        assert isinstance(missing, models.Problem) and missing.code == "post_not_found"

        queued = crawl.sync(
            client=client,
            body=models.CrawlIn(
                platform=models.CrawlInPlatformType0("tiktok"), handle="@typed.client"),
        )
        assert isinstance(queued, models.CrawlQueued), queued
        assert queued.handle == "typed.client"
        worker = job_worker(runtime)
        assert await worker.run_one()  # the crawl job, run for real on the simulated platform
        status = job.sync(client=client, job_ref=queued.job_ref)
        assert isinstance(status, models.JobStatus), status
        assert status.status == "completed" and isinstance(status.result, models.CrawlResult)
        assert status.result.profile_id.startswith("prf_") and status.result.posts_seen > 0

        balance = credits.sync(client=client)
        assert isinstance(balance, models.CreditBalance), balance
        assert balance.balance == 10_000_000 - 1 - 1 - 40
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "sors_client" or m.startswith("sors_client.")]:
            del sys.modules[name]
