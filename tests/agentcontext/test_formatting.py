"""The memory-section renderers (agentcontext/formatting.py): byte-exact examples plus properties."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal, localcontext

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcontext.formatting import (
    LAST_DECISION_TOKEN_CEILING,
    OPEN_POSITIONS_MAX_ROWS,
    OPEN_POSITIONS_ROW_TOKEN_CEILING,
    OPEN_POSITIONS_TOKEN_CEILING,
    REASON_MAX_CHARS,
    RECENT_TRADES_K_MAX,
    RECENT_TRADES_ROW_TOKEN_CEILING,
    SECTION_KEYS,
    MemoryContext,
    assemble_context,
    clamp_recent_trades_k,
    format_price,
    format_usd,
    memory_block_token_ceiling,
    recent_trades_token_ceiling,
    render_last_decision,
    render_open_positions,
    render_recent_trades,
)
from ledger.domain import ClosedTrade, OpenTrade, ProposedAction, Tick
from memorysite.text import estimate_tokens, is_unsafe

UTC = dt.UTC
D = Decimal


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


def closed(**overrides) -> ClosedTrade:
    fields = {
        "symbol": "BTC",
        "side": "long",
        "entry_tick_at": at("2026-06-04T10:00"),
        "entry_price": D("65200"),
        "entry_size_usd": D("250"),
        "entry_reason": "breakout above prior swing high",
        "entry_regime_tag": None,
        "exit_tick_at": at("2026-06-04T12:30"),
        "exit_price": D("65940"),
        "exit_reason": "take profit",
        "realized_pnl_usd": D("28.40"),
        "holding_minutes": D("120"),
    }
    return ClosedTrade(**(fields | overrides))


def opened(**overrides) -> OpenTrade:
    fields = {
        "symbol": "ETH",
        "side": "long",
        "entry_tick_at": at("2026-06-04T10:00"),
        "entry_price": D("3410"),
        "entry_size_usd": D("200"),
        "entry_reason": "BB lower-band bounce",
        "entry_regime_tag": "chop_lowvol",
        "size_base": D("0.0586510264"),
        "avg_entry_price": D("3410"),
        "accrued_pnl_usd": D("0"),
        "mfe_usd": D("22"),
        "mae_usd": D("-8"),
        "last_mark_price": D("3438"),
    }
    return OpenTrade(**(fields | overrides))


def tick(**overrides) -> Tick:
    fields = {
        "snapshot_id": "snap-1",
        "tick_at": at("2026-06-04T10:00"),
        "equity_usd": D("10000"),
        "positions": (),
        "proposed_action": ProposedAction(kind="propose_order", symbol="BTC", reason="breakout above prior swing high"),
        "engine_kind": "executed",
    }
    return Tick(**(fields | overrides))


NOW = at("2026-06-04T10:30")


# --- format_price ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("65200", "65,200"),
        ("65940", "65,940"),
        ("3410", "3,410"),
        ("1000", "1,000"),
        ("1000000", "1,000,000"),
        ("3410.50", "3,410"),  # half-even: the tie goes to the even 3,410
        ("3411.50", "3,412"),
        ("3410.51", "3,411"),
        ("142.35", "142.35"),
        ("142.3", "142.30"),
        ("142.345", "142.34"),  # half-even
        ("142.355", "142.36"),
        ("95", "95"),
        ("95.00", "95"),
        ("95.004", "95"),
        ("1", "1"),
        ("999.994", "999.99"),
        ("999.995", "1,000"),  # rounds up into the next tier
        ("0.5234", "0.5234"),
        ("0.52345", "0.5234"),
        ("0.5", "0.5000"),
        ("0.00001234", "0.00001234"),
        ("0.000001", "0.000001000"),
        ("0.099996", "0.1000"),  # a carry keeps four significant digits
        ("0.99996", "1"),  # a carry that reaches 1 prints by the tier above
        ("0", "0"),
        ("-142.35", "-142.35"),
        ("6.52E+4", "65,200"),
        ("1E-7", "0.0000001000"),
    ],
)
def test_it_formats_prices_by_magnitude(value, expected):
    assert format_price(D(value)) == expected


def test_it_formats_non_finite_prices_as_their_decimal_text():
    assert format_price(D("NaN")) == "NaN"
    assert format_price(D("Infinity")) == "Infinity"


def test_it_ignores_the_callers_decimal_context():
    with localcontext() as ctx:
        ctx.prec = 3
        ctx.rounding = "ROUND_DOWN"
        assert format_price(D("65940.5")) == "65,940"
        assert format_price(D("142.355")) == "142.36"
        assert format_usd(D("1234567.891"), signed=True, decimals=2) == "+$1,234,567.89"


positive_prices = st.builds(
    lambda mantissa, exponent: D(mantissa).scaleb(exponent - len(str(mantissa)) + 1),
    st.integers(1, 10**12),
    st.integers(-6, 5),
)


@given(positive_prices)
def test_it_keeps_prices_close_to_their_value(price):
    text = format_price(price)
    shown = D(text.replace(",", ""))
    assert "E" not in text
    assert len(text) <= len("0.000001000")
    if shown >= 1000:
        assert abs(shown - price) <= D("0.5")
        assert "." not in text
    elif shown >= 1:
        assert abs(shown - price) <= D("0.005")
    else:
        assert abs(shown - price) <= D("0.5").scaleb(shown.adjusted() - 3)
        assert len(text.split(".")[1].lstrip("0")) == 4


# --- format_usd -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "signed", "decimals", "expected"),
    [
        ("250", False, 0, "$250"),
        ("28.40", True, 2, "+$28.40"),
        ("-9.70", True, 2, "-$9.70"),
        ("22", True, 0, "+$22"),
        ("-8", True, 0, "-$8"),
        ("-8", False, 0, "-$8"),  # unsigned still shows a minus
        ("0", True, 0, "$0"),  # zero never carries a sign
        ("0", True, 2, "$0.00"),
        ("-0.004", True, 2, "$0.00"),  # the sign follows the rounded value
        ("0.004", True, 2, "$0.00"),
        ("0.5", False, 0, "$0"),  # half-even
        ("1.5", False, 0, "$2"),
        ("2.5", False, 0, "$2"),
        ("1234567.891", True, 2, "+$1,234,567.89"),
        ("10000000", False, 0, "$10,000,000"),
        ("249.6", False, 0, "$250"),
    ],
)
def test_it_formats_usd_with_sign_and_separators(value, signed, decimals, expected):
    assert format_usd(D(value), signed=signed, decimals=decimals) == expected


def test_it_refuses_negative_usd_decimals():
    with pytest.raises(ValueError, match="decimals"):
        format_usd(D(1), signed=False, decimals=-1)


# --- last decision --------------------------------------------------------------------------


def test_it_renders_the_seed_last_decision_row():
    assert render_last_decision(tick()) == (
        '## Last decision\n- 2026-06-04T10:00Z propose_order BTC "breakout above prior swing high" → executed'
    )


@pytest.mark.parametrize(
    ("engine_kind", "engine_rule", "verdict"),
    [
        ("rejected", "R3_POSITION_CAP", "→ rejected (R3_POSITION_CAP)"),
        ("rejected", "", "→ rejected"),
        ("skipped", "", "→ skipped"),
        ("skipped", "R6_RATE_LIMIT", "→ skipped"),  # the rule shows on rejections only
        ("executed", "", "→ executed"),
        ("", "", "→ no engine verdict"),
    ],
)
def test_it_renders_each_engine_verdict(engine_kind, engine_rule, verdict):
    text = render_last_decision(tick(engine_kind=engine_kind, engine_rule=engine_rule))
    assert text.splitlines()[1].endswith('"breakout above prior swing high" ' + verdict)


def test_it_omits_the_symbol_and_an_empty_reason():
    action = ProposedAction(kind="hold", symbol=None, reason="")
    assert render_last_decision(tick(proposed_action=action, engine_kind="skipped")) == (
        "## Last decision\n- 2026-06-04T10:00Z hold → skipped"
    )


def test_it_says_no_proposal_when_the_tick_had_none():
    text = render_last_decision(tick(proposed_action=None, engine_kind=""))
    assert text == "## Last decision\n- 2026-06-04T10:00Z no proposal → no engine verdict"


def test_it_suppresses_the_last_decision_without_a_tick():
    assert render_last_decision(None) is None


def test_it_stamps_the_last_decision_in_utc_cut_to_the_minute():
    plus_two = dt.timezone(dt.timedelta(hours=2))
    moment = dt.datetime(2026, 6, 4, 12, 0, 59, tzinfo=plus_two)
    assert render_last_decision(tick(tick_at=moment)).splitlines()[1].startswith("- 2026-06-04T10:00Z ")


# --- recent trades --------------------------------------------------------------------------

SEED_BTC_ROW = (
    '- 2026-06-04T10:00 → 12:30 BTC long $250 65,200 → 65,940 +$28.40 (+11.4%) 120m "breakout above prior swing high"'
)
SEED_ETH_ROW = (
    '- 2026-06-04T08:15 → 09:00 ETH short $180 3,420 → 3,455 -$9.70 (-5.4%) 45m "funding extreme, mean-revert"'
)


def seed_eth() -> ClosedTrade:
    return closed(
        symbol="ETH",
        side="short",
        entry_tick_at=at("2026-06-04T08:15"),
        entry_price=D("3420"),
        entry_size_usd=D("180"),
        entry_reason="funding extreme, mean-revert",
        exit_tick_at=at("2026-06-04T09:00"),
        exit_price=D("3455"),
        realized_pnl_usd=D("-9.70"),
        holding_minutes=D("45"),
    )


def test_it_renders_the_seed_recent_trades_rows():
    # The seed's rows print (+1.1%) and (-0.5%), which no single formula gives for both rows
    # with these sizes and PnLs; the percent here is realized / entry size: 28.40/250, -9.70/180.
    assert render_recent_trades([seed_eth(), closed()], k=10) == "\n".join(
        ["## Recent trades on this skill (closed)", SEED_BTC_ROW, SEED_ETH_ROW]
    )


def test_it_appends_the_regime_tag():
    text = render_recent_trades([closed(entry_regime_tag="trend_up_lowvol")], k=10)
    assert text.splitlines()[1] == SEED_BTC_ROW + " regime=trend_up_lowvol"


@pytest.mark.parametrize(
    ("exit_reason", "suffix"),
    [
        ("liquidated", ' "breakout above prior swing high" exit=liquidated'),
        ("external_flatten", ' "breakout above prior swing high" exit=external_flatten'),
        ("take profit", ' "breakout above prior swing high"'),
        ("Liquidated", ' "breakout above prior swing high"'),  # exact match only
        ("", ' "breakout above prior swing high"'),
    ],
)
def test_it_shows_only_forced_exit_reasons(exit_reason, suffix):
    row = render_recent_trades([closed(exit_reason=exit_reason)], k=1).splitlines()[1]
    assert row.endswith(suffix)


def test_it_puts_exit_before_regime():
    row = render_recent_trades([closed(exit_reason="liquidated", entry_regime_tag="chop_hivol")], k=1).splitlines()[1]
    assert row.endswith('high" exit=liquidated regime=chop_hivol')


def test_it_omits_an_empty_regime_tag():
    assert render_recent_trades([closed(entry_regime_tag="")], k=1).splitlines()[1] == SEED_BTC_ROW


def test_it_omits_the_quotes_of_an_empty_reason():
    for reason in ("", "  \n "):
        row = render_recent_trades([closed(entry_reason=reason)], k=1).splitlines()[1]
        assert row.endswith("(+11.4%) 120m")


def test_it_prints_the_full_exit_stamp_on_another_utc_date():
    trade = closed(exit_tick_at=at("2026-06-05T00:10"), holding_minutes=D("850"))
    assert (
        render_recent_trades([trade], k=1).splitlines()[1].startswith("- 2026-06-04T10:00 → 2026-06-05T00:10 BTC long")
    )


def test_it_compares_dates_in_utc():
    minus_five = dt.timezone(dt.timedelta(hours=-5))
    trade = closed(
        entry_tick_at=dt.datetime(2026, 6, 4, 22, 0, tzinfo=minus_five),  # 2026-06-05T03:00Z
        exit_tick_at=dt.datetime(2026, 6, 5, 1, 30, tzinfo=minus_five),  # 2026-06-05T06:30Z
    )
    assert render_recent_trades([trade], k=1).splitlines()[1].startswith("- 2026-06-05T03:00 → 06:30 BTC")


@pytest.mark.parametrize(
    ("pnl", "size", "expected"),
    [
        ("0", "250", "$0.00 (0.0%)"),  # zero carries no sign
        ("0.01", "250", "+$0.01 (0.0%)"),  # the percent's sign follows its own rounding
        ("-0.12", "250", "-$0.12 (0.0%)"),
        ("-0.13", "250", "-$0.13 (-0.1%)"),
        ("0.125", "100", "+$0.12 (+0.1%)"),  # half-even on both
        ("0.375", "100", "+$0.38 (+0.4%)"),
        ("2500", "10", "+$2,500.00 (+25,000.0%)"),
        ("5", "0", "+$5.00"),  # no percent without a positive size
    ],
)
def test_it_prints_pnl_and_percent(pnl, size, expected):
    row = render_recent_trades([closed(realized_pnl_usd=D(pnl), entry_size_usd=D(size))], k=1).splitlines()[1]
    assert f"65,940 {expected} 120m" in row


@pytest.mark.parametrize(("minutes", "shown"), [("120", "120m"), ("44.5", "44m"), ("45.5", "46m"), ("0.4", "0m")])
def test_it_rounds_holding_minutes_half_even(minutes, shown):
    row = render_recent_trades([closed(holding_minutes=D(minutes))], k=1).splitlines()[1]
    assert f" {shown} " in row


def test_it_sorts_newest_entry_first_and_ties_by_symbol():
    trades = [
        closed(symbol="ETH", entry_tick_at=at("2026-06-04T09:00")),
        closed(symbol="SOL", entry_tick_at=at("2026-06-04T11:00")),
        closed(symbol="BTC", entry_tick_at=at("2026-06-04T09:00")),
        closed(symbol="ADA", entry_tick_at=at("2026-06-04T08:00")),
    ]
    rows = render_recent_trades(trades, k=10).splitlines()[1:]
    assert [row.split()[4] for row in rows] == ["SOL", "BTC", "ETH", "ADA"]


def test_it_caps_rows_at_k_keeping_the_newest():
    trades = [closed(entry_tick_at=at("2026-06-01T00:00") + dt.timedelta(hours=i)) for i in range(50)]
    rows = render_recent_trades(trades, k=3).splitlines()[1:]
    assert [row[2:18] for row in rows] == ["2026-06-03T01:00", "2026-06-03T00:00", "2026-06-02T23:00"]


@pytest.mark.parametrize(("k", "rows"), [(0, 1), (-5, 1), (1, 1), (30, 30), (31, 30), (1000, 30)])
def test_it_clamps_k_to_1_through_30(k, rows):
    trades = [closed(entry_tick_at=at("2026-06-01T00:00") + dt.timedelta(hours=i)) for i in range(40)]
    assert len(render_recent_trades(trades, k=k).splitlines()) == rows + 1
    assert clamp_recent_trades_k(k) == rows


def test_it_suppresses_recent_trades_without_trades():
    assert render_recent_trades([], k=10) is None


def test_it_sanitizes_and_cuts_reasons():
    reason = 'said "buy"\nnow\r\tplease\u2028' + "x" * 200
    row = render_recent_trades([closed(entry_reason=reason)], k=1).splitlines()[1]
    quoted = row.split(" 120m ", 1)[1]
    assert quoted.startswith("\"said 'buy' now  please ")
    assert quoted.endswith('…"')
    assert len(quoted) == REASON_MAX_CHARS + 2


def test_it_replaces_private_use_and_invisible_characters_as_the_one_prompt_text_rule_does():
    # memorysite.text's rule (docs/architecture.md, "One prompt-text rule"): private-use, tag and variation
    # selector supplement characters become one space each, as control and format characters always did.
    reason = "buy\ue000now\U000f0000x\U000e0041y\U000e0100z\u200bw"
    row = render_recent_trades([closed(entry_reason=reason, symbol="BT\ue000C")], k=1).splitlines()[1]
    assert row.endswith(' "buy now x y z w"')
    assert " BT C long " in row


def test_it_keeps_a_reason_of_exactly_the_maximum_length():
    reason = "y" * REASON_MAX_CHARS
    row = render_recent_trades([closed(entry_reason=reason)], k=1).splitlines()[1]
    assert row.endswith(f' "{reason}"')


def test_it_cuts_long_symbols_and_tags():
    trade = closed(symbol="S" * 60, entry_regime_tag="t\n" * 30)
    row = render_recent_trades([trade], k=1).splitlines()[1]
    assert " " + "S" * 23 + "… long " in row
    assert row.endswith(" regime=" + "t " * 11 + "t…")


# --- open positions -------------------------------------------------------------------------

SEED_OPEN_ROW = '- ETH long $200 @ 3,410 mark=3,438 MFE=+$22 / MAE=-$8 held 30m "BB lower-band bounce"'


def test_it_renders_the_seed_open_position_row():
    assert render_open_positions([opened()], now=NOW) == "## Open positions (memory view)\n" + SEED_OPEN_ROW


def test_it_shows_zero_mfe_and_mae_without_a_sign():
    row = render_open_positions([opened(mfe_usd=D("0.4"), mae_usd=D("-0.5"))], now=NOW).splitlines()[1]
    assert " MFE=$0 / MAE=$0 " in row


def test_it_rounds_mfe_and_mae_half_even_to_whole_dollars():
    row = render_open_positions([opened(mfe_usd=D("22.5"), mae_usd=D("-7.5"))], now=NOW).splitlines()[1]
    assert " MFE=+$22 / MAE=-$8 " in row


@pytest.mark.parametrize(
    ("now", "held"),
    [
        (at("2026-06-04T10:30") + dt.timedelta(seconds=59), "held 30m"),  # floored
        (at("2026-06-04T10:00"), "held 0m"),
        (at("2026-06-04T09:00"), "held 0m"),  # a clock behind the entry never goes negative
        (at("2026-06-06T10:00"), "held 2880m"),
    ],
)
def test_it_floors_held_minutes(now, held):
    assert f" {held} " in render_open_positions([opened()], now=now)


def test_it_sorts_open_positions_by_symbol():
    trades = [opened(symbol=s) for s in ("SOL", "BTC", "ETH")]
    rows = render_open_positions(trades, now=NOW).splitlines()[1:]
    assert [row.split()[1] for row in rows] == ["BTC", "ETH", "SOL"]


def test_it_counts_open_positions_beyond_the_cap_in_one_row():
    trades = [opened(symbol=f"S{i:03d}") for i in range(OPEN_POSITIONS_MAX_ROWS + 3)]
    lines = render_open_positions(trades, now=NOW).splitlines()
    assert len(lines) == OPEN_POSITIONS_MAX_ROWS + 2
    assert lines[OPEN_POSITIONS_MAX_ROWS].startswith(f"- S{OPEN_POSITIONS_MAX_ROWS - 1:03d} ")
    assert lines[-1] == "- (+3 more open positions not shown)"


def test_it_suppresses_open_positions_without_trades():
    assert render_open_positions([], now=NOW) is None


# --- assemble_context -----------------------------------------------------------------------

ACTIVITY = "## Recent activity (this session)\n- executed orders today (UTC): 2"


def test_it_assembles_sections_in_order_with_blank_lines():
    context = assemble_context(
        last_tick=tick(),
        recent_activity=ACTIVITY,
        closed_trades=[closed()],
        open_trades=[opened()],
        now=NOW,
        recent_trades_k=10,
        memory_enabled=True,
    )
    assert list(context.sections) == list(SECTION_KEYS)
    assert context.text == "\n\n".join(
        [
            render_last_decision(tick()),
            ACTIVITY,
            render_recent_trades([closed()], k=10),
            render_open_positions([opened()], now=NOW),
        ]
    )
    assert context.token_estimate == {
        "per_section": {key: estimate_tokens(section) for key, section in context.sections.items()},
        "total": estimate_tokens(context.text),
    }


def test_it_drops_the_memory_sections_when_memory_is_disabled():
    context = assemble_context(
        last_tick=tick(),
        recent_activity=ACTIVITY,
        closed_trades=[closed()],
        open_trades=[opened()],
        now=NOW,
        recent_trades_k=10,
        memory_enabled=False,
    )
    assert context.sections["recent_trades"] is None
    assert context.sections["open_positions"] is None
    assert context.text == render_last_decision(tick()) + "\n\n" + ACTIVITY
    assert context.token_estimate["per_section"]["recent_trades"] == 0
    assert context.token_estimate["per_section"]["open_positions"] == 0


def test_it_is_empty_when_every_section_is_suppressed():
    context = assemble_context(
        last_tick=None,
        recent_activity="",
        closed_trades=[],
        open_trades=[],
        now=NOW,
        recent_trades_k=10,
        memory_enabled=True,
    )
    assert context == MemoryContext(
        sections=dict.fromkeys(SECTION_KEYS),
        text="",
        token_estimate={"per_section": dict.fromkeys(SECTION_KEYS, 0), "total": 0},
    )


def test_it_estimates_tokens_as_a_quarter_of_the_characters_rounded_up():
    assert [estimate_tokens(t) for t in (None, "", "a", "abcd", "abcde")] == [0, 0, 1, 1, 2]


def test_it_documents_the_ceilings():
    assert (LAST_DECISION_TOKEN_CEILING, RECENT_TRADES_ROW_TOKEN_CEILING, OPEN_POSITIONS_ROW_TOKEN_CEILING) == (
        54,
        72,
        53,
    )
    assert OPEN_POSITIONS_TOKEN_CEILING == 591
    assert recent_trades_token_ceiling(10) == 730
    assert memory_block_token_ceiling(10) == 1322
    assert memory_block_token_ceiling(RECENT_TRADES_K_MAX) == memory_block_token_ceiling(1000) == 2762


def test_it_keeps_a_widest_closed_trade_row_within_its_ceiling():
    widest = closed(
        symbol="S" * 60,
        side="short",
        entry_size_usd=D("100000"),
        entry_price=D("0.000001"),
        exit_price=D("0.0000012345"),
        realized_pnl_usd=D("-10000000"),
        holding_minutes=D("10000000"),
        entry_reason="r" * 500,
        exit_reason="external_flatten",
        entry_regime_tag="g" * 60,
        exit_tick_at=at("2027-06-04T10:00"),
    )
    row = render_recent_trades([widest], k=1).splitlines()[1]
    assert estimate_tokens("\n" + row) == 70 <= RECENT_TRADES_ROW_TOKEN_CEILING


def test_it_keeps_a_widest_open_position_row_within_its_ceiling():
    widest = opened(
        symbol="S" * 60,
        side="short",
        entry_size_usd=D("10000000"),
        entry_price=D("0.000001"),
        last_mark_price=D("0.0000012345"),
        mfe_usd=D("10000000"),
        mae_usd=D("-10000000"),
        entry_reason="r" * 500,
        entry_tick_at=at("2010-01-01T00:00"),
    )
    row = render_open_positions([widest], now=at("2029-01-01T00:00")).splitlines()[1]
    assert estimate_tokens("\n" + row) == OPEN_POSITIONS_ROW_TOKEN_CEILING


def test_it_keeps_a_widest_last_decision_within_its_ceiling():
    action = ProposedAction(kind="adjust_position", symbol="S" * 60, reason="r" * 500)
    text = render_last_decision(tick(proposed_action=action, engine_kind="rejected", engine_rule="R" * 90))
    assert text.endswith("→ rejected (" + "R" * 39 + "…)")
    assert estimate_tokens(text) == LAST_DECISION_TOKEN_CEILING


# --- properties -----------------------------------------------------------------------------

USD_MAX = D("1e7")
nasty_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs",)),
        st.sampled_from(['"', "\n", "\r", "\t", "\x00", "\x85", "\u2028", "\u2029", "\u202e", "\u200d"]),
        st.sampled_from(["…", "→", "👨", "é"]),
    ),
    max_size=500,
)
moments = st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2030, 1, 1), timezones=st.just(UTC))
prices = st.one_of(
    positive_prices,
    st.decimals(min_value=D("0.000001"), max_value=D("1000000"), allow_nan=False, allow_infinity=False),
)
usd_sizes = st.one_of(st.just(D(0)), st.decimals(min_value=0, max_value=USD_MAX, places=8))
signed_usd = st.decimals(min_value=-USD_MAX, max_value=USD_MAX, places=8)
ratios = st.decimals(min_value=-100, max_value=100, places=6)  # realized / size within ±10,000%
minutes = st.decimals(min_value=0, max_value=D("1e7"), places=2)
symbols = st.one_of(st.sampled_from(["BTC", "ETH", "SOL", "1000PEPE-PERP"]), nasty_text)
regime_tags = st.one_of(st.none(), st.sampled_from(["trend_up_lowvol", "chop_hivol", "unknown"]), nasty_text)
exit_reasons = st.one_of(st.sampled_from(["liquidated", "external_flatten", "", "take profit"]), nasty_text)


@st.composite
def closed_trades(draw) -> ClosedTrade:
    size = draw(usd_sizes)
    pnl = max(-USD_MAX, min(USD_MAX, (size * draw(ratios)).quantize(D("0.00000001"))))
    entry_at = draw(moments)
    return ClosedTrade(
        symbol=draw(symbols),
        side=draw(st.sampled_from(["long", "short"])),
        entry_tick_at=entry_at,
        entry_price=draw(prices),
        entry_size_usd=size,
        entry_reason=draw(nasty_text),
        entry_regime_tag=draw(regime_tags),
        exit_tick_at=entry_at + dt.timedelta(minutes=draw(st.integers(0, 10**6))),
        exit_price=draw(prices),
        exit_reason=draw(exit_reasons),
        realized_pnl_usd=pnl,
        holding_minutes=draw(minutes),
    )


@st.composite
def open_trades(draw) -> OpenTrade:
    return OpenTrade(
        symbol=draw(symbols),
        side=draw(st.sampled_from(["long", "short"])),
        entry_tick_at=draw(moments),
        entry_price=draw(prices),
        entry_size_usd=draw(usd_sizes),
        entry_reason=draw(nasty_text),
        entry_regime_tag=draw(regime_tags),
        size_base=D(1),
        avg_entry_price=D(1),
        accrued_pnl_usd=D(0),
        mfe_usd=draw(st.decimals(min_value=0, max_value=USD_MAX, places=8)),
        mae_usd=draw(st.decimals(min_value=-USD_MAX, max_value=0, places=8)),
        last_mark_price=draw(prices),
    )


def repeated(element_strategy):
    """Up to 200 trades: a few distinct ones cycled with shifted entry times (shift 0 makes ties).

    Plain ``st.lists(..., max_size=200)`` of these large elements stays short within Hypothesis's
    data budget, so the count is drawn directly.
    """

    @st.composite
    def build(draw):
        base = draw(st.lists(element_strategy, min_size=1, max_size=8))
        count = draw(st.integers(0, 200))
        shift = dt.timedelta(minutes=draw(st.sampled_from([0, 1, 7, 1440])))
        trades = []
        for i in range(count):
            trade = base[i % len(base)]
            moved = {"entry_tick_at": trade.entry_tick_at + i * shift}
            if isinstance(trade, ClosedTrade):
                moved["exit_tick_at"] = trade.exit_tick_at + i * shift
            trades.append(replace(trade, **moved))
        return trades

    return build()


@st.composite
def ticks(draw) -> Tick:
    action = draw(
        st.one_of(
            st.none(),
            st.builds(
                ProposedAction,
                kind=st.sampled_from(["propose_order", "close_position", "adjust_position", "hold", "flatten"]),
                symbol=st.one_of(st.none(), symbols),
                reason=nasty_text,
            ),
        )
    )
    return Tick(
        snapshot_id="s",
        tick_at=draw(moments),
        equity_usd=D(1),
        positions=(),
        proposed_action=action,
        engine_kind=draw(st.sampled_from(["executed", "rejected", "skipped", ""])),
        engine_rule=draw(st.one_of(st.sampled_from(["", "R3_POSITION_CAP"]), nasty_text)),
    )


def body_lines(section: str | None) -> list[str]:
    return [] if section is None else section.split("\n")[1:]


def assert_clean_rows(section: str | None) -> None:
    for line in body_lines(section):
        assert line.startswith("- ")
        assert not any(is_unsafe(ch) for ch in line)


PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@PROPERTY_SETTINGS
@given(trades=repeated(closed_trades()), k=st.integers(-5, 100), seed=st.randoms())
def test_it_bounds_recent_trades_whatever_the_input(trades, k, seed):
    text = render_recent_trades(trades, k=k)
    rows = body_lines(text)
    assert len(rows) == min(len(trades), clamp_recent_trades_k(k)) <= RECENT_TRADES_K_MAX
    assert estimate_tokens(text) <= recent_trades_token_ceiling(k)
    for row in rows:
        assert estimate_tokens("\n" + row) <= RECENT_TRADES_ROW_TOKEN_CEILING
    assert_clean_rows(text)
    shuffled = list(trades)
    seed.shuffle(shuffled)
    assert render_recent_trades(shuffled, k=k) == text


@PROPERTY_SETTINGS
@given(trades=repeated(open_trades()), now=moments, seed=st.randoms())
def test_it_bounds_open_positions_whatever_the_input(trades, now, seed):
    text = render_open_positions(trades, now=now)
    assert len(body_lines(text)) == min(len(trades), OPEN_POSITIONS_MAX_ROWS + (len(trades) > OPEN_POSITIONS_MAX_ROWS))
    assert estimate_tokens(text) <= OPEN_POSITIONS_TOKEN_CEILING
    for row in body_lines(text):
        assert estimate_tokens("\n" + row) <= OPEN_POSITIONS_ROW_TOKEN_CEILING
    assert_clean_rows(text)
    shuffled = list(trades)
    seed.shuffle(shuffled)
    assert render_open_positions(shuffled, now=now) == text


@PROPERTY_SETTINGS
@given(last_tick=st.one_of(st.none(), ticks()))
def test_it_bounds_the_last_decision_whatever_the_input(last_tick):
    text = render_last_decision(last_tick)
    assert estimate_tokens(text) <= LAST_DECISION_TOKEN_CEILING
    assert len(body_lines(text)) == (last_tick is not None)
    assert_clean_rows(text)
    assert render_last_decision(last_tick) == text


@PROPERTY_SETTINGS
@given(
    last_tick=st.one_of(st.none(), ticks()),
    closed_list=repeated(closed_trades()),
    open_list=repeated(open_trades()),
    now=moments,
    k=st.integers(-5, 100),
    memory_enabled=st.booleans(),
)
def test_it_keeps_the_assembled_context_within_its_ceilings(last_tick, closed_list, open_list, now, k, memory_enabled):
    def build() -> MemoryContext:
        return assemble_context(
            last_tick=last_tick,
            recent_activity=None,
            closed_trades=closed_list,
            open_trades=open_list,
            now=now,
            recent_trades_k=k,
            memory_enabled=memory_enabled,
        )

    context = build()
    assert context == build()
    memory_block = "\n\n".join(
        section for section in (context.sections["recent_trades"], context.sections["open_positions"]) if section
    )
    assert estimate_tokens(memory_block) <= memory_block_token_ceiling(k)
    assert context.token_estimate["per_section"]["last_decision"] <= LAST_DECISION_TOKEN_CEILING
    assert context.token_estimate["total"] <= LAST_DECISION_TOKEN_CEILING + 1 + memory_block_token_ceiling(k)
    if not memory_enabled:
        assert context.sections["recent_trades"] is None
        assert context.sections["open_positions"] is None


@given(reason=nasty_text)
def test_it_quotes_any_reason_safely(reason):
    row = render_recent_trades([closed(entry_reason=reason, holding_minutes=D(7))], k=1).splitlines()[1]
    _, _, quoted = row.partition(" 7m")
    if quoted:
        inner = quoted[2:-1]
        assert quoted.startswith(' "')
        assert quoted.endswith('"')
        assert '"' not in inner
        assert 0 < len(inner) <= REASON_MAX_CHARS
        assert inner == inner.strip()
