"""The `memoryd` command line: a thin skin over `memoryd.app.Memoryd`."""
