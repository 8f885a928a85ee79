"""Celery tasks run in the scope of the trader whose request (or task) queued them.

The publisher's trader travels in the message header `memory_owner`; the worker enters that scope
for the task's duration, so each transaction the task opens sees that trader's rows only. A task
queued by an elevated job (a maintenance command, a sweep) carries `memory_elevated` with the
job's reason and runs elevated, audited again in the worker. A task queued with neither (beat)
sees no owned rows until it elevates itself — the sweeps do, and queue per-trader tasks.
"""

from celery import Task
from celery.signals import before_task_publish

from access import scope

HEADER = "memory_owner"
ELEVATED_HEADER = "memory_elevated"


@before_task_publish.connect
def carry_scope(headers=None, **kwargs) -> None:
    current = scope.current()
    if headers is None:
        return
    if current.owner_id:
        headers[HEADER] = current.owner_id
    elif current.elevated:
        headers[ELEVATED_HEADER] = current.reason or "an elevated job"


def _header(request, name: str):
    value = getattr(request, name, None)
    return value if value is not None else (getattr(request, "headers", None) or {}).get(name)


def owner_of(request) -> int | None:
    value = _header(request, HEADER)
    return value if isinstance(value, int) and value > 0 else None


class ScopedTask(Task):
    def __call__(self, *args, **kwargs):
        if self.request.called_directly or self.request.is_eager:
            return super().__call__(*args, **kwargs)  # runs in its caller's scope
        owner_id = owner_of(self.request)
        elevated_by = _header(self.request, ELEVATED_HEADER)
        if owner_id is None and isinstance(elevated_by, str) and elevated_by:
            with scope.elevated(f"task {self.name}, queued by: {elevated_by}"[:500], atomic=False):
                return super().__call__(*args, **kwargs)
        with scope.bound(scope.Scope(owner_id=owner_id) if owner_id else scope.NONE):
            return super().__call__(*args, **kwargs)
