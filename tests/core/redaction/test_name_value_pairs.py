"""A secret whose name and value are two fields of one entry: a Kubernetes container's `env`
list (`- name: DB_PASSWORD` then `value: ...`), an ECS task definition's `environment`
(`{"name": ..., "value": ...}`), CloudFormation's `ParameterKey` / `ParameterValue`, AWS
tags and SSM's `Key` / `Value`. Agents read and write such files all day; until this rule
every line rule missed them, since neither line says both (left as a limit on
2026-11-28). The entries must stay as written where the name is no secret's, where the
value comes from elsewhere (`valueFrom`, `${DB_PASSWORD}`), and across entries."""

from __future__ import annotations

import json

import pytest

from memoryd.redact import redact

from .support import gone

SECRET = "Zx9Kq2Lm8Np4"


@pytest.mark.parametrize(
    "text",
    [
        f'env:\n  - name: DB_PASSWORD\n    value: "{SECRET}"\n  - name: LOG_LEVEL\n    value: debug\n',
        f"env:\n- name: STRIPE_SECRET\n  value: {SECRET}\n",
        "      - name: REDIS_PASSWORD\n        value: correcthorse99\n",
        f"- name: 'API_TOKEN'\n  value: '{SECRET}'",
        # another field between the two, and Windows line ends
        f"- name: DB_PASSWORD\r\n  description: the app's database\r\n  value: {SECRET}\r\n",
        # a comment after the value
        f"- name: JWT_SECRET\n  value: {SECRET}  # rotated in March\n",
        # the kubectl output of a pod, pasted with its indentation
        f"    Environment:\n    - name: GITHUB_TOKEN\n      value: ghx_{SECRET}\n",
        # ECS, one line and pretty-printed, and the fields the other way round
        f'"environment": [{{"name": "DB_PASSWORD", "value": "{SECRET}"}}, '
        '{"name": "PORT", "value": "8080"}]',
        f'{{\n  "name": "API_TOKEN",\n  "value": "{SECRET}"\n}}',
        f'{{"value": "{SECRET}", "name": "DB_PASSWORD"}}',
        # CloudFormation parameters, AWS tags and SSM
        f'[{{"ParameterKey": "DBPassword", "ParameterValue": "{SECRET}"}}]',
        f'{{"Key": "slack_webhook_secret", "Value": "{SECRET}"}}',
        f'{{"Name": "DB_PASSWORD", "Type": "SecureString", "Value": "{SECRET}"}}',
    ],
)
def test_a_secret_named_in_one_field_and_held_in_the_next_goes(text: str) -> None:
    out = gone(text, SECRET, "correcthorse99")
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        "env:\n  - name: LOG_LEVEL\n    value: debug\n  - name: PORT\n    value: '8080'\n",
        # the secret comes from elsewhere: nothing here to hide
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password\n",
        "- name: DB_PASSWORD\n  value: ${DB_PASSWORD}\n",
        '- name: DB_PASSWORD\n  value: "{{ .Values.db.password }}"\n',
        '{"name": "DB_PASSWORD", "valueFrom": "arn:aws:secretsmanager:eu-west-1:1:secret:db"}',
        '{"name": "PORT", "value": "8080"}, {"name": "DB_HOST", "value": "db.internal"}',
        # a secret's name in one entry is not the next entry's value's
        "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n"
        "- name: MODE\n  value: fast\n",
        '[{"name": "API_TOKEN", "valueFrom": "arn:x"}, {"name": "MODE", "value": "fast"}]',
        # prose and a form's field
        "The name: password field and its value: are both required.",
        '<input name="password" value="">',
    ],
)
def test_entries_that_hold_no_secret_stay_as_written(text: str) -> None:
    assert redact(text) == text


def test_json_stays_valid_json() -> None:
    doc = {"containerDefinitions": [{"environment": [{"name": "DB_PASSWORD", "value": SECRET}]}]}
    out = gone(json.dumps(doc, indent=2), SECRET)
    assert json.loads(out)["containerDefinitions"][0]["environment"][0]["name"] == "DB_PASSWORD"


@pytest.mark.parametrize(
    "text",
    [
        f'- {{name: DB_PASSWORD, value: "{SECRET}"}}',
        f"env: [{{name: API_TOKEN, value: {SECRET}}}, {{name: PORT, value: '80'}}]",
        # a list flattened into one line of notes (an importer's MEMORY.md)
        f"- Staging: env: - name: DB_PASSWORD value: {SECRET} - name: PORT value: '8080'",
    ],
)
def test_an_entry_on_one_line_goes(text: str) -> None:
    gone(text, SECRET)


def test_an_entry_on_one_line_without_a_secret_stays() -> None:
    for text in (
        "- {name: LOG_LEVEL, value: debug}",
        "- {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}",
        "Fill in name: password and value: later.",
    ):
        assert redact(text) == text


# A review of these rules (2026-11-29) found the entries below kept, or their neighbours
# redacted; each was seen failing before its fix.
@pytest.mark.parametrize(
    "text",
    [
        # pretty-printed JSON as a Read tool shows it, and SSM's output with a path for a name
        f'     8→          "name": "DB_PASSWORD",\n     9→          "value": "{SECRET}"\n',
        f'     3→    "ParameterKey": "DbPassword",\n     4→    "ParameterValue": "{SECRET}"',
        f'{{"Name": "/prod/db/password", "Type": "SecureString", "Value": "{SECRET}"}}',
        # Terraform, Python and boto3 give the pair with `=`
        f'env {{\n  name  = "DB_PASSWORD"\n  value = "{SECRET}"\n}}\n',
        f'set_sensitive {{\n  name  = "auth.password"\n  value = "{SECRET}"\n}}',
        f'client.V1EnvVar(name="DB_PASSWORD", value="{SECRET}")',
        f'ssm.put_parameter(Name="/prod/db/password", Value="{SECRET}", Type="SecureString")',
        # comments and blank lines between, a comment after the name, CloudFormation in YAML
        f"env:\n  - name: DB_PASSWORD\n    # prod\n    value: {SECRET}\n",
        f"env:\n  - name: DB_PASSWORD # prod\n    value: {SECRET}\n",
        f"env:\n  - name: DB_PASSWORD\n\n    value: {SECRET}\n",
        f"- ParameterKey: DbPassword\n  ParameterValue: {SECRET}\n",
        # Python's repr of the entry
        f"{{'name': 'DB_PASSWORD', 'value': '{SECRET}'}}",
    ],
)
def test_the_reviews_entries_go(text: str) -> None:
    gone(text, SECRET)


@pytest.mark.parametrize(
    "text",
    [
        # code and CloudFormation's references hold no secret
        "env: [{ name: 'DB_PASSWORD', value: props.dbPassword }]",
        "env: [{ name: 'API_KEY', value: process.env.API_KEY! }]",
        'Env: []corev1.EnvVar{{Name: "DB_PASSWORD", Value: cfg.DBPassword}}',
        '{Name: "API_TOKEN", Value: token}',
        "Environment:\n  - Name: DB_PASSWORD\n    Value: !Ref DbPassword\n",
        "Environment:\n  - Name: DB_PASSWORD\n    Value: !Sub '${DbPassword}'\n",
        'env {\n  name  = "DB_PASSWORD"\n  value = var.db_password\n}\n',
        'client.V1EnvVar(name="DB_PASSWORD", value=password)',
        # a sentence's next word
        "name: API_KEY value: in the dashboard",
    ],
)
def test_the_reviews_neighbours_stay(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f"env:\n  - name: DB_PASSWORD\n    value: Sup3r.{SECRET}\n",
        f"env:\n  - name: DB_PASSWORD\n    value: ${SECRET}\n",
        f"    12→  - name: DB_PASSWORD\n    13→    value: my.{SECRET}\n",
        "env: [{name: DB_PASSWORD, value: correcthorse}]",
        "env: [{name: POSTGRES_PASSWORD, value: supersecret}]",
    ],
)
def test_yaml_values_that_look_like_code_are_strings_and_go(text: str) -> None:
    """A second review (2026-11-29): in YAML an unquoted value is a string, whatever it looks
    like; only a tag (`!Ref`) or a reference (`${X}`, `$(X)`) holds no value."""
    out = gone(text, SECRET, "correcthorse", "supersecret")
    assert "[REDACTED:" in out
