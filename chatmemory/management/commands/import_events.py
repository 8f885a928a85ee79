"""manage.py import_events: load scheduled market events from a CSV file (idempotent upsert)."""

import re

from chatmemory.management.importing import (
    RowInvalid,
    parse_choice,
    parse_decimal,
    parse_symbol,
    parse_text,
    parse_time,
    read_csv,
    upsert,
)
from chatmemory.models import EventKind, MarketEvent
from memorysite.commands import MaintenanceCommand, progress_bar

KEY = ("kind", "title", "scheduled_at")
VALUES = ("symbols", "importance")
TITLE_MAX_CHARS = MarketEvent._meta.get_field("title").max_length
SEPARATORS = re.compile(r"[;|]")


class Command(MaintenanceCommand):
    help = (
        "Load market events from a CSV file with the header kind,title,symbols,scheduled_at,importance "
        f"(column order free). kind is one of {', '.join(EventKind.values)}; symbols are tickers separated by ';' "
        "or '|' (BTC;ETH), empty for a market-wide event; scheduled_at is ISO-8601 with a timezone "
        "(2026-06-10T12:30:00Z), naive times are refused; importance is 0..1 with at most 3 decimals. An event is "
        "unique per kind, title and scheduled_at: importing again updates its symbols and importance. Every row is "
        "checked first; any invalid row (reported as 'line N, column X: rule') means nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("csv", help="path of the CSV file")

    def handle(self, *args, csv, **options):
        rows, _ = read_csv(
            csv,
            required=("kind", "title", "symbols", "scheduled_at", "importance"),
            key_fields=KEY,
            parse=_parse,
        )
        counts = upsert(
            MarketEvent, rows, key_fields=KEY, value_fields=VALUES, progress=progress_bar(self.stderr, "events")
        )
        self.stdout.write(f"{csv}: {len(rows)} events read; {counts}")


def _parse(cells: dict[str, str]) -> dict:
    symbols: list[str] = []
    for part in SEPARATORS.split(cells["symbols"]):
        if part.strip():
            symbol = parse_symbol(part, "symbols")
            if symbol not in symbols:
                symbols.append(symbol)
    importance = parse_decimal(cells["importance"], "importance", max_digits=4, decimal_places=3)
    if not 0 <= importance <= 1:
        raise RowInvalid("importance", "must be between 0 and 1")
    return {
        "kind": parse_choice(cells["kind"], "kind", EventKind.values),
        "title": parse_text(cells["title"], "title", max_length=TITLE_MAX_CHARS),
        "symbols": symbols,
        "scheduled_at": parse_time(cells["scheduled_at"], "scheduled_at"),
        "importance": importance,
    }
