import pytest
from django.core.exceptions import ImproperlyConfigured
from hypothesis import given
from hypothesis import strategies as st

from memorysite.env import (
    celery_broker_url,
    development_secret_key,
    env_bool,
    env_int,
    env_list,
    env_str,
    parse_database_url,
    redis_url_with_db,
    validate_redis_url,
)


def test_it_parses_a_tcp_database_url():
    parsed = parse_database_url("postgres://memory:s%40cret@db.internal:6543/memory?sslmode=require")
    assert parsed["NAME"] == "memory"
    assert (parsed["USER"], parsed["PASSWORD"]) == ("memory", "s@cret")
    assert (parsed["HOST"], parsed["PORT"]) == ("db.internal", "6543")
    assert parsed["OPTIONS"] == {"sslmode": "require"}


def test_it_parses_a_unix_socket_database_url():
    parsed = parse_database_url("postgresql://postgres@/memory?host=/tmp/memsvc-abc")
    assert (parsed["HOST"], parsed["PORT"], parsed["NAME"]) == ("/tmp/memsvc-abc", "", "memory")
    assert parsed["OPTIONS"] == {}


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "DATABASE_URL: scheme must be postgres:// or postgresql://, got 'mysql'"),
        ("postgres://u@h", "DATABASE_URL: must name exactly one database"),
        ("postgres://u@h/a/b", "DATABASE_URL: must name exactly one database"),
        ("postgres://u@h:99999/db", "DATABASE_URL: port must be a number between 0 and 65535"),
    ],
)
def test_it_refuses_a_malformed_database_url(url, message):
    with pytest.raises(ImproperlyConfigured, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        parse_database_url(url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://localhost:6379/0", "REDIS_URL: scheme must be redis://, rediss:// or unix://"),
        ("redis://localhost:6379/zero", "REDIS_URL: database index must be a non-negative integer"),
        ("unix://", "REDIS_URL: unix:// URLs need a socket path"),
    ],
)
def test_it_refuses_a_malformed_redis_url(url, message):
    with pytest.raises(ImproperlyConfigured, match=message.replace("/", "/")):
        validate_redis_url(url)


def test_it_moves_a_redis_url_to_another_database():
    assert redis_url_with_db("redis://:pw@cache:6379/0", 15) == "redis://:pw@cache:6379/15"
    assert redis_url_with_db("unix:///tmp/x/redis.sock?db=0", 15) == "unix:///tmp/x/redis.sock?db=15"


def test_it_spells_a_socket_broker_the_kombu_way():
    assert celery_broker_url("unix:///tmp/x/redis.sock?db=15") == "redis+socket:///tmp/x/redis.sock?virtual_host=15"
    assert celery_broker_url("redis://cache:6379/2") == "redis://cache:6379/2"


@given(st.sampled_from(["1", "true", "TRUE", "yes", "on", " On "]))
def test_env_bool_reads_true(value):
    assert env_bool("FLAG", default=False, environ={"FLAG": value}) is True


@given(st.sampled_from(["0", "false", "no", "off", "False"]))
def test_env_bool_reads_false(value):
    assert env_bool("FLAG", default=True, environ={"FLAG": value}) is False


def test_env_bool_refuses_anything_else():
    with pytest.raises(ImproperlyConfigured, match="DEBUG='perhaps': must be one of true/false"):
        env_bool("DEBUG", default=True, environ={"DEBUG": "perhaps"})


def test_env_bool_defaults_only_when_unset_or_blank():
    assert env_bool("FLAG", default=True, environ={}) is True
    assert env_bool("FLAG", default=False, environ={"FLAG": "  "}) is False


def test_env_list_splits_and_refuses_empty_items():
    assert env_list("HOSTS", default=[], environ={"HOSTS": "a.example, b.example"}) == ["a.example", "b.example"]
    assert env_list("HOSTS", default=["x"], environ={}) == ["x"]
    with pytest.raises(ImproperlyConfigured, match="HOSTS='a,,b': must be a comma-separated list"):
        env_list("HOSTS", default=[], environ={"HOSTS": "a,,b"})


def test_env_str_strips_and_defaults():
    assert env_str("K", environ={"K": " v "}) == "v"
    assert env_str("K", default="d", environ={"K": ""}) == "d"


def test_env_int_reads_a_whole_number_at_least_the_minimum():
    assert env_int("N", 7, minimum=1, environ={}) == 7
    assert env_int("N", 7, minimum=1, environ={"N": " 250 "}) == 250
    for bad in ("0", "-3", "1.5", "5s"):
        with pytest.raises(ImproperlyConfigured, match=f"N='{bad}': must be a whole number of at least 1"):
            env_int("N", 7, minimum=1, environ={"N": bad})


def test_the_development_secret_key_is_random_per_data_directory_and_kept(tmp_path):
    """DEBUG without SECRET_KEY: not a key every checkout shares (it keys the row-security seal)."""
    first, second = tmp_path / "a", tmp_path / "b"
    key = development_secret_key(first, "fallback")
    assert len(key) >= 50 and key != "fallback"
    assert development_secret_key(first, "fallback") == key  # kept: every process of the checkout agrees
    assert (first / "secret-key").stat().st_mode & 0o777 == 0o600
    assert development_secret_key(second, "fallback") != key
    assert list(first.iterdir()) == [first / "secret-key"]  # no temporary file left


def test_an_unwritable_data_directory_gives_the_fallback(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert development_secret_key(blocked / "data", "fallback") == "fallback"
