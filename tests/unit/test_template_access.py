"""template.yaml, access control: the AccessControl parameter picks the query endpoint
(IAM Function URL for none; an HTTP API with a JWT authorizer, and no Function URL, for
groups), and hands the query function exactly the settings it validates."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.settings import QuerySettings
from tests.unit.test_template import TEMPLATE, _props
from tests.unit.test_template import template as template  # the parsed template, a fixture


def _resources_of(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template["Resources"].items() if v["Type"] == kind}


def test_the_access_mode_is_a_parameter_and_defaults_to_none(template: dict[str, Any]) -> None:
    params = template["Parameters"]
    assert params["AccessControl"]["AllowedValues"] == ["none", "groups"]
    assert params["AccessControl"]["Default"] == "none"
    assert params["JwtGroupsClaim"]["Default"] == "cognito:groups"
    assert params["JwtAudienceClaim"]["AllowedValues"] == ["aud", "client_id"]
    for name in ("JwtIssuer", "JwtAudience", "JwtJwksUrl", "AdminGroup"):
        assert params[name]["Default"] == "", name
    conditions = template["Conditions"]
    assert conditions["UseGroupsAccess"] == {"!Equals": [{"!Ref": "AccessControl"}, "groups"]}
    assert conditions["UseIamFunctionUrl"] == {"!Not": [{"!Condition": "UseGroupsAccess"}]}


def test_mode_groups_needs_an_issuer_and_an_audience(template: dict[str, Any]) -> None:
    rule = template["Rules"]["GroupsAccessNeedsAnIssuer"]
    assert rule["RuleCondition"] == {"!Equals": [{"!Ref": "AccessControl"}, "groups"]}
    asserted = [a["Assert"]["!Not"][0]["!Equals"][0] for a in rule["Assertions"]]
    assert asserted == [{"!Ref": "JwtIssuer"}, {"!Ref": "JwtAudience"}]


def test_the_function_url_exists_only_in_mode_none(template: dict[str, Any]) -> None:
    assert "FunctionUrlConfig" not in _props(template, "QueryFunction")
    urls = _resources_of(template, "AWS::Lambda::Url")
    assert set(urls) == {"QueryFunctionUrl"}
    url = urls["QueryFunctionUrl"]
    assert url["Condition"] == "UseIamFunctionUrl"
    assert url["Properties"]["AuthType"] == "AWS_IAM"
    assert template["Outputs"]["QueryFunctionUrl"]["Condition"] == "UseIamFunctionUrl"
    for function in _resources_of(template, "AWS::Serverless::Function").values():
        assert "FunctionUrlConfig" not in function["Properties"]


def test_mode_groups_puts_a_jwt_authorizer_in_front_of_every_route(
    template: dict[str, Any],
) -> None:
    api = template["Resources"]["QueryHttpApi"]
    assert api["Type"] == "AWS::Serverless::HttpApi"
    assert api["Condition"] == "UseGroupsAccess"
    auth = api["Properties"]["Auth"]
    assert auth["DefaultAuthorizer"] == "ChunkwiseJwt"
    jwt = auth["Authorizers"]["ChunkwiseJwt"]
    assert jwt["IdentitySource"] == "$request.header.Authorization"
    assert jwt["JwtConfiguration"] == {
        "issuer": {"!Ref": "JwtIssuer"},
        "audience": [{"!Ref": "JwtAudience"}],
    }
    routes = api["Properties"]["DefinitionBody"]["paths"]
    methods = [(path, m, spec) for path, ops in routes.items() for m, spec in ops.items()]
    assert {(p, m) for p, m, _ in methods} == {("/", "get"), ("/", "post")}
    for _, _, spec in methods:
        # no route opts out of the default authorizer, every one reaches the function
        assert "security" not in spec
        integration = spec["x-amazon-apigateway-integration"]
        assert integration["uri"] == {"!GetAtt": "QueryFunction.Arn"}
        assert integration["payloadFormatVersion"] == "2.0"
    assert template["Outputs"]["QueryApiUrl"]["Condition"] == "UseGroupsAccess"


def test_only_this_api_may_invoke_the_function_and_nobody_anonymously(
    template: dict[str, Any],
) -> None:
    permissions = _resources_of(template, "AWS::Lambda::Permission")
    query = {k: v for k, v in permissions.items() if v["Properties"]["FunctionName"] ==
             {"!Ref": "QueryFunction"}}  # fmt: skip
    assert set(query) == {"QueryHttpApiInvokePermission"}
    permission = query["QueryHttpApiInvokePermission"]
    assert permission["Condition"] == "UseGroupsAccess"
    assert permission["Properties"]["Principal"] == "apigateway.amazonaws.com"
    assert "${QueryHttpApi}/*" in permission["Properties"]["SourceArn"]["!Sub"]
    for p in permissions.values():
        assert p["Properties"]["Principal"] != "*"


def test_the_api_logs_access_without_the_query_string_or_the_token(
    template: dict[str, Any],
) -> None:
    settings = _props(template, "QueryHttpApi")["AccessLogSettings"]
    assert settings["DestinationArn"] == {"!GetAtt": "QueryApiLogGroup.Arn"}
    fmt = settings["Format"]
    assert "$context.authorizer.error" in fmt and "$context.status" in fmt
    for leak in ("queryString", "path", "header", "Authorization"):
        assert leak not in fmt
    assert template["Resources"]["QueryApiLogGroup"]["Condition"] == "UseGroupsAccess"


def test_the_query_function_gets_the_access_settings_it_validates(
    template: dict[str, Any],
) -> None:
    env = _props(template, "QueryFunction")["Environment"]["Variables"]
    globals_env = template["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CHUNKWISE_ACCESS_CONTROL"] == {"!Ref": "AccessControl"}
    assert env["CHUNKWISE_JWT_ISSUER"] == {"!Ref": "JwtIssuer"}
    assert env["CHUNKWISE_JWT_AUDIENCE"] == {"!Ref": "JwtAudience"}
    assert env["CHUNKWISE_JWT_GROUPS_CLAIM"] == {"!Ref": "JwtGroupsClaim"}
    assert env["CHUNKWISE_JWT_AUDIENCE_CLAIM"] == {"!Ref": "JwtAudienceClaim"}
    # An empty admin group is left out (the setting refuses an empty group name).
    assert env["CHUNKWISE_ADMIN_GROUP"]["!If"] == [
        "HasAdminGroup", {"!Ref": "AdminGroup"}, {"!Ref": "AWS::NoValue"}
    ]  # fmt: skip
    jwks = env["CHUNKWISE_JWT_JWKS_URL"]["!If"]
    assert jwks[0] == "UseGroupsAccess" and jwks[2] == ""
    assert jwks[1]["!If"][2] == {"!Sub": "${JwtIssuer}/.well-known/jwks.json"}
    # Every CHUNKWISE_ variable the function gets is one its settings read.
    names = {f"CHUNKWISE_{name.upper()}" for name in QuerySettings.model_fields}
    names |= {"CHUNKWISE_BUCKET"}  # read as source_bucket
    for var in {**globals_env, **env}:
        if var.startswith("CHUNKWISE_") and var not in (
            "CHUNKWISE_INPUT_PREFIX", "CHUNKWISE_ARTIFACTS_BUCKET", "CHUNKWISE_ARTIFACTS_PREFIX"
        ):  # fmt: skip
            assert var in names, var


@pytest.mark.parametrize("text", ["AccessControl", "QueryHttpApi", "JWT authorizer"])
def test_the_template_says_what_it_does(text: str) -> None:
    assert text in TEMPLATE.read_text(encoding="utf-8")
