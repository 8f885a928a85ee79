"""manage.py import_bars / import_events: validated, all-or-nothing, idempotent upserts."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from chatmemory.management.importing import BATCH_SIZE
from chatmemory.models import Bar, MarketEvent

BARS = """symbol,timeframe,ts,open,high,low,close,volume
BTC,5m,2026-06-04T12:00:00Z,65000,65100,64900,65050,12.5
BTC,5m,2026-06-04T12:05:00Z,65050,65200,65000,65150,3
eth,1h,2026-06-04T14:00:00+02:00,3400,3410,3390,3405,100
"""

EVENTS = """kind,title,symbols,scheduled_at,importance
cpi,US CPI May,,2026-06-10T12:30:00Z,0.9
token_unlock,ARB unlock,ARB;eth|ARB,2026-06-11T00:00:00Z,0.55
FOMC,FOMC June,BTC,2026-06-17T18:00:00Z,1
"""


def write(tmp_path, text: str, name: str = "data.csv") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(command: str, *args, **options) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(command, *args, stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def failure(command: str, *args, **options) -> str:
    with pytest.raises(CommandError) as caught:
        run(command, *args, **options)
    return str(caught.value)


# -- bars ----------------------------------------------------------------------------------------------


def test_bars_happy_path(tmp_path, db):
    out, err = run("import_bars", write(tmp_path, BARS))
    assert "3 bars read; inserted 3, updated 0 (0 unchanged)" in out
    assert "3/3 bars" in err  # the progress bar is on stderr
    eth = Bar.objects.get(symbol="ETH")
    assert eth.timeframe == "1h"
    assert eth.ts == dt.datetime(2026, 6, 4, 12, 0, tzinfo=dt.UTC)
    assert eth.close == Decimal("3405")
    assert Bar.objects.get(symbol="BTC", ts=dt.datetime(2026, 6, 4, 12, 5, tzinfo=dt.UTC)).volume == 3


def test_bars_reimport_is_idempotent_and_updates_changed_rows(tmp_path, db):
    path = write(tmp_path, BARS)
    run("import_bars", path)
    before = list(Bar.objects.order_by("id").values())
    out, _ = run("import_bars", path)
    assert "inserted 0, updated 0 (3 unchanged)" in out
    assert list(Bar.objects.order_by("id").values()) == before
    corrected = BARS.replace("65150,3", "65160,3") + "BTC,5m,2026-06-04T12:10:00Z,65160,65160,65100,65120,1\n"
    out, _ = run("import_bars", write(tmp_path, corrected, "corrected.csv"))
    assert "inserted 1, updated 1 (2 unchanged)" in out
    assert Bar.objects.count() == 4
    assert Bar.objects.get(symbol="BTC", ts=dt.datetime(2026, 6, 4, 12, 5, tzinfo=dt.UTC)).close == Decimal(65160)


def test_bars_symbol_and_timeframe_from_options(tmp_path, db):
    text = "ts,open,high,low,close\n2026-06-04T12:00:00Z,1.5,1.6,1.4,1.55\n2026-06-04T12:15:00Z,1.55,1.7,1.5,1.6\n"
    out, _ = run("import_bars", write(tmp_path, text), symbol="sol", timeframe="15m")
    assert "inserted 2" in out
    assert set(Bar.objects.values_list("symbol", "timeframe")) == {("SOL", "15m")}
    assert Bar.objects.first().volume == 0  # no volume column: new bars get 0


def test_bars_without_symbol_column_or_option_fail_on_the_header(tmp_path, db):
    text = "ts,open,high,low,close\n2026-06-04T12:00:00Z,1,1,1,1\n"
    message = failure("import_bars", write(tmp_path, text), timeframe="5m")
    assert "line 1: missing column(s) symbol" in message


def test_bars_column_contradicting_the_option_is_refused(tmp_path, db):
    message = failure("import_bars", write(tmp_path, BARS), symbol="BTC")
    assert "line 4, column symbol: must be BTC (given with --symbol)" in message
    assert not Bar.objects.exists()


def test_a_bad_bar_row_names_line_and_column_and_nothing_is_written(tmp_path, db):
    rows = [f"BTC,5m,2026-06-04T{h:02d}:00:00Z,100,101,99,100,1" for h in range(20)]
    rows[15] = "BTC,5m,2026-06-04T15:00:00Z,100,98,99,100,1"  # high below low, on line 17
    message = failure(
        "import_bars", write(tmp_path, "symbol,timeframe,ts,open,high,low,close,volume\n" + "\n".join(rows))
    )
    assert "nothing written" in message
    assert "line 17, column high: must be >= low" in message
    assert not Bar.objects.exists()


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("BTC,5m,2026-06-04T12:00:00,1,1,1,1,1", "line 2, column ts: must carry a timezone"),
        ("BTC,5m,2026-06-04 12:00:00,1,1,1,1,1", "line 2, column ts: must carry a timezone"),
        ("BTC,5m,yesterday,1,1,1,1,1", "line 2, column ts: must be an ISO-8601 date-time"),
        ("BTC,2m,2026-06-04T12:00:00Z,1,1,1,1,1", "line 2, column timeframe: must be one of 1m, 5m"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,0,1,1", "line 2, column low: must be > 0"),
        ("BTC,5m,2026-06-04T12:00:00Z,3,2,1,1,1", "line 2, column open: must be between low and high"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,2,1,5,1", "line 2, column close: must be between low and high"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,abc,1", "line 2, column close: must be a number"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,NaN,1", "line 2, column close: must be a finite number"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,1,-1", "line 2, column volume: must be >= 0"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,1.0000000000001,1", "column close: must have at most 12 decimal"),
        ("BTC USD,5m,2026-06-04T12:00:00Z,1,1,1,1,1", "line 2, column symbol: must be a ticker"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,1", "line 2, column volume: missing"),
        ("BTC,5m,2026-06-04T12:00:00Z,1,1,1,1,1,7", "line 2: has more fields than the header"),
    ],
)
def test_bar_rules(tmp_path, db, row, expected):
    message = failure("import_bars", write(tmp_path, "symbol,timeframe,ts,open,high,low,close,volume\n" + row + "\n"))
    assert expected in message
    assert not Bar.objects.exists()


def test_duplicate_bars_in_one_file_are_refused(tmp_path, db):
    text = BARS + "BTC,5m,2026-06-04T14:00:00+02:00,1,1,1,1,1\n"  # the same instant as line 2
    message = failure("import_bars", write(tmp_path, text))
    assert "line 5, column ts: duplicate of line 2" in message


def test_unknown_column_and_missing_file(tmp_path, db):
    text = "symbol,timeframe,ts,open,high,low,close,volume,vwap\n"
    assert "line 1, column vwap: unknown column" in failure("import_bars", write(tmp_path, text))
    assert "cannot read" in failure("import_bars", str(tmp_path / "nope.csv"))
    assert "is empty" in failure("import_bars", write(tmp_path, "", "empty.csv"))


def test_every_problem_is_listed_up_to_a_cap(tmp_path, db):
    rows = "\n".join(f"BTC,5m,2026-06-04T{h:02d}:00:00,1,1,1,1,1" for h in range(24))
    message = failure("import_bars", write(tmp_path, "symbol,timeframe,ts,open,high,low,close,volume\n" + rows))
    assert "24 problem(s)" in message
    assert "line 21, column ts" in message
    assert "... and 4 more" in message


def test_bars_are_written_in_batches_in_one_transaction(tmp_path, db):
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    count = BATCH_SIZE * 2 + 5
    lines = [f"{(start + dt.timedelta(minutes=5 * i)).isoformat()},100,101,99,100" for i in range(count)]
    path = write(tmp_path, "ts,open,high,low,close\n" + "\n".join(lines) + "\n")
    out, err = run("import_bars", path, symbol="BTC", timeframe="5m")
    assert f"inserted {count}" in out
    assert f"{BATCH_SIZE}/{count} bars" in err and f"{count}/{count} bars" in err
    assert Bar.objects.count() == count


# -- events ----------------------------------------------------------------------------------------------


def test_events_happy_path(tmp_path, db):
    out, err = run("import_events", write(tmp_path, EVENTS))
    assert "3 events read; inserted 3, updated 0 (0 unchanged)" in out
    assert "3/3 events" in err
    cpi = MarketEvent.objects.get(kind="cpi")
    assert cpi.symbols == []  # market-wide
    assert cpi.importance == Decimal("0.9")
    assert MarketEvent.objects.get(kind="token_unlock").symbols == ["ARB", "ETH"]
    fomc = MarketEvent.objects.get(kind="fomc")
    assert fomc.scheduled_at == dt.datetime(2026, 6, 17, 18, tzinfo=dt.UTC)
    assert fomc.symbols == ["BTC"]


def test_events_reimport_is_idempotent_and_updates_symbols_and_importance(tmp_path, db):
    run("import_events", write(tmp_path, EVENTS))
    ids = set(MarketEvent.objects.values_list("id", flat=True))
    out, _ = run("import_events", write(tmp_path, EVENTS))
    assert "inserted 0, updated 0 (3 unchanged)" in out
    changed = EVENTS.replace("FOMC June,BTC,2026-06-17T18:00:00Z,1", "FOMC June,BTC|ETH,2026-06-17T20:00:00+02:00,0.95")
    out, _ = run("import_events", write(tmp_path, changed, "changed.csv"))
    assert "inserted 0, updated 1 (2 unchanged)" in out
    assert set(MarketEvent.objects.values_list("id", flat=True)) == ids
    fomc = MarketEvent.objects.get(kind="fomc")
    assert (fomc.symbols, fomc.importance) == (["BTC", "ETH"], Decimal("0.95"))


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ("cpi,CPI,,2026-06-10T12:30:00,0.9", "line 3, column scheduled_at: must carry a timezone"),
        ("moon,CPI,,2026-06-10T12:30:00Z,0.9", "line 3, column kind: must be one of cpi, fomc"),
        ("cpi,,,2026-06-10T12:30:00Z,0.9", "line 3, column title: must not be blank"),
        ("cpi,CPI,,2026-06-10T12:30:00Z,1.5", "line 3, column importance: must be between 0 and 1"),
        ("cpi,CPI,,2026-06-10T12:30:00Z,0.1234", "line 3, column importance: must have at most 3 decimal"),
        ("cpi,CPI,BTC;E T H,2026-06-10T12:30:00Z,0.9", "line 3, column symbols: must be a ticker"),
        ("cpi,CPI\x07,,2026-06-10T12:30:00Z,0.9", "line 3, column title: must not contain control characters"),
        ("cpi,US CPI May,,2026-06-10T14:30:00+02:00,0.5", "line 3, column scheduled_at: duplicate of line 2"),
    ],
)
def test_event_rules_and_nothing_written(tmp_path, db, row, expected):
    text = "kind,title,symbols,scheduled_at,importance\ncpi,US CPI May,,2026-06-10T12:30:00Z,0.9\n" + row + "\n"
    message = failure("import_events", write(tmp_path, text))
    assert expected in message
    assert not MarketEvent.objects.exists()


def test_events_need_every_column(tmp_path, db):
    message = failure("import_events", write(tmp_path, "kind,title,scheduled_at,importance\n"))
    assert "line 1: missing column(s) symbols" in message
