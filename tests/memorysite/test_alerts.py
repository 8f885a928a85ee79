"""deploy/prometheus/alerts.yml: valid rules that fire when they should (promtool, Debian's `prometheus`
package: `make test` installs it), on metrics GET /metrics really serves."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families

RULES_DIR = Path(settings.BASE_DIR) / "deploy" / "prometheus"
TOKEN = "s" * 40


def rule_expressions() -> list[str]:
    document = yaml.safe_load((RULES_DIR / "alerts.yml").read_text())
    return [rule["expr"] for group in document["groups"] for rule in group["rules"]]


def promtool(*args: str) -> subprocess.CompletedProcess:
    executable = shutil.which("promtool")
    assert executable, "promtool is missing: `make test` installs Debian's prometheus package (Makefile: promtool)"
    return subprocess.run([executable, *args], cwd=RULES_DIR, capture_output=True, text=True, timeout=60)


@pytest.mark.slow
def test_promtool_finds_the_rules_valid():
    result = promtool("check", "rules", "alerts.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rule_expressions())} rules found" in result.stdout


@pytest.mark.slow
def test_each_alert_fires_on_the_series_that_should_raise_it():
    result = promtool("test", "rules", "alerts.test.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_metric_the_rules_name_is_served(client, db, settings):
    settings.METRICS_TOKEN = TOKEN
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    served = set()
    for family in text_string_to_metric_families(response.content.decode()):
        served.add(family.name)
        if family.type == "histogram":
            served.update(f"{family.name}_{suffix}" for suffix in ("bucket", "count", "sum"))
        if family.type == "counter":
            served.add(f"{family.name}_total")
    named = {name for expr in rule_expressions() for name in re.findall(r"\bmemory_[a-z_]+\b", expr)}
    assert len(named) >= 10
    assert named - served == set()
