"""Create (or find) the demo trader with a demo skill and deployment. Safe to run again."""

import json
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction

from ledger import services
from ledger.models import Deployment, DeploymentMode, Skill
from memorysite.commands import MaintenanceCommand

DEMO_USERNAME = "demo"
DEMO_TICKS = 288  # one day of 5-minute ticks
DEMO_SKILL = "Demo mean reversion"
DEMO_STRATEGY = (
    "Trade BTC and ETH perpetuals on 5-minute bars. Buy a close below the lower Bollinger band "
    "when RSI(14) < 30; exit at the middle band or after 6 hours."
)
DEMO_AVOID = "Never hold more than two positions at once.\nNever add to a losing position."


class Command(MaintenanceCommand):
    help = "Create the demo trader (username/password printed), a demo skill and a demo deployment."

    def add_arguments(self, parser):
        parser.add_argument(
            "--credentials-file",
            default=str(settings.DATA_DIR / "demo-credentials.json"),
            help="where the generated demo password is kept so later runs can print it again",
        )

    @transaction.atomic
    def handle(self, *args, credentials_file, **options):
        credentials_path = Path(credentials_file)
        user_model = get_user_model()
        user = user_model.objects.filter(username=DEMO_USERNAME).first()
        password = _read_password(credentials_path)
        if user is None or password is None or not user.check_password(password):
            password = password if user is None and password else secrets.token_urlsafe(12)
            user = user or user_model(username=DEMO_USERNAME, email="demo@example.com")
            user.set_password(password)
            user.save()
            credentials_path.parent.mkdir(parents=True, exist_ok=True)
            credentials_path.write_text(json.dumps({"username": DEMO_USERNAME, "password": password}))
            credentials_path.chmod(0o600)
        skill = Skill.objects.filter(owner=user, name=DEMO_SKILL).first()
        if skill is None:
            skill = services.skill_create(
                owner=user, name=DEMO_SKILL, strategy_text=DEMO_STRATEGY, avoid_rules=DEMO_AVOID
            )
        deployment = Deployment.objects.owned_by(user).order_by("id").first()
        if deployment is None:
            deployment = services.deployment_create(
                owner=user, skill_id=skill.pk, version=None, mode=DeploymentMode.PAPER
            )
        if deployment.latest_tick_at is None:
            # A day of synthetic ticks through the real API, so the journal and context are not empty, with
            # reflection keeping up (the statistical engine unless a key is set), so the lessons page's A/B
            # figures compare revisions with trades made under them.
            transaction.on_commit(
                lambda: call_command("simulate", deployment.pk, ticks=DEMO_TICKS, reflect=True, stdout=self.stdout)
            )
        self.stdout.write(f"Demo trader: username {DEMO_USERNAME!r}, password {password!r}")


def _read_password(path: Path) -> str | None:
    try:
        return json.loads(path.read_text())["password"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
