import json

from django.contrib.auth import authenticate
from django.core.management import call_command

from ledger.models import Deployment, Skill, SkillVersion


def test_it_creates_the_demo_trader_skill_and_deployment_once(db, tmp_path, capsys):
    credentials = tmp_path / "demo.json"
    call_command("demo_data", credentials_file=str(credentials))
    first = capsys.readouterr().out
    password = json.loads(credentials.read_text())["password"]
    assert f"username 'demo', password '{password}'" in first
    user = authenticate(username="demo", password=password)
    assert user is not None
    call_command("demo_data", credentials_file=str(credentials))
    assert capsys.readouterr().out == first  # same user, same password, printed again
    assert Skill.objects.owned_by(user).count() == 1
    assert SkillVersion.objects.owned_by(user).count() == 1
    assert Deployment.objects.owned_by(user).count() == 1
    assert oct(credentials.stat().st_mode & 0o777) == "0o600"


def test_it_resets_the_password_when_the_saved_one_no_longer_works(db, tmp_path, capsys):
    credentials = tmp_path / "demo.json"
    call_command("demo_data", credentials_file=str(credentials))
    credentials.write_text(json.dumps({"username": "demo", "password": "forgotten"}))
    call_command("demo_data", credentials_file=str(credentials))
    password = json.loads(credentials.read_text())["password"]
    assert password != "forgotten"
    assert authenticate(username="demo", password=password) is not None
