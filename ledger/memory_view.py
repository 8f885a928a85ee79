"""What the memory context reads from a ledger, as plain data (pure; shared by live and sim).

The live ledger fills it with a few indexed queries (ledger.selectors.context_inputs), the
in-memory sim ledger from its dicts (ledger.sim); agentcontext renders it with one function,
so the same tick stream gives byte-identical context text in both.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from ledger.domain import ClosedTrade, OpenTrade, Tick
from ledger.risk_state import EngineOutcome

# The losing streak is counted over at most this many of the newest closes.
STREAK_LOOKBACK = 50


@dataclass(frozen=True)
class ContextInputs:
    """Everything the per-tick memory context reads about one deployment, as of its latest tick.

    last_tick: the latest tick (None before the first); "now" for every window is its tick_at.
    outcomes: engine verdicts (non-empty engine_kind) of ticks in [risk_window_start(now), now], by tick_at.
    recent_closed: the newest `recent_trades_k` closed trades by entry time (entry desc, symbol asc).
    closed_for_risk: closed trades that exited today (UTC) plus the STREAK_LOOKBACK newest exits.
    open_trades: open trades by symbol.
    """

    last_tick: Tick | None
    outcomes: tuple[EngineOutcome, ...]
    recent_closed: tuple[ClosedTrade, ...]
    closed_for_risk: tuple[ClosedTrade, ...]
    open_trades: tuple[OpenTrade, ...]
    day_start_equity_usd: Decimal | None
