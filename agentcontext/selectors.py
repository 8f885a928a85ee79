"""What the trading agent sees for one deployment: its memory block, assembled from ledger reads."""

from __future__ import annotations

import logging

from agentcontext.formatting import MemoryContext, assemble_context
from ledger import selectors as ledger_selectors
from ledger.models import Deployment
from ledger.risk_state import aggregate_risk_state, render_recent_activity

logger = logging.getLogger(__name__)


def deployment_memory_context(*, deployment: Deployment) -> MemoryContext:
    """The memory block as of the deployment's latest tick ("now" is that tick, not the wall clock)."""
    skill_version = deployment.skill_version
    inputs = ledger_selectors.context_inputs(deployment=deployment, recent_k=skill_version.recent_trades_k)
    now = inputs.last_tick.tick_at if inputs.last_tick else None
    recent_activity = None
    if now is not None:
        state = aggregate_risk_state(
            now=now,
            outcomes=inputs.outcomes,
            closed_trades=inputs.closed_today_and_streak,
            day_start_equity_usd=inputs.day_start_equity_usd,
        )
        recent_activity = render_recent_activity(state)
    return assemble_context(
        last_tick=inputs.last_tick,
        recent_activity=recent_activity,
        closed_trades=inputs.recent_closed,
        open_trades=inputs.open_trades,
        now=now,
        recent_trades_k=skill_version.recent_trades_k,
        memory_enabled=skill_version.memory_enabled,
    )
