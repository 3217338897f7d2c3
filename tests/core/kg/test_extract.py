"""What the rules read in a memory: the curated lexicon's one id per name however it is
spelled, common words that are only sometimes names, how a memory stands to each entity,
the replacements it states (English and Chinese), and the proper-noun heuristics."""

from __future__ import annotations

import re

import pytest

from memoryd.kg import lexicon
from memoryd.kg.extract import MAX_ENTITIES, POSITIVE, Extraction, Found, by_rules


def _read(body: str, memory_type: str = "fact", *, title: str = "Notes", **kw) -> Extraction:
    return by_rules(title, body, memory_type=memory_type, **kw)


def _by_id(ex: Extraction) -> dict[str, Found]:
    return {f.id: f for f in ex.found}


# -- normalisation ------------------------------------------------------------------------
def test_three_spellings_of_react_are_one_entity():
    ex = _read("We render with React. The widgets are react.js components. ReactJS hooks everywhere.")
    (react,) = ex.found
    assert react.id == "entity:library:react" and react.name == "React" and react.type == "library"
    assert react.mentions == 3
    assert react.surfaces == {"React", "react.js", "ReactJS"}
    assert react.category == "frontend framework"


@pytest.mark.parametrize("spelling", ["React", "react.js", "ReactJS", "REACT", "react-js", "React.JS"])
def test_lexicon_folds_react_spellings(spelling: str):
    assert lexicon.norm(spelling) == "react"
    known = lexicon.lookup(spelling)
    assert known is not None and known.id == "entity:library:react"


def test_node_js_in_any_case_is_one_tool():
    ex = _read("The server runs Node.js 22. Locally node.js 20 is fine.")
    (node,) = ex.found
    assert node.id == "entity:tool:node-js" and node.mentions == 2
    assert node.surfaces == {"Node.js", "node.js"}
    assert lexicon.lookup("nodejs").id == "entity:tool:node-js"


def test_c_plus_plus_and_c_sharp_have_readable_ids():
    assert lexicon.entity_id("tool", "C++") == "entity:tool:cpp"
    assert lexicon.entity_id("tool", "C#") == "entity:tool:csharp"
    ex = _read("The engine is written in C++ and the editor in C#; cpp files build with CMake.")
    found = _by_id(ex)
    assert found["entity:tool:cpp"].mentions == 2  # "C++" and the alias "cpp"
    assert found["entity:tool:csharp"].mentions == 1
    assert "entity:tool:cmake" in found
    # Neither collapses into C (or into each other): the suffix is part of the name.
    assert lexicon.norm("C++") != lexicon.norm("C#")


def test_every_spelling_of_every_entry_leads_back_to_it():
    """No two lexicon entries claim one spelling, and every id is unique."""
    table = lexicon.table()
    claimed: dict[str, str] = {}
    for known in table:
        for spelling in (known.name, *known.aliases):
            key = lexicon.norm(spelling)
            assert claimed.setdefault(key, known.name) == known.name, (spelling, claimed[key], known.name)
            assert lexicon.lookup(spelling) is known, spelling
    ids = [k.id for k in table]
    assert len(ids) == len(set(ids))
    assert len(table) > 200


def test_every_type_is_one_of_the_seven():
    assert lexicon.TYPES == ("person", "organization", "place", "library", "tool", "project", "concept")
    assert {k.type for k in lexicon.table()} <= set(lexicon.TYPES)
    for known in lexicon.table():
        assert re.fullmatch(r"entity:[a-z]+:[^\s:]+", known.id), known.id
        assert lexicon.split_id(known.id) == (known.type, known.name)
    # An id the lexicon does not know still says its type (or concept when it cannot).
    assert lexicon.split_id("entity:person:alice-chen") == ("person", "alice-chen")
    assert lexicon.split_id("entity:gadget:x")[0] == "concept"


# -- common words that are sometimes names ------------------------------------------------
def test_solid_as_a_common_word_is_not_the_library():
    assert _read("Solid work ahead.", title="Solid work").found == []
    assert _read("a solid plan for the week, and solid tests").found == []


def test_solid_named_in_a_sentence_is_the_library():
    (solid,) = _read("This quarter we use Solid for the new pages.").found
    assert solid.id == "entity:library:solid" and solid.predicate == "uses"


def test_go_at_a_sentence_start_is_a_verb_and_written_in_go_is_the_language():
    assert _read("Go to the docs first. Go read them.").found == []
    (go,) = _read("Go to the store. The service is written in Go.").found
    assert go.id == "entity:tool:go" and go.mentions == 1 and go.surfaces == {"Go"}
    assert go.predicate == "uses"


# -- stance -------------------------------------------------------------------------------
def test_a_preference_prefers():
    (react,) = _read("I prefer React for the UI.", "preference").found
    assert react.id == "entity:library:react" and react.predicate == "prefers"


def test_a_decision_uses():
    (pg,) = _read("For the orders service we use PostgreSQL.", "decision").found
    assert pg.id == "entity:tool:postgresql" and pg.predicate == "uses"


def test_a_fact_that_only_names_a_library_mentions_it():
    (react,) = _read("React has hooks since 16.8.").found
    assert react.predicate == "mentions"


def test_the_project_s_own_name_is_works_on():
    body = "The atlas backend is slow. Tuning atlas queries this week."
    assert all(f.type != "project" for f in _read(body).found)
    ex = _read(body, project="atlas")
    atlas = _by_id(ex)["entity:project:atlas"]
    assert atlas.type == "project" and atlas.predicate == "works_on" and atlas.mentions == 2


# -- replacements -------------------------------------------------------------------------
REPLACEMENTS = [
    ("We switched from React to Solid last month.", "entity:library:react", "entity:library:solid"),
    ("We moved back to React from Vue.", "entity:library:vue", "entity:library:react"),
    ("Time to replace Flask with FastAPI.", "entity:library:flask", "entity:library:fastapi"),
    ("For the admin pages pick Vue instead of Angular.", "entity:library:angular", "entity:library:vue"),
    ("不再用 React,改用 Solid", "entity:library:react", "entity:library:solid"),
    ("从 MySQL 迁移到 PostgreSQL", "entity:tool:mysql", "entity:tool:postgresql"),
    ("用 Vite 替换 Webpack", "entity:tool:webpack", "entity:tool:vite"),
]


@pytest.mark.parametrize(("body", "old", "new"), REPLACEMENTS, ids=[r[0] for r in REPLACEMENTS])
@pytest.mark.parametrize("memory_type", ["preference", "decision"])
def test_an_explicit_replacement(body: str, old: str, new: str, memory_type: str):
    ex = _read(body, memory_type)
    found = _by_id(ex)
    assert set(found) == {old, new}
    assert ex.replaced == {old}
    assert found[old].predicate == "mentions"
    assert found[new].predicate in POSITIVE
    assert [f.id for f in ex.positive()] == [new]


@pytest.mark.parametrize(
    ("body", "old"),
    [("We no longer use Redux.", "entity:library:redux"), ("never npm", "entity:tool:npm")],
)
def test_dropping_something_replaces_it_without_a_successor(body: str, old: str):
    ex = _read(body, "preference")
    (f,) = ex.found
    assert f.id == old and ex.replaced == {old} and f.predicate == "mentions"
    assert ex.positive() == []


@pytest.mark.parametrize(
    ("body", "eid"),
    [("never forget to run pytest", "entity:library:pytest"), ("不要忘记用 pnpm", "entity:tool:pnpm")],
)
def test_a_reminder_is_not_a_replacement(body: str, eid: str):
    ex = _read(body, "preference")
    (f,) = ex.found
    assert f.id == eid and ex.replaced == set()
    assert f.predicate == "prefers"


# -- CJK ----------------------------------------------------------------------------------
def test_cjk_names_from_the_lexicon_and_the_heuristics():
    ex = _read("我在腾讯工作，住在深圳。字节跳动也不错。星河科技公司是客户。项目叫「星河」。")
    found = _by_id(ex)
    assert set(found) == {
        "entity:organization:tencent",
        "entity:place:shenzhen",
        "entity:organization:bytedance",
        "entity:organization:星河科技公司",
        "entity:concept:星河",
    }
    assert found["entity:organization:tencent"].surfaces == {"腾讯"}
    assert found["entity:organization:bytedance"].name == "ByteDance"
    assert found["entity:organization:星河科技公司"].type == "organization"
    assert found["entity:concept:星河"].type == "concept"
    # A function character before a name is not part of it; a kind of company is no name.
    assert set(_by_id(_read("我们在星河科技公司工作。"))) == {"entity:organization:星河科技公司"}
    assert _read("他去了一家互联网公司。").found == []


# -- capitalised heuristics ---------------------------------------------------------------
def test_a_two_word_name_is_one_concept():
    (alice,) = _read("We met Alice Chen at the conference.").found
    assert alice.id == "entity:concept:alice-chen" and alice.name == "Alice Chen"
    assert alice.type == "concept"


def test_stop_words_and_sentence_initial_words_are_not_names():
    assert _read("ok the Summary and Monday were fine, Then Always.").found == []
    assert _read("Banana bread is good. Tomatoes are red.").found == []
    # A CamelCase name counts even as a sentence's first word.
    (camel,) = _read("Banana bread is good. QuokkaLedger handles it.").found
    assert camel.id == "entity:concept:quokkaledger"


def test_sessions_ignore_a_capitalised_word_seen_once():
    body = "We saw Zorblax once. Later we tried React, then Frobnitz and Frobnitz again."
    long_term = {f.id for f in _read(body).found}
    assert {"entity:concept:zorblax", "entity:concept:frobnitz", "entity:library:react"} <= long_term
    session = {f.id: f.mentions for f in _read(body, "session", min_unknown=2).found}
    assert session == {"entity:concept:frobnitz": 2, "entity:library:react": 1}


# -- limits -------------------------------------------------------------------------------
def test_at_most_fifteen_entities_most_mentioned_first():
    names = [
        *("Django", "Flask", "FastAPI", "Redux", "MobX", "Zustand", "Tailwind", "Sass", "Vite"),
        *("Webpack", "esbuild", "pnpm", "Docker", "Podman", "Kubernetes", "Terraform", "Ansible"),
        *("Nginx", "Caddy", "Redis"),
    ]
    often = names[-3:]  # named last, but most often
    body = " ".join(f"Also {n}." for n in names) + " " + " ".join(f"Again {n} and {n}." for n in often)
    ex = _read(body)
    assert MAX_ENTITIES == 15 and len(ex.found) == 15
    assert [f.name for f in ex.found[:3]] == often
    assert [f.mentions for f in ex.found] == [3, 3, 3] + [1] * 12
    assert [f.name for f in ex.found[3:]] == names[:12]  # ties in order of appearance
