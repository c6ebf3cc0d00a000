"""A LocalStack Lambda runtime executor for a machine without a container runtime.

LocalStack's community edition runs a function only in a container (its `docker`
executor: the runtime image plus its runtime-init binary, both fetched on first use).
Without Docker its CreateFunction leaves every function in state Failed (on Python
3.11 the docker executor does not even import: ``threading.Lock | None`` in
``localstack.packages.api`` needs Python 3.13, hence "unsupported operand type(s) for
|: 'builtin_function_or_method' and 'NoneType'"), and a stack holding a function
fails with it.

This executor prepares a function as LocalStack does (unzips its code) and lets it
become Active, so the stack's functions, event source mappings, URLs and alarms are
created as in AWS; it refuses every invocation, naming the reason. The local deploy
(scripts/deploy-local.sh) runs the deployed functions' code in-process instead
(`chunkwise local run`). Selected with LAMBDA_RUNTIME_EXECUTOR=chunkwise-no-container.
"""

from __future__ import annotations

from typing import Any

from localstack.services.lambda_.invocation.plugins import RuntimeExecutorPlugin
from localstack.services.lambda_.invocation.runtime_executor import (
    LambdaRuntimeException,
    RuntimeExecutor,
)

REFUSAL = (
    "chunkwise-no-container: this LocalStack runs no Lambda function (no container "
    "runtime on this machine); the local deploy runs the function code in-process "
    "(`chunkwise local run`, samdocs/local-stack.md)"
)


class NoContainerExecutor(RuntimeExecutor):
    """Functions are prepared and Active; invoking one raises LambdaRuntimeException."""

    def start(self, env_vars: dict[str, str]) -> None:
        raise LambdaRuntimeException(REFUSAL)

    def stop(self) -> None:
        return None

    def get_address(self) -> str:
        raise LambdaRuntimeException(REFUSAL)

    def get_endpoint_from_executor(self) -> str:
        return "127.0.0.1"

    def get_runtime_endpoint(self) -> str:
        raise LambdaRuntimeException(REFUSAL)

    def invoke(self, payload: dict[str, Any]) -> Any:
        raise LambdaRuntimeException(REFUSAL)

    def get_logs(self) -> str:
        return REFUSAL

    @classmethod
    def prepare_version(cls, function_version: Any) -> None:
        # What the docker executor does besides pulling images: the code unzipped
        # (LocalStack keeps it; GetFunction serves the deployed package either way).
        if function_version.config.code:
            function_version.config.code.prepare_for_execution()

    @classmethod
    def cleanup_version(cls, function_version: Any) -> None:
        return None

    @classmethod
    def validate_environment(cls) -> bool:
        return True


class NoContainerExecutorPlugin(RuntimeExecutorPlugin):
    name = "chunkwise-no-container"

    def load(self, *args: Any, **kwargs: Any) -> type[RuntimeExecutor]:
        return NoContainerExecutor
