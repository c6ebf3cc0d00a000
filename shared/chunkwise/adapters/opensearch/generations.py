"""Generations and aliases of one deployment over opensearch-py: create, template,
swap, drop, list, the live generation, its model and its missing fields."""

from __future__ import annotations

import logging
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError

from chunkwise.adapters.opensearch.retries import RetryPolicy, with_retries
from chunkwise.errors import PermanentError
from chunkwise.index.generation_model import GenerationModel, ModelMismatchError, model_mismatch
from chunkwise.index.mapping import (
    dynamic_templates_change,
    index_body,
    index_template_body,
    keyword_bound_changes,
    missing_properties,
)
from chunkwise.index.names import IndexNames, swap_actions, template_name

log = logging.getLogger("chunkwise.index")


class GenerationError(PermanentError):
    """Invalid generation operation (exists already, in use, missing, another model)."""


class GenerationModelError(GenerationError, ModelMismatchError):
    """The generation was built with another embedding model."""


def read_generation_meta(
    client: OpenSearch, index_or_alias: str, policy: RetryPolicy | None = None
) -> tuple[str, dict[str, Any]]:
    """The physical index behind ``index_or_alias`` and its mapping's ``_meta``."""

    def get() -> tuple[str, dict[str, Any]]:
        try:
            found = client.indices.get_mapping(index=index_or_alias)
        except NotFoundError as exc:
            raise GenerationError(f"no generation behind {index_or_alias}") from exc
        index = sorted(found)[0]
        return index, dict(found[index]["mappings"].get("_meta", {}))

    return with_retries(policy or RetryPolicy(), f"get mapping of {index_or_alias}", get)


def check_generation_model(
    client: OpenSearch,
    index_or_alias: str,
    model: GenerationModel,
    policy: RetryPolicy | None = None,
) -> str:
    """The generation's index if it was built with ``model``; GenerationError if not."""
    index, meta = read_generation_meta(client, index_or_alias, policy)
    problem = model_mismatch(meta, index, model)
    if problem:
        raise GenerationModelError(problem)
    return index


class GenerationAdmin:
    """Generations and aliases of one deployment (the base of `OpenSearchIndex`)."""

    def __init__(
        self,
        client: OpenSearch,
        names: IndexNames | None = None,
        *,
        target: str | None = None,
        policy: RetryPolicy | None = None,
        batch_size: int = 500,
        page_size: int = 1000,
        max_rounds: int = 100,
        model: GenerationModel | None = None,
    ) -> None:
        self.client = client
        # The model the written vectors come from: checked against the target
        # generation's metadata before the first write (None: not checked).
        self.model = model
        self._model_checked = False
        self.page_size = page_size
        self.max_rounds = max_rounds
        self.names = names or IndexNames()
        self.target = target or self.names.write_alias
        self.policy = policy or RetryPolicy()
        self.batch_size = batch_size

    # ------------------------------------------------------------------ generations

    def create_generation(
        self,
        generation: str,
        *,
        dimension: int,
        embedder_name: str = "",
        tokenizer_id: str = "",
        chunker_config: dict[str, Any] | None = None,
        shards: int = 1,
        replicas: int = 0,
    ) -> str:
        index = self.names.index(generation)
        body = index_body(
            dimension,
            embedder_name=embedder_name,
            tokenizer_id=tokenizer_id,
            generation=generation,
            chunker_config=chunker_config,
            shards=shards,
            replicas=replicas,
        )

        def create() -> None:
            if self.client.indices.exists(index=index):
                raise GenerationError(f"generation index {index} exists already")
            self.client.indices.create(index=index, body=body)

        self.ensure_template(shards=shards, replicas=replicas)

        with_retries(self.policy, f"create {index}", create)
        return index

    def ensure_template(self, *, shards: int = 1, replicas: int = 0) -> None:
        """Install (or update) the index template for this deployment's generations."""
        body = index_template_body(self.names, shards=shards, replicas=replicas)
        name = template_name(self.names)
        with_retries(
            self.policy,
            f"put index template {name}",
            lambda: self.client.indices.put_index_template(name=name, body=body),
        )

    def alias_holders(self, alias: str) -> list[str]:
        def get() -> list[str]:
            try:
                return sorted(self.client.indices.get_alias(name=alias).keys())
            except NotFoundError:
                return []

        return with_retries(self.policy, f"get alias {alias}", get)

    def live_generation(self) -> str | None:
        holders = self.alias_holders(self.names.read_alias)
        return holders[0] if holders else None

    def swap(self, generation: str) -> dict[str, Any]:
        """Point write and read alias at ``generation`` in one atomic ``_aliases`` call."""
        index = self.names.index(generation)

        def do() -> dict[str, Any]:
            if not self.client.indices.exists(index=index):
                raise GenerationError(f"generation index {index} does not exist")
            body = swap_actions(
                self.names,
                index,
                current_write=self.alias_holders(self.names.write_alias),
                current_read=self.alias_holders(self.names.read_alias),
            )
            self.client.indices.update_aliases(body=body)
            return body

        return with_retries(self.policy, f"swap to {index}", do)

    def drop(self, generation: str, *, force: bool = False) -> None:
        index = self.names.index(generation)
        in_use = index in self.alias_holders(self.names.read_alias) or index in self.alias_holders(
            self.names.write_alias
        )
        if in_use and not force:
            raise GenerationError(f"{index} holds the live aliases; swap first (or force)")

        def do() -> None:
            try:
                self.client.indices.delete(index=index)
            except NotFoundError as exc:
                raise GenerationError(f"generation index {index} does not exist") from exc

        with_retries(self.policy, f"drop {index}", do)

    def generations(self) -> list[str]:
        def get() -> list[str]:
            try:
                found = self.client.indices.get(index=f"{self.names.prefix}-*")
            except NotFoundError:
                return []
            return sorted(g for g in (self.names.generation_of(i) for i in found) if g is not None)

        return with_retries(self.policy, "list generations", get)

    def ensure_live_generation(
        self,
        generation: str,
        *,
        dimension: int,
        embedder_name: str = "",
        tokenizer_id: str = "",
        shards: int = 1,
        replicas: int = 0,
    ) -> str:
        """Create ``generation`` and swap to it unless some generation is live already;
        a live generation created by an older release gets this release's new fields.
        (A live generation of another model stays live: moving over is a re-chunk
        into a new generation and a swap; writes and queries refuse it until then.)"""
        live = self.live_generation()
        if live:
            self.add_missing_fields(live)
            return live
        index = self.names.index(generation)
        if not self.client.indices.exists(index=index):
            self.create_generation(
                generation,
                dimension=dimension,
                embedder_name=embedder_name,
                tokenizer_id=tokenizer_id,
                shards=shards,
                replicas=replicas,
            )
        self.swap(generation)
        return index

    def generation_meta(self, index_or_alias: str) -> tuple[str, dict[str, Any]]:
        """The physical index behind ``index_or_alias`` and its generation metadata."""
        return read_generation_meta(self.client, index_or_alias, self.policy)

    def check_model(self, model: GenerationModel, index_or_alias: str | None = None) -> str:
        """Raise GenerationError unless ``model``'s vectors belong in the generation."""
        return check_generation_model(
            self.client, index_or_alias or self.target, model, self.policy
        )

    def add_missing_fields(self, index: str) -> list[str]:
        """Add the fields of this release's mapping that ``index`` lacks, its dynamic
        templates (the metadata's), and bring its keyword bounds (``ignore_above``) up to
        date; returns the changed fields' names (``dynamic_templates`` for the templates).
        The templates go first: a metadata field is only ever mapped through them."""

        def do() -> list[str]:
            mapping = self.client.indices.get_mapping(index=index)[index]["mappings"]
            dimension = int(mapping.get("_meta", {}).get("dimension", 1))
            wanted_mappings = index_body(dimension)["mappings"]
            wanted = wanted_mappings["properties"]
            current = mapping.get("properties", {})
            changes = {
                **missing_properties(current, wanted),
                **keyword_bound_changes(current, wanted),
            }
            templates = dynamic_templates_change(
                mapping.get("dynamic_templates") or [], wanted_mappings["dynamic_templates"]
            )
            body: dict[str, Any] = {"properties": changes} if changes else {}
            if templates is not None:
                body["dynamic_templates"] = templates
            if body:
                self.client.indices.put_mapping(index=index, body=body)
                log.info("updated %s in the mapping of %s", sorted(body), index)
            return sorted(changes) + (["dynamic_templates"] if templates is not None else [])

        return with_retries(self.policy, f"add missing fields to {index}", do)
