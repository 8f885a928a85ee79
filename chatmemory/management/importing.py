"""CSV imports of market data (``import_bars``, ``import_events``): read, validate, upsert.

Every row is validated before anything is written; one invalid row stops the import with
``line N, column X: <rule>`` for each bad row (the header is line 1) and nothing is written.
The valid file is then upserted in one transaction, ``BATCH_SIZE`` rows per statement: a row whose
key is new is inserted, one whose values differ is updated, an identical one is left alone; so
importing the same file twice changes nothing the second time.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.core.management.base import CommandError
from django.db import models, transaction
from rest_framework import serializers

from memorysite.api import reject_control_characters

BATCH_SIZE = 1000
MAX_REPORTED_ERRORS = 20
SYMBOL = re.compile(r"[A-Z0-9][A-Z0-9._/:\-]{0,31}")
SYMBOL_RULE = "must be a ticker of at most 32 letters, digits and . _ / : - (e.g. BTC)"
NAIVE_TIME = "must carry a timezone, e.g. 2026-06-04T12:00:00Z or 2026-06-04T14:00:00+02:00"


class RowInvalid(Exception):
    """One cell broke a rule: `column` names it (None for the row as a whole)."""

    def __init__(self, column: str | None, rule: str):
        super().__init__(rule)
        self.column, self.rule = column, rule


@dataclass(frozen=True)
class ParsedRow:
    line: int
    fields: dict  # model field -> value


@dataclass(frozen=True)
class Counts:
    inserted: int = 0
    updated: int = 0
    unchanged: int = 0

    def __str__(self) -> str:
        return f"inserted {self.inserted}, updated {self.updated} ({self.unchanged} unchanged)"


def _where(line: int, column: str | None) -> str:
    return f"line {line}, column {column}" if column else f"line {line}"


# -- cells ---------------------------------------------------------------------------------------------


def parse_time(value: str, column: str) -> dt.datetime:
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise RowInvalid(column, f"must be an ISO-8601 date-time with a timezone; got {value!r}") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise RowInvalid(column, f"{NAIVE_TIME}; got the naive {value!r}")
    return parsed.astimezone(dt.UTC)


def parse_decimal(value: str, column: str, *, max_digits: int, decimal_places: int) -> Decimal:
    try:
        number = Decimal(value.strip())
    except InvalidOperation:
        raise RowInvalid(column, f"must be a number; got {value!r}") from None
    if not number.is_finite():
        raise RowInvalid(column, f"must be a finite number; got {value!r}")
    if number != number.quantize(Decimal(1).scaleb(-decimal_places)):
        raise RowInvalid(column, f"must have at most {decimal_places} decimal places")
    if abs(number) >= Decimal(10) ** (max_digits - decimal_places):
        raise RowInvalid(column, f"must be below 1e{max_digits - decimal_places}")
    return number


def parse_symbol(value: str, column: str) -> str:
    symbol = value.strip().upper()
    if not SYMBOL.fullmatch(symbol):
        raise RowInvalid(column, f"{SYMBOL_RULE}; got {value!r}")
    return symbol


def parse_choice(value: str, column: str, choices: Sequence[str]) -> str:
    cleaned = value.strip().lower()
    if cleaned not in choices:
        raise RowInvalid(column, f"must be one of {', '.join(choices)}; got {value!r}")
    return cleaned


def parse_text(value: str, column: str, *, max_length: int) -> str:
    cleaned = value.strip()
    if not cleaned:
        raise RowInvalid(column, "must not be blank")
    if len(cleaned) > max_length:
        raise RowInvalid(column, f"must be at most {max_length} characters")
    try:
        reject_control_characters(cleaned)
    except serializers.ValidationError as exc:
        raise RowInvalid(column, str(exc.detail[0])) from None
    if "\n" in cleaned or "\r" in cleaned:
        raise RowInvalid(column, "must be a single line")
    return cleaned


# -- files ---------------------------------------------------------------------------------------------


def read_csv(
    path: str,
    *,
    required: Sequence[str],
    optional: Sequence[str] = (),
    key_fields: Sequence[str],
    parse: Callable[[dict[str, str]], dict],
) -> tuple[list[ParsedRow], tuple[str, ...]]:
    """Every row of `path` parsed by `parse` (cells by column -> model fields), and the header.

    Raises CommandError listing the first MAX_REPORTED_ERRORS problems when any row is invalid."""
    try:
        with Path(path).open(encoding="utf-8-sig", newline="") as handle:
            errors, rows, header = _read(csv.DictReader(handle), required, optional, key_fields, parse)
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if header is None:
        raise CommandError(f"{path} is empty: line 1 must be the header ({','.join(required)})")
    if errors:
        _fail(errors, path)
    return rows, header


def _read(reader: csv.DictReader, required, optional, key_fields, parse):
    errors: list[str] = []
    rows: list[ParsedRow] = []
    seen: dict[tuple, int] = {}
    try:
        if not reader.fieldnames:
            return errors, rows, None
    except (csv.Error, UnicodeDecodeError) as exc:
        return [f"line 1: not valid UTF-8 CSV ({exc})"], rows, ()
    header = tuple(name.strip() for name in reader.fieldnames)
    reader.fieldnames = list(header)
    accepted = (*required, *optional)
    for name in header:
        if name not in accepted:
            errors.append(f"line 1, column {name}: unknown column; accepted: {', '.join(accepted)}")
    missing = [name for name in required if name not in header]
    if missing:
        errors.append(f"line 1: missing column(s) {', '.join(missing)} (the header is {','.join(header)})")
    for name in sorted({name for name in header if header.count(name) > 1}):
        errors.append(f"line 1, column {name}: appears more than once")
    if errors:
        return errors, rows, header
    try:
        for cells in reader:
            line = reader.line_num
            try:
                if None in cells:
                    raise RowInvalid(None, f"has more fields than the header's {len(header)}")
                absent = [name for name in header if cells[name] is None]
                if absent:
                    raise RowInvalid(absent[0], "missing: the row has fewer fields than the header")
                fields = parse(cells)
            except RowInvalid as exc:
                errors.append(f"{_where(line, exc.column)}: {exc.rule}")
                continue
            key = tuple(fields[name] for name in key_fields)
            if key in seen:
                errors.append(
                    f"{_where(line, key_fields[-1])}: duplicate of line {seen[key]} (same {', '.join(key_fields)})"
                )
                continue
            seen[key] = line
            rows.append(ParsedRow(line, fields))
    except (csv.Error, UnicodeDecodeError) as exc:
        errors.append(f"line {reader.line_num + 1}: not valid UTF-8 CSV ({exc})")
    return errors, rows, header


def _fail(errors: list[str], path: str) -> None:
    shown = errors[:MAX_REPORTED_ERRORS]
    more = len(errors) - len(shown)
    listing = "\n".join(shown) + (f"\n... and {more} more" if more else "")
    raise CommandError(f"{path}: nothing written; {len(errors)} problem(s):\n{listing}")


# -- writes --------------------------------------------------------------------------------------------


def upsert(
    model: type[models.Model],
    rows: Sequence[ParsedRow],
    *,
    key_fields: Sequence[str],
    value_fields: Sequence[str],
    progress: Callable[[int, int], None],
) -> Counts:
    """Insert new keys, update changed rows, leave identical ones: one transaction, in batches."""
    counts = Counts()
    with transaction.atomic():
        for start in range(0, len(rows), BATCH_SIZE):
            batch = rows[start : start + BATCH_SIZE]
            current = _existing(model, batch, key_fields, value_fields)
            new, changed = [], []
            for row in batch:
                key = tuple(row.fields[name] for name in key_fields)
                if key not in current:
                    new.append(row)
                elif any(current[key][name] != row.fields[name] for name in value_fields):
                    changed.append(row)
            if new or changed:
                model.objects.bulk_create(
                    [model(**row.fields) for row in (*new, *changed)],
                    update_conflicts=True,
                    unique_fields=list(key_fields),
                    update_fields=list(value_fields),
                )
            counts = Counts(
                counts.inserted + len(new),
                counts.updated + len(changed),
                counts.unchanged + len(batch) - len(new) - len(changed),
            )
            progress(start + len(batch), len(rows))
    return counts


def _existing(model, batch: Iterable[ParsedRow], key_fields, value_fields) -> dict[tuple, dict]:
    """The stored values of the batch's keys: one query (each key field IN the batch's values)."""
    batch = list(batch)
    lookup = {f"{name}__in": {row.fields[name] for row in batch} for name in key_fields}
    stored = model.objects.filter(**lookup).values(*key_fields, *value_fields)
    return {tuple(row[name] for name in key_fields): row for row in stored}
