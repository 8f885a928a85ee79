"""manage.py import_bars: load OHLCV bars from a CSV file (idempotent upsert)."""

from django.core.management.base import CommandError

from chatmemory.management.importing import (
    RowInvalid,
    parse_choice,
    parse_decimal,
    parse_symbol,
    parse_time,
    read_csv,
    upsert,
)
from chatmemory.models import Bar, Timeframe
from memorysite.commands import MaintenanceCommand, progress_bar

KEY = ("symbol", "timeframe", "ts")
PRICES = ("open", "high", "low", "close")


class Command(MaintenanceCommand):
    help = (
        "Load OHLCV bars from a CSV file with the header symbol,timeframe,ts,open,high,low,close,volume "
        "(column order free). symbol and timeframe may be left out when given with --symbol / --timeframe; "
        "volume may be left out (new bars get 0, stored bars keep theirs). ts is the bar's open time, ISO-8601 "
        "with a timezone (2026-06-04T12:00:00Z); naive times are refused. timeframe is one of "
        f"{', '.join(Timeframe.values)}. Prices are > 0 with low <= open, close <= high. A bar is unique per "
        "symbol, timeframe and ts: importing again updates changed bars and leaves the rest. Every row is checked "
        "first; any invalid row (reported as 'line N, column X: rule') means nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("csv", help="path of the CSV file")
        parser.add_argument("--timeframe", choices=Timeframe.values, help="timeframe of every row (no column)")
        parser.add_argument("--symbol", help="symbol of every row (no column)")

    def handle(self, *args, csv, timeframe=None, symbol=None, **options):
        fixed = {}
        if symbol is not None:
            try:
                fixed["symbol"] = parse_symbol(symbol, "--symbol")
            except RowInvalid as exc:
                raise CommandError(f"--symbol {exc.rule}") from exc
        if timeframe is not None:
            fixed["timeframe"] = timeframe
        required = ["ts", *PRICES, *(name for name in ("symbol", "timeframe") if name not in fixed)]
        optional = ["volume", *fixed]

        def parse(cells: dict[str, str]) -> dict:
            fields = {}
            for name, value in fixed.items():
                if name in cells and cells[name].strip() and _normal(name, cells[name]) != value:
                    given = cells[name]
                    raise RowInvalid(name, f"must be {value} (given with --{name}) or be left empty; got {given!r}")
                fields[name] = value
            if "symbol" not in fixed:
                fields["symbol"] = parse_symbol(cells["symbol"], "symbol")
            if "timeframe" not in fixed:
                fields["timeframe"] = parse_choice(cells["timeframe"], "timeframe", Timeframe.values)
            fields["ts"] = parse_time(cells["ts"], "ts")
            for name in PRICES:
                fields[name] = parse_decimal(cells[name], name, max_digits=32, decimal_places=12)
            if "volume" in cells:
                fields["volume"] = parse_decimal(cells["volume"], "volume", max_digits=32, decimal_places=8)
                if fields["volume"] < 0:
                    raise RowInvalid("volume", "must be >= 0")
            low, high = fields["low"], fields["high"]
            if low <= 0:
                raise RowInvalid("low", "must be > 0")
            if high < low:
                raise RowInvalid("high", "must be >= low")
            for name in ("open", "close"):
                if not low <= fields[name] <= high:
                    raise RowInvalid(name, "must be between low and high")
            return fields

        rows, header = read_csv(csv, required=required, optional=optional, key_fields=KEY, parse=parse)
        values = [*PRICES, *(["volume"] if "volume" in header else [])]
        counts = upsert(Bar, rows, key_fields=KEY, value_fields=values, progress=progress_bar(self.stderr, "bars"))
        self.stdout.write(f"{csv}: {len(rows)} bars read; {counts}")


def _normal(name: str, value: str) -> str:
    return value.strip().upper() if name == "symbol" else value.strip().lower()
