"""The upgrade rehearsal (scripts/deploy-local-upgrade.py) and its changed release
(scripts/deploy-local-template.py --upgrade): how answers are classified, how the live
revisions are compared, what the changed release changes; and the template's promise
that a deleted stack leaves the buckets with their data (samdocs/local-stack.md)."""

from __future__ import annotations

import copy
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from chunkwise.cli.local import reconcile_event

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), ROOT / "scripts" / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rehearsal() -> ModuleType:
    return _script("deploy-local-upgrade.py")


@pytest.fixture(scope="module")
def derivation() -> ModuleType:
    return _script("deploy-local-template.py")


@pytest.fixture(scope="module")
def production() -> dict[str, Any]:
    from tests.deploy.template_policies import load_template

    return load_template(ROOT / "template.yaml")


def _hit(key: str, rev: str) -> dict[str, Any]:
    return {"citation": {"key": key, "revision": rev}}


CURRENT = {"incoming/smoke/maintenance-en.md": "v2", "incoming/smoke/wartung-de.md": "w1"}


def test_an_answer_is_ok_only_with_its_document_at_the_current_revision(
    rehearsal: ModuleType,
) -> None:
    c = rehearsal.classify
    en, de = "incoming/smoke/maintenance-en.md", "incoming/smoke/wartung-de.md"
    assert c(200, [_hit(en, "v2"), _hit(de, "w1")], "maintenance-en.md", CURRENT) == "ok"
    assert c(200, [_hit(de, "w1")], "maintenance-en.md", CURRENT) == "missing"
    assert c(200, [], "maintenance-en.md", CURRENT) == "missing"
    # The question's own document current, another hit an older revision: still stale.
    assert c(200, [_hit(en, "v2"), _hit(de, "w0")], "maintenance-en.md", CURRENT) == "stale"
    assert c(200, [_hit(en, "v1")], "maintenance-en.md", CURRENT) == "stale"
    assert c(500, [_hit(en, "v2")], "maintenance-en.md", CURRENT) == "error"


def test_live_revisions_and_chunk_ids_are_compared_exactly(rehearsal: ModuleType) -> None:
    before = {"a@1": ["a1-0", "a1-1"], "b@1": ["b1-0"]}
    same = rehearsal.compare_live(before, {"b@1": ["b1-0"], "a@1": ["a1-1", "a1-0"]})
    assert same["same"] and same["chunks_after"] == 3
    lost = rehearsal.compare_live(before, {"a@1": ["a1-0", "a1-1"]})
    assert not lost["same"] and lost["lost"] == ["b@1"]
    moved = rehearsal.compare_live(before, {"a@1": ["a1-0", "a1-2"], "b@1": ["b1-0"]})
    assert not moved["same"] and moved["chunk_ids_changed"] == ["a@1"]
    gained = rehearsal.compare_live(before, {**before, "a@2": ["a2-0"]})
    assert not gained["same"] and gained["gained"] == ["a@2"]


def test_the_mapping_revision_is_read_from_either_template_form(rehearsal: ModuleType) -> None:
    tpl = {"Resources": {"SearchIndex": {"Properties": {"MappingRevision": "7"}}}}
    assert rehearsal.mapping_revision(tpl) == "7"
    text = 'Resources:\n  SearchIndex:\n    Properties:\n      MappingRevision: "6"\n'
    assert rehearsal.mapping_revision(text) == "6"
    assert rehearsal.mapping_revision("Resources: {}") is None


def test_the_changed_release_is_a_new_layer_and_the_next_mapping_revision(
    derivation: ModuleType, production: dict[str, Any], tmp_path: Path
) -> None:
    local = derivation.derive(copy.deepcopy(production))
    local["Resources"]["TokenizerLayer"]["Properties"]["ContentUri"] = "TokenizerLayer"
    before = copy.deepcopy(local)
    changed, old, new = derivation.upgrade(local)
    assert (old, new) == ("TokenizerLayer", "TokenizerLayer-upgrade")
    revision = int(before["Resources"]["SearchIndex"]["Properties"]["MappingRevision"])
    assert changed["Resources"]["SearchIndex"]["Properties"]["MappingRevision"] == str(revision + 1)
    # Nothing else of the stack changes: the batch size is a parameter of the deploy.
    for name in set(before["Resources"]) - {"TokenizerLayer", "SearchIndex"}:
        assert changed["Resources"][name] == before["Resources"][name], name
    with pytest.raises(SystemExit):
        derivation.upgrade(changed)
    (tmp_path / old / "python").mkdir(parents=True)
    (tmp_path / old / "python" / "tokenizer.json").write_text("{}")
    derivation.make_upgraded_layer(str(tmp_path), old, new, "release 2")
    assert (tmp_path / new / "python" / "tokenizer.json").read_text() == "{}"
    assert (tmp_path / new / derivation.UPGRADE_MARKER).read_text() == "release 2\n"
    assert not (tmp_path / old / derivation.UPGRADE_MARKER).exists()


def test_deleting_the_stack_keeps_the_buckets_and_the_domain(
    derivation: ModuleType, production: dict[str, Any]
) -> None:
    """A user deleting the stack keeps the documents, their extracted text and the access
    logs (and a created domain's indexes): Retain on delete and on replacement, also in
    the template the local deploy derives."""
    kept = {"AWS::S3::Bucket", "AWS::OpenSearchService::Domain"}
    local = derivation.derive(copy.deepcopy(production))
    for tpl, expected in ((production, 4), (local, 3)):
        found = [r for r in tpl["Resources"].values() if r["Type"] in kept]
        assert len(found) == expected
        for r in found:
            assert (r.get("DeletionPolicy"), r.get("UpdateReplacePolicy")) == ("Retain", "Retain")


def test_the_reconcile_events(rehearsal: ModuleType) -> None:
    assert reconcile_event("sweep", None, False) == {"action": "sweep"}
    assert reconcile_event("rechunk", None, False) == {"action": "rechunk"}
    assert reconcile_event("finish-rechunk", "g1", True) == {
        "action": "finish-rechunk",
        "generation": "g1",
        "force": True,
    }
    with pytest.raises(ValueError):
        reconcile_event("finish-rechunk", None, False)
