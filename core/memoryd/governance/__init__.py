"""Governance (seed 000): DURA analysis and the promotion queue, promote / reject /
merge, the decay state machine, the weekly digest, and LLM spend."""
