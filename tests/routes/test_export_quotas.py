"""Exports cannot fill the disk (issue 14, item 5): rate, count and age bounds, in process.

A READER may export, so each bound is exercised with a READER's key, and each checks what is
actually stored in the ``exports`` table, not only the answers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from memorist.db.schema import exports
from sqlalchemy import func, select

from tests.routes.test_platform_extras import Tenant, add, make_tenant


def stored(t: Tenant, project_id: str = "web") -> int:
    with t.db.connect() as conn:
        return int(
            conn.execute(select(func.count()).select_from(exports).where(exports.c.project_id == project_id)).scalar()
            or 0
        )


def export(t: Tenant, key: dict[str, str], **body: Any) -> Any:
    return t.client.simulate_post("/v1/exports/", headers=key, json=body or {"user_id": "alice"})


@pytest.fixture
def tenant(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Tenant]:
    yield from make_tenant(tmp_path, exports=request.param)


@pytest.mark.parametrize("tenant", [{"per_hour": 3, "max_per_project": 100}], indirect=True)
def test_a_reader_is_limited_to_its_hourly_export_quota(tenant: Tenant) -> None:
    add(tenant, "I like green tea.")
    assert [export(tenant, tenant.reader).status_code for _ in range(3)] == [201, 201, 201]
    refused = export(tenant, tenant.reader)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert stored(tenant) == 3  # the refused export was not built or stored
    assert export(tenant, tenant.stranger).status_code == 201  # another project has its own quota
    assert stored(tenant, "elsewhere") == 1


@pytest.mark.parametrize("tenant", [{"per_hour": 100, "max_per_project": 2}], indirect=True)
def test_a_project_keeps_only_its_newest_exports(tenant: Tenant) -> None:
    add(tenant, "I like oolong tea.")
    ids = [export(tenant, tenant.reader).json["id"] for _ in range(4)]
    assert stored(tenant) == 2
    get = tenant.client.simulate_post
    assert get("/v1/exports/get/", headers=tenant.reader, json={"memory_export_id": ids[0]}).status_code == 404
    newest = get("/v1/exports/get/", headers=tenant.reader, json={"memory_export_id": ids[-1]})
    assert newest.status_code == 200 and newest.json["count"] == 1


@pytest.mark.parametrize("tenant", [{"retention_hours": 1 / 3600}], indirect=True)  # one second
def test_exports_expire_after_the_retention_period(tenant: Tenant) -> None:
    add(tenant, "I like white tea.")
    first = export(tenant, tenant.reader).json["id"]
    time.sleep(1.2)
    resp = tenant.client.simulate_post("/v1/exports/get/", headers=tenant.reader, json={"memory_export_id": first})
    assert resp.status_code == 404  # not served once expired ...
    export(tenant, tenant.reader)
    with tenant.db.connect() as conn:
        ids = [r[0] for r in conn.execute(select(exports.c.id))]
    assert first not in ids and len(ids) == 1  # ... and deleted by the next save
