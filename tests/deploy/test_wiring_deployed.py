"""The wiring of the deployed stack (#30 item 2), found from its outputs and resources
in LocalStack and checked there: `make test-deploy` (after the deploy and the smoke
test), or `bash scripts/deploy-local.sh wiring` against a stack that is up.

- an upload under InputPrefix reaches the deployed queue (and a delete does), one
  outside it does not; the bucket's notification configuration and the queue's policy
  as deployed;
- a message no consumer deletes moves to the deployed DLQ on the receive after the
  stack's MaxReceiveCount-th, not before;
- the two EventBridge Scheduler schedules target the reconcile function, the custom
  resource SearchIndex is the admin function's;
- each function's role, read back from the emulator's IAM (inline and attached
  policies), evaluated (tests/deploy/iam.py) for tests/deploy/calls.py: allowed where
  needed, denied elsewhere.

The same checks (tests/deploy/checks.py) fail on broken templates in
tests/unit/test_deploy_wiring_template.py, without a deploy.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import Any

import pytest

from tests.deploy import calls, checks

pytestmark = pytest.mark.deploy


class Deployed:
    def __init__(self) -> None:
        import boto3

        from chunkwise.localstack.config import service_urls

        self.endpoint = service_urls()[0]
        self.name = os.environ.get("DEPLOY_LOCAL_STACK", "chunkwise-local")
        kw = {
            "endpoint_url": self.endpoint,
            "region_name": "us-east-1",
            "aws_access_key_id": "test",
            "aws_secret_access_key": "test",
        }
        self.c = {
            s: boto3.client(s, **kw)
            for s in ("cloudformation", "s3", "sqs", "iam", "lambda", "scheduler")  # type: ignore[call-overload]
        }
        cfn = self.c["cloudformation"]
        stack = cfn.describe_stacks(StackName=self.name)["Stacks"][0]
        assert stack["StackStatus"] in ("CREATE_COMPLETE", "UPDATE_COMPLETE"), stack["StackStatus"]
        self.outputs = {o["OutputKey"]: o["OutputValue"] for o in stack["Outputs"]}
        self.params = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
        self.resources = cfn.describe_stack_resources(StackName=self.name)["StackResources"]
        self.physical = {
            r["LogicalResourceId"]: r.get("PhysicalResourceId", "") for r in self.resources
        }
        self.template = cfn.get_template(StackName=self.name, TemplateStage="Processed")[
            "TemplateBody"
        ]
        if isinstance(self.template, str):
            self.template = json.loads(self.template)
        self.queue_url = self.outputs["IngestQueueUrl"]
        self.dlq_url = self.outputs["IngestDLQUrl"]

    def queue_arn(self, url: str) -> str:
        attrs = self.c["sqs"].get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
        arn: str = attrs["Attributes"]["QueueArn"]
        return arn

    def function_arn(self, logical_id: str) -> str:
        conf = self.c["lambda"].get_function_configuration(FunctionName=self.physical[logical_id])
        arn: str = conf["FunctionArn"]
        return arn

    def names(self) -> calls.Names:
        role = self.c["iam"].get_role(RoleName=self.physical["QueryConnectorRole"])["Role"]
        return calls.Names(
            bucket=self.outputs["DocumentBucketName"],
            input_prefix=self.outputs["InputPrefix"],
            artifacts_bucket=self.outputs["ArtifactsBucketName"],
            artifacts_prefix=self.params["ArtifactsPrefix"],
            queue_arn=self.queue_arn(self.queue_url),
            dlq_arn=self.queue_arn(self.dlq_url),
            domain_arn=self.params["OpenSearchResourceArn"],
            region="us-east-1",
            embedding_model=self.params["EmbeddingModel"],
            index_prefix=self.params["IndexPrefix"],
            query_connector_role_arn=role["Arn"],
        )

    def role_policies(self, logical_id: str) -> list[Any]:
        """The function's role's policy documents as the emulator's IAM holds them:
        inline, and attached (customer and AWS-managed: the emulator has the AWS
        documents, e.g. AWSLambdaBasicExecutionRole's logs:* that SAM attaches)."""
        iam = self.c["iam"]
        conf = self.c["lambda"].get_function_configuration(FunctionName=self.physical[logical_id])
        role = conf["Role"].rsplit("/", 1)[-1]
        docs: list[Any] = []
        for name in iam.list_role_policies(RoleName=role)["PolicyNames"]:
            docs.append(iam.get_role_policy(RoleName=role, PolicyName=name)["PolicyDocument"])
        for att in iam.list_attached_role_policies(RoleName=role)["AttachedPolicies"]:
            pol = iam.get_policy(PolicyArn=att["PolicyArn"])["Policy"]
            ver = iam.get_policy_version(
                PolicyArn=att["PolicyArn"], VersionId=pol["DefaultVersionId"]
            )
            docs.append(ver["PolicyVersion"]["Document"])
        assert docs, f"{logical_id}'s role {role} has no policy"
        return docs


@pytest.fixture(scope="module")
def deployed() -> Deployed:
    return Deployed()


def _drain_for(d: Deployed, url: str, pred: Any, seconds: float) -> list[dict[str, Any]]:
    """Messages of ``url`` matching ``pred`` within ``seconds``, deleted; the others are
    made visible again at once (VisibilityTimeout 0) for their consumer."""
    sqs, found, end = d.c["sqs"], [], time.monotonic() + seconds
    while time.monotonic() < end:
        msgs = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, VisibilityTimeout=0
        ).get("Messages", [])
        for m in msgs:
            if pred(m["Body"]):
                found.append(m)
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return found


def _s3_records(body: str) -> list[tuple[str, str]]:
    try:
        recs = json.loads(body).get("Records", [])
    except (ValueError, AttributeError):
        return []
    return [(r["eventName"], r["s3"]["object"]["key"]) for r in recs if "s3" in r]


def test_the_bucket_notifies_the_queue_as_deployed(deployed: Deployed) -> None:
    conf = deployed.c["s3"].get_bucket_notification_configuration(
        Bucket=deployed.outputs["DocumentBucketName"]
    )
    assert (
        checks.notification_problems(
            conf, deployed.queue_arn(deployed.queue_url), deployed.outputs["InputPrefix"]
        )
        == []
    )


def test_the_queue_policy_lets_only_the_bucket_send(deployed: Deployed) -> None:
    attrs = deployed.c["sqs"].get_queue_attributes(
        QueueUrl=deployed.queue_url, AttributeNames=["Policy"]
    )["Attributes"]
    assert "Policy" in attrs, "the deployed queue has no policy"
    assert (
        checks.queue_policy_problems(
            attrs["Policy"],
            deployed.queue_arn(deployed.queue_url),
            deployed.outputs["DocumentBucketName"],
            "000000000000",
        )
        == []
    )


def test_an_upload_reaches_the_deployed_queue(deployed: Deployed) -> None:
    s3, bucket = deployed.c["s3"], deployed.outputs["DocumentBucketName"]
    tag = uuid.uuid4().hex
    inside = f"{deployed.outputs['InputPrefix']}wiring/{tag}.txt"
    outside = f"not-{deployed.outputs['InputPrefix']}wiring/{tag}.txt"
    s3.put_object(Bucket=bucket, Key=inside, Body=b"wiring check\n")
    s3.put_object(Bucket=bucket, Key=outside, Body=b"wiring check\n")
    got = _drain_for(deployed, deployed.queue_url, lambda b: tag in b, 15)
    events = [e for m in got for e in _s3_records(m["Body"])]
    assert [k for _, k in events] == [inside], events
    assert events[0][0].startswith("ObjectCreated:")
    s3.delete_object(Bucket=bucket, Key=inside)  # a delete marker: ObjectRemoved
    s3.delete_object(Bucket=bucket, Key=outside)
    got = _drain_for(deployed, deployed.queue_url, lambda b: tag in b, 15)
    events = [e for m in got for e in _s3_records(m["Body"])]
    assert [k for _, k in events] == [inside], events
    assert events[0][0].startswith("ObjectRemoved:")


def test_a_poison_message_ends_in_the_dlq_after_the_receive_count(deployed: Deployed) -> None:
    sqs, count = deployed.c["sqs"], int(deployed.params["MaxReceiveCount"])
    body = json.dumps({"poison": uuid.uuid4().hex})
    sqs.send_message(QueueUrl=deployed.queue_url, MessageBody=body)
    receives = 0
    end = time.monotonic() + 60
    # A consumer that fails on it: received, never deleted, visible again at once.
    while receives < count and time.monotonic() < end:
        for m in sqs.receive_message(
            QueueUrl=deployed.queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=1,
            VisibilityTimeout=0,
        ).get("Messages", []):
            if m["Body"] == body:
                receives += 1
    assert receives == count, f"received {receives} times of {count} from the queue"
    assert _drain_for(deployed, deployed.dlq_url, lambda b: b == body, 2) == [], (
        "in the DLQ before the receive after the last allowed one"
    )
    # The next receive finds it over the count: it moves to the DLQ.
    again = _drain_for(deployed, deployed.queue_url, lambda b: b == body, 3)
    assert again == [], f"received a {count + 1}th time from the queue"
    assert len(_drain_for(deployed, deployed.dlq_url, lambda b: b == body, 10)) == 1
    attrs = deployed.c["sqs"].get_queue_attributes(
        QueueUrl=deployed.queue_url, AttributeNames=["RedrivePolicy"]
    )["Attributes"]
    assert checks.redrive_problems(attrs, deployed.queue_arn(deployed.dlq_url), count) == []


def test_the_schedules_target_the_reconcile_function(deployed: Deployed) -> None:
    sch = deployed.c["scheduler"]
    found = [
        sch.get_schedule(Name=s["Name"], GroupName=s.get("GroupName", "default"))
        for s in sch.list_schedules()["Schedules"]
    ]
    fn = deployed.function_arn("ReconcileFunction")
    expected = {
        deployed.params["ReconcileSchedule"]: None,
        deployed.params["RetentionSchedule"]: '{"action": "retention"}',
    }
    assert checks.schedule_problems(found, fn, expected) == []


def test_the_custom_resource_is_the_admin_functions(deployed: Deployed) -> None:
    token = deployed.template["Resources"]["SearchIndex"]["Properties"]["ServiceToken"]
    # The processed template holds the intrinsic: resolve it against the stack.
    assert token == {"Fn::GetAtt": ["AdminFunction", "Arn"]} or isinstance(token, str), token
    arn = deployed.function_arn(token["Fn::GetAtt"][0]) if isinstance(token, dict) else token
    assert (
        checks.custom_resource_problems(
            deployed.resources, arn, deployed.function_arn("AdminFunction")
        )
        == []
    )


def test_each_roles_deployed_policies_allow_its_calls_and_nothing_else(
    deployed: Deployed,
) -> None:
    policies = {fn: deployed.role_policies(fn) for fn in calls.FUNCTIONS}
    assert checks.policy_problems(policies, deployed.names()) == []
