"""Sensitive scopes (seed 001 section 7): settings and keys, grants and the gate, and
marking a scope (encrypt everything, leave no plaintext)."""
