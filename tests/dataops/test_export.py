"""The trader's own data: one zip of everything they own, readable without the service, never another's."""

import csv
import io
import json
import zipfile

import pytest
from django.db import connection
from rest_framework.test import APIClient

from dataops.export import README_NAME, exported_tables
from tests.dataops.fill import trader_with_everything

pytestmark = pytest.mark.django_db(transaction=True)  # the stream's own transactions, none open between its parts


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def _read(response) -> tuple[zipfile.ZipFile, list[bool]]:
    """The zip, and for each part of the stream whether a transaction was open when it was handed on."""
    parts, open_between = [], []
    for part in response.streaming_content:
        parts.append(part)
        open_between.append(connection.in_atomic_block)
    return zipfile.ZipFile(io.BytesIO(b"".join(parts))), open_between


def test_the_api_export_holds_every_owned_table_and_nothing_of_another_trader():
    trader_with_everything("other", marker="OTHER")
    mine = trader_with_everything("me", marker="MINE")
    response = _api(mine.account_key).get("/api/v1/me/export/")
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="memory-me-')
    archive, open_between = _read(response)
    assert not any(open_between)
    names = set(archive.namelist())
    contents = {name: archive.read(name) for name in names}

    assert not [name for name, data in contents.items() if b"OTHER" in data]
    assert "Every row this service kept for your account (me)" in contents[README_NAME].decode()
    for exported in exported_tables():  # every owned and child table of row security, each with the trader's rows
        lines = contents[f"data/{exported.table}.jsonl"].decode().splitlines()
        assert lines, exported.table
        rows = [json.loads(line) for line in lines]
        owner_column = next((k for k in ("owner_id", "user_id") if k in rows[0]), None)
        if owner_column:
            assert {row[owner_column] for row in rows} == {mine.trader.pk}, exported.table
        assert not {"key_hash", "embedding", "search_vector"} & set(rows[0]), exported.table

    (served,) = [json.loads(line) for line in contents["data/served_contexts.jsonl"].decode().splitlines()]
    assert served["system_prompt_text"].startswith("You are") and served["as_of_tick_at"].startswith("2026-06-04")
    trades = list(csv.DictReader(io.StringIO(contents["ledger/trades.csv"].decode())))
    assert [(t["symbol"], t["status"]) for t in trades] == [("BTC", "closed")]
    assert "Trades only BTC perpetuals MINE" in contents["facts.csv"].decode()
    (lessons,) = [name for name in names if name.startswith(f"lessons/deployment-{mine.deployment.pk}/")]
    assert contents[lessons].decode().endswith("- Cut losers early MINE")
    assert {"research/hypotheses.yaml", "research/capability_requests.yaml"} <= names
    assert any(name.startswith("research/experiments/") and name.endswith(".yaml") for name in names)
    learnings = f"recall/documents/deployment-{mine.deployment.pk}/memory/learnings.md"
    assert "open interest spikes MINE" in contents[learnings].decode()
    assert any(name.startswith(f"recall/documents/deployment-{mine.deployment.pk}/journal/") for name in names)


def test_the_profile_page_offers_the_export_and_the_download_is_the_same_zip(client):
    mine = trader_with_everything("me", marker="MINE")
    client.force_login(mine.trader)
    page = client.get("/profile/data/")
    assert page.status_code == 200
    assert (
        'href="/profile/data/export/"' in page.content.decode() and 'href="/profile/delete/"' in page.content.decode()
    )
    response = client.get("/profile/data/export/")
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    archive, _ = _read(response)
    assert README_NAME in archive.namelist() and "data/trade_history.jsonl" in archive.namelist()


def test_a_runner_token_or_no_token_gets_no_export():
    mine = trader_with_everything("me", marker="MINE")
    assert _api(mine.runner_key).get("/api/v1/me/export/").status_code == 403
    assert APIClient().get("/api/v1/me/export/").status_code == 401
