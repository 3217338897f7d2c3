"""The knowledge graph (seed 001 section 5, seed 002): entities the memories name, the
relations between them, and which decisions replaced which."""

# The relation vocabulary of seed 002. Here, not in kg.extract, because every store write
# reads it and the extraction rules take a while to compile.
PREDICATES = (
    "mentions",
    "works_on",
    "uses",
    "prefers",
    "supersedes",
    "superseded_by",
    "conflicts_with",
    "cites",
    "runs_on",
    "belongs_to",
    "located_at",
)
