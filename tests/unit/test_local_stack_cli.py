"""`chunkwise local up`: the URLs of the services it starts, and its state on failure.

The service scripts are replaced by fakes; the state file goes to a temporary
checkout (CHUNKWISE_REPO), so nothing is started and nothing outside tmp_path is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise.cli import local
from chunkwise.errors import ChunkwiseError


@pytest.fixture
def no_stack_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OPENSEARCH_URL", "AWS_ENDPOINT_URL", "OPENSEARCH_PORT", "LOCALSTACK_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHUNKWISE_REPO", str(tmp_path))


@pytest.mark.usefixtures("no_stack_env")
def test_services_started_on_other_ports_are_used_there(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENSEARCH_PORT", "9260")
    monkeypatch.setenv("LOCALSTACK_PORT", "4626")
    monkeypatch.setattr(local, "_script", lambda *args: 0)  # "status": already running
    cfg = local.StackConfig()
    local.start_services(cfg)
    assert cfg.opensearch_url == "http://127.0.0.1:9260"
    assert cfg.endpoint == "http://127.0.0.1:4626"


@pytest.mark.usefixtures("no_stack_env")
def test_default_ports_without_port_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_script", lambda *args: 0)
    cfg = local.StackConfig()
    local.start_services(cfg)
    assert (cfg.opensearch_url, cfg.endpoint) == (local.DEFAULT_OPENSEARCH, local.DEFAULT_ENDPOINT)


@pytest.mark.usefixtures("no_stack_env")
def test_a_failed_up_remembers_what_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    def half_up(cfg: local.StackConfig, *, start: bool = True) -> local.StackConfig:
        cfg.started.append("opensearch")
        raise ChunkwiseError("bucket: connection refused")

    monkeypatch.setattr(local, "stack_up", half_up)
    with pytest.raises(ChunkwiseError):
        local.main_local(["up"])
    state = local.load_state()
    assert state is not None and state.started == ["opensearch"]


def test_the_handlers_log_lines_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from types import ModuleType

    from aws_lambda_powertools import Logger

    module = ModuleType("fake_function")
    module.logger = Logger(service="fake-ingest")  # type: ignore[attr-defined]
    local._log_to_stderr(module)
    module.logger.info("ingested")  # type: ignore[attr-defined]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert '"message":"ingested"' in captured.err
