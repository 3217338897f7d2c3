"""One module per command group; each has `register(subparsers, common)`."""
