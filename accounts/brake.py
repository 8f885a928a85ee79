"""The password-guessing brake's rules (pure: stdlib only, time is an argument).

Failed logins are counted per subject — the username tried, and the client that tried (any username,
a higher bar: every local runner shares 127.0.0.1) — and forgotten `lock_seconds` after a subject's
last failure. From `slow_after` failures on, each next attempt must wait 1, 2, 4 … seconds (at most
`max_delay_seconds`) after the last failure; from `lock_after` failures on, the subject is locked until
`lock_seconds` after its last failure. A refused attempt is not counted and not checked against the
password, so a correct password is refused too while the wait lasts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    subject: str  # "username" or "client": which counter, and what the message names
    slow_after: int
    lock_after: int
    lock_seconds: int
    max_delay_seconds: int = 60

    def wait(self, failures: int, last_failure_at: float | None, now: float) -> float:
        """Seconds the subject must still wait before its next attempt is checked (0: none)."""
        if last_failure_at is None or failures < self.slow_after:
            return 0.0
        if failures >= self.lock_after:
            hold = self.lock_seconds
        else:
            hold = min(2 ** (failures - self.slow_after), self.max_delay_seconds)
        return max(0.0, last_failure_at + hold - now)


@dataclass(frozen=True)
class Refusal:
    rule: Rule
    failures: int
    wait_seconds: int  # whole seconds, at least 1: what Retry-After says

    @property
    def locked(self) -> bool:
        return self.failures >= self.rule.lock_after

    @property
    def message(self) -> str:
        who = "this username" if self.rule.subject == "username" else "your client (network address)"
        if self.locked:
            unlock = " or ask staff to unlock it" if self.rule.subject == "username" else ""
            return (
                f"login locked: {self.failures} failed attempts for {who}; "
                f"try again in {describe_wait(self.wait_seconds)}{unlock}"
            )
        return (
            f"login slowed down: {self.failures} failed attempts for {who}; "
            f"wait {describe_wait(self.wait_seconds)} before the next attempt"
        )


def describe_wait(seconds: int) -> str:
    if seconds < 60:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def refusal(counts: list[tuple[Rule, int, float | None]], now: float) -> Refusal | None:
    """The longest wait among the subjects' (rule, failures, last failure time), or None when none waits."""
    longest = None
    for rule, failures, last_failure_at in counts:
        wait = rule.wait(failures, last_failure_at, now)
        if wait > 0 and (longest is None or wait > longest[0]):
            longest = (wait, rule, failures)
    if longest is None:
        return None
    wait, rule, failures = longest
    return Refusal(rule=rule, failures=failures, wait_seconds=max(1, math.ceil(wait)))
