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


def test_its_day_of_ticks_lets_reflection_keep_up_so_the_ab_page_compares_revisions(
    db, tmp_path, capsys, django_capture_on_commit_callbacks
):
    from reflection.selectors import lessons_ab

    with django_capture_on_commit_callbacks(execute=True):  # the simulation runs when demo_data commits
        call_command("demo_data", credentials_file=str(tmp_path / "demo.json"))
    assert "posted 288 ticks" in capsys.readouterr().out
    skill = Skill.objects.get(name="Demo mean reversion")
    ab = lessons_ab(skill=skill)
    assert len(ab.revisions) >= 2
    assert sum(revision.figures.n_closed for revision in ab.revisions) > 0 < ab.no_lessons.n_closed
