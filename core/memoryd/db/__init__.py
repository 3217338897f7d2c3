"""The SQLite index: SQLModel tables, ordered migrations, engine with WAL and busy timeout."""
