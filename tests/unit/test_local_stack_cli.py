"""`chunkwise local up`: the URLs of the services it starts, and its state on failure.

The service scripts are replaced by fakes; the state file goes to a temporary
checkout (CHUNKWISE_REPO), so nothing is started and nothing outside tmp_path is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chunkwise.cli import local
from chunkwise.localstack import config, emulator, services, stack
from chunkwise.settings import preserved_environment


@pytest.fixture
def no_stack_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in ("OPENSEARCH_URL", "AWS_ENDPOINT_URL", "OPENSEARCH_PORT", "LOCALSTACK_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHUNKWISE_REPO", str(tmp_path))
    with preserved_environment():  # `up` points the process at the stack it starts
        yield


@pytest.mark.usefixtures("no_stack_env")
def test_services_started_on_other_ports_are_used_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENSEARCH_PORT", "9260")
    monkeypatch.setenv("LOCALSTACK_PORT", "4626")
    monkeypatch.setattr(services, "run_script", lambda *args: 0)  # "status": already running
    cfg = config.StackConfig()
    services.start_services(cfg)
    assert cfg.opensearch_url == "http://127.0.0.1:9260"
    assert cfg.endpoint == "http://127.0.0.1:4626"
    assert cfg.started == []


@pytest.mark.usefixtures("no_stack_env")
def test_default_ports_without_port_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "run_script", lambda *args: 0)
    cfg = config.StackConfig()
    services.start_services(cfg)
    assert (cfg.opensearch_url, cfg.endpoint) == (
        config.DEFAULT_OPENSEARCH,
        config.DEFAULT_ENDPOINT,
    )


@pytest.mark.usefixtures("no_stack_env")
def test_a_failed_up_names_its_step_and_remembers_what_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "status" says not running, "up" starts: both services are started by this `up`
    monkeypatch.setattr(services, "run_script", lambda script, cmd: 1 if cmd == "status" else 0)

    def refused(cfg: config.StackConfig) -> bool:
        raise ConnectionError("bucket: connection refused")

    monkeypatch.setattr(stack, "create_resources", refused)
    with pytest.raises(stack.StartupError, match="step 'bucket and queues' failed"):
        local.main_local(["up"])
    state = config.load_state()
    assert state is not None and sorted(state.started) == ["localstack", "opensearch"]


@pytest.mark.usefixtures("no_stack_env")
def test_down_stops_only_what_up_started(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(services, "run_script", lambda *args: calls.append(args) or 0)
    config.save_state(config.StackConfig(started=["localstack"]))
    assert local.main_local(["down"]) == 0
    assert calls == [("scripts/localstack.sh", "down")]
    state = config.load_state()
    assert state is not None and state.started == []


def test_throwaway_names_are_unique_and_of_one_stack() -> None:
    a, b = config.StackConfig.throwaway("e2e"), config.StackConfig.throwaway("e2e")
    assert a.bucket != b.bucket and a.bucket.startswith("e2e-")
    assert (a.queue, a.dlq, a.index_prefix) == (f"{a.bucket}-ingest", f"{a.bucket}-dlq", a.bucket)


def test_the_handlers_log_lines_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from types import ModuleType

    from aws_lambda_powertools import Logger

    module = ModuleType("fake_function")
    module.logger = Logger(service="fake-ingest")  # type: ignore[attr-defined]
    emulator.log_to_stderr(module)
    module.logger.info("ingested")  # type: ignore[attr-defined]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert '"message":"ingested"' in captured.err
