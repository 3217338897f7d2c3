"""Moving memories between devices: the memories.json document (export, import, and each
device's file in a sync folder), its deterministic merge, and applying a merged state to
this device's store. docs/sync.md describes the format and the rules."""
