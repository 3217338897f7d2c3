"""The knowledge graph (seed 001 section 5, seed 002): entities the memories name, the
relations between them, and which decisions replaced which."""
