"""minmax:0.7 is the default fusion everywhere it is configured, rrf:60 selectable (#29)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from chunkwise.search.fusion import DEFAULT_FUSION, parse_fusion
from chunkwise.settings import AdminSettings, QuerySettings
from tests.unit.test_template_query_model import TEMPLATE, _CfnLoader


def test_settings_default_to_minmax_0_7_and_accept_rrf(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHUNKWISE_FUSION", raising=False)
    assert QuerySettings().fusion == "minmax:0.7"
    assert AdminSettings().fusion_spec == DEFAULT_FUSION
    monkeypatch.setenv("CHUNKWISE_FUSION", "RRF:60")
    assert QuerySettings().fusion_spec == parse_fusion("rrf:60")
    monkeypatch.setenv("CHUNKWISE_FUSION", "zscore:0.5")
    with pytest.raises(ValidationError, match="fusion"):
        QuerySettings()


def test_template_default_and_wiring() -> None:
    doc: dict[str, Any] = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)
    p = doc["Parameters"]["HybridFusion"]
    assert p["Default"] == "minmax:0.7"
    for ok in ("minmax:0.7", "l2:0.3", "rrf:60"):
        assert re.match(p["AllowedPattern"], ok) and parse_fusion(ok)
    for bad in ("minmax:1", "rrf:", "zscore:0.5"):
        assert not re.match(p["AllowedPattern"], bad)
    res = doc["Resources"]
    for fn in ("QueryFunction", "AdminFunction"):
        env = res[fn]["Properties"]["Environment"]["Variables"]
        assert env["CHUNKWISE_FUSION"] == {"Ref": "HybridFusion"}, fn
    assert res["SearchIndex"]["Properties"]["HybridFusion"] == {"Ref": "HybridFusion"}
