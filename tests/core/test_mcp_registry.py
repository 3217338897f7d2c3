"""server.json, memoryd's entry for the MCP registry, checked against the required part of
the registry's schema (server.schema.json 2025-12-11: ServerDetail, RegistryPackage,
StdioTransport) and against the project it describes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

# The registry's required fields and constraints, as its schema states them.
SERVER_JSON: dict[str, Any] = {
    "type": "object",
    "required": ["name", "description", "version"],
    "properties": {
        "$schema": {"type": "string", "const": SCHEMA_URL},
        "name": {
            "type": "string",
            "minLength": 3,
            "maxLength": 200,
            "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
        },
        "title": {"type": "string", "minLength": 1, "maxLength": 100},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255, "not": {"const": "latest"}},
        "packages": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "registryType": {"enum": ["npm", "pypi", "nuget", "oci", "mcpb"]},
                    "identifier": {"type": "string", "minLength": 1},
                    "version": {"type": "string", "minLength": 1, "not": {"const": "latest"}},
                    "transport": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"enum": ["stdio", "streamable-http", "sse"]}},
                    },
                    "packageArguments": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["type"],
                            "anyOf": [
                                {"required": ["value"]},
                                {"required": ["valueHint"]},
                                {"required": ["name"]},
                            ],
                        },
                    },
                },
            },
        },
    },
}


def test_server_json_is_valid_and_matches_the_package() -> None:
    doc = json.loads((ROOT / "server.json").read_text(encoding="utf-8"))
    jsonschema.validate(doc, SERVER_JSON)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert doc["version"] == project["version"]
    (pkg,) = doc["packages"]
    assert (pkg["registryType"], pkg["identifier"], pkg["version"]) == (
        "pypi",
        project["name"],
        project["version"],
    )
    assert pkg["transport"] == {"type": "stdio"}
    # what a host runs: `memoryd mcp`, the console script the package installs
    assert project["scripts"]["memoryd"] == "memoryd.cli.main:main"
    assert [a.get("value") for a in pkg["packageArguments"]] == ["mcp"]
    assert doc["name"].count("/") == 1
