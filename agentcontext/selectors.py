"""What the trading agent sees for one deployment: its memory block, assembled from ledger reads."""

from __future__ import annotations

from agentcontext.formatting import MemoryContext, render_context
from ledger import selectors as ledger_selectors
from ledger.models import Deployment


def deployment_memory_context(*, deployment: Deployment) -> MemoryContext:
    """The memory block as of the deployment's latest tick ("now" is that tick, not the wall clock)."""
    skill_version = deployment.skill_version
    inputs = ledger_selectors.context_inputs(deployment=deployment, recent_k=skill_version.recent_trades_k)
    return render_context(
        inputs, recent_trades_k=skill_version.recent_trades_k, memory_enabled=skill_version.memory_enabled
    )
