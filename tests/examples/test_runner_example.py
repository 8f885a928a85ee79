"""examples/runner/ (issue 23, "A worked example"): the runner replays its price series against the live test
server with a Celery worker (reflection), and prints what a runner author should see."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

from ledger.models import Deployment
from reflection.models import ReflectionNote
from reflection.statistical import MODEL_USED
from tests.factories import UserFactory, account_key
from tests.workers import celery_worker

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "runner"
ARTIFACTS = ROOT / "test-artifacts"
# vega_datasets 0.9.0's wheel RECORD: vega_datasets/_data/stocks.csv,sha256=-ZU6xmk-…,12245
WHEEL_RECORD_SHA256 = "-ZU6xmk-WHR2tOvy8LANm7lTccqMOdpMxhVQd7PkF80"


def test_the_vendored_prices_are_the_packages_file_byte_for_byte():
    data = (EXAMPLE / "data" / "stocks.csv").read_bytes()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert (digest, len(data)) == (WHEEL_RECORD_SHA256, 12245)
    assert WHEEL_RECORD_SHA256 in (EXAMPLE / "README.md").read_text(encoding="utf-8")


def run_example(*args: str, timeout: float = 420) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "clients" / "python")}  # as `pip install ./clients/python`
    for name in ("MEMORY_BASE_URL", "MEMORY_TOKEN", "MEMORY_ACCOUNT_TOKEN", "MEMORY_DEPLOYMENT_ID"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, str(EXAMPLE / "run.py"), *args],
        capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, f"the example failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def section(output: str, title: str) -> list[str]:
    """The lines under `== title ==`, up to the next heading."""
    lines = output.split(f"== {title} ==\n", 1)[1].split("\n== ", 1)[0]
    return [line for line in lines.splitlines() if line.strip()]


def test_the_example_runner_replays_three_years_and_prints_its_journal_and_lessons(live_server, tmp_path):
    trader = UserFactory(username="example_runner")
    key = account_key(trader)
    with celery_worker(tmp_path / "worker.log"):  # reflection runs there, as under `make run`
        output = run_example(
            "--base-url", live_server.url, "--token", key, "--months", "36", "--print-every", "10",
            "--lessons-wait", "90", "--run-id", "example-test",
        )  # fmt: skip
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "example-runner.txt").write_text(output, encoding="utf-8")  # what a runner author sees

    deployment = Deployment.objects.get(skill_version__skill__owner=trader)
    assert f"deployment {deployment.pk}, 36 months of AAPL, AMZN, IBM, MSFT" in output

    # The context, printed every 10 ticks: empty at first, then the ledger's memory sections.
    contexts = re.findall(r"== context before tick (\d+) \(", output)
    assert contexts[:4] == ["10", "20", "30", "40"]
    assert "## Open positions" in output and "## Recent trades" in output

    # Recall found the playbook for the agent's decisions, and every decision went to the journal.
    # (the journal is indexed too: later decisions may find the agent's own earlier entries first)
    recalls = [line for line in output.splitlines() if line.startswith("recall [")]
    assert recalls and "playbooks/sma-crossover.md:" in recalls[0]
    assert all(
        re.search(r": (playbooks/sma-crossover\.md|journal/[\d-]+\.md):\d+-\d+ \(0\.\d\d\) ", line) for line in recalls
    )

    trades = section(output, "Trade journal")
    closed = [line for line in trades if " -> " in line]
    assert len(closed) >= 10, trades
    assert any("fast SMA crossed below slow SMA" in line or "stop loss hit" in line for line in closed)
    summary = trades[-1]
    assert re.match(r"\d+ trades, \d+ closed, \d+ won; realized PnL \$-?[\d,]+\.\d\d$", summary), summary

    journal = section(output, "Journal entries")
    assert any(line.startswith("- ") and "Opened " in line for line in journal), journal
    count = re.search(r"(\d+) journal entries this run \(in (journal/\S+\.md)\)", journal[-1])
    assert count and int(count.group(1)) == len(recalls), journal[-1]

    lessons = "\n".join(section(output, "Lessons"))
    note = ReflectionNote.objects.get(deployment=deployment, status="active")
    assert note.model_used == MODEL_USED  # no Anthropic key in the tests: the offline engine
    assert note.lessons_text.splitlines()[0] in lessons
    assert re.search(r"distilled from \d+ closed trades by ", lessons), lessons


def test_with_a_runner_token_alone_the_runner_says_what_it_skips(live_server, empty_queue):
    """(empty_queue: a reflection it may queue is no later worker test's work.)"""
    from ledger.services import runner_token_create
    from tests.factories import DeploymentFactory

    trader = UserFactory(username="example_runner_token")
    deployment = DeploymentFactory(skill_version__skill__owner=trader)
    _token, runner_key = runner_token_create(deployment=deployment, name="example")
    output = run_example(
        "--base-url", live_server.url, "--token", runner_key, "--deployment-id", str(deployment.pk),
        "--months", "12", "--print-every", "0", "--lessons-wait", "0",
    )  # fmt: skip
    assert output.count("skipped: a runner token reaches ticks, fills, context and trades only") == 3
    assert section(output, "Trade journal")  # ticks and trades work with a runner token


def test_a_paused_deployment_gets_its_ticks_but_no_new_position(live_server, empty_queue):
    """Paused by the trader: every tick is still posted (the ledger follows the account), but the agent's
    entries become hold ticks, so no trade is opened."""
    from ledger.models import DecisionSnapshot
    from ledger.services import deployment_status_set, runner_token_create
    from tests.factories import DeploymentFactory

    trader = UserFactory(username="example_runner_paused")
    deployment = DeploymentFactory(skill_version__skill__owner=trader)
    deployment_status_set(deployment=deployment, status="stopped")
    _token, runner_key = runner_token_create(deployment=deployment, name="example")
    output = run_example(
        "--base-url", live_server.url, "--token", runner_key, "--deployment-id", str(deployment.pk),
        "--months", "24", "--print-every", "0", "--lessons-wait", "0",
    )  # fmt: skip
    skipped = [line for line in output.splitlines() if "not opened (deployment paused by the trader" in line]
    assert skipped, output
    assert section(output, "Trade journal")[-1].startswith("0 trades, 0 closed")
    ticks = DecisionSnapshot.objects.filter(deployment=deployment)
    assert re.search(r"replayed 24 months in (\d+) ticks", output).group(1) == str(ticks.count())
    assert ticks.filter(proposed_action__reason="deployment paused by the trader: no new positions").count() == len(
        skipped
    )
