"""Importers: other agents' and memory systems' stores -> memoryd memories."""
