"""Append-only, named migrations. Never edit a migration that has shipped: add a new one."""

from __future__ import annotations

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            fingerprint TEXT NOT NULL DEFAULT '{}',
            tokens INTEGER NOT NULL DEFAULT 0,
            type TEXT NOT NULL,
            layer TEXT NOT NULL,
            status TEXT NOT NULL,
            wing TEXT,
            room TEXT,
            tags TEXT NOT NULL DEFAULT '[]',
            source TEXT NOT NULL,
            trust REAL NOT NULL,
            importance REAL NOT NULL,
            strength REAL NOT NULL DEFAULT 1.0,
            use_count INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_used REAL,
            pinned INTEGER NOT NULL DEFAULT 0,
            note_path TEXT,
            meta TEXT NOT NULL DEFAULT '{}',
            session_id TEXT,
            duplicate_of TEXT,
            surprise REAL,
            review_count INTEGER NOT NULL DEFAULT 0,
            cross_domain_count INTEGER NOT NULL DEFAULT 0,
            last_review_at REAL,
            event_at REAL,
            expires_at REAL,
            archived_at REAL,
            superseded_by TEXT,
            embed_model TEXT,
            cold_vector BLOB,
            cold_scale REAL
        );
        CREATE INDEX memories_status ON memories(status);
        CREATE INDEX memories_created ON memories(created_at);
        CREATE INDEX memories_hash ON memories(content_hash);
        CREATE INDEX memories_note ON memories(note_path);

        -- Links are stored in both directions (dir 'out' at the source, 'in' at the target)
        -- so traversal either way is one indexed lookup.
        CREATE TABLE links (
            src TEXT NOT NULL,
            dst TEXT NOT NULL,
            rel TEXT NOT NULL,
            dir TEXT NOT NULL CHECK (dir IN ('out', 'in')),
            origin TEXT NOT NULL DEFAULT 'auto',
            weight REAL NOT NULL DEFAULT 1.0,
            created_at REAL NOT NULL,
            PRIMARY KEY (src, dst, rel, dir)
        );
        CREATE INDEX links_dst ON links(dst);

        CREATE TABLE uses (
            memory_id TEXT NOT NULL,
            at REAL NOT NULL,
            kind TEXT NOT NULL DEFAULT 'touch',
            context TEXT
        );
        CREATE INDEX uses_memory ON uses(memory_id, at);

        CREATE TABLE activity_days (
            day TEXT PRIMARY KEY,
            first_at REAL NOT NULL
        );

        CREATE TABLE kv (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );

        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL,
            started_at REAL NOT NULL,
            finished_at REAL,
            status TEXT NOT NULL,
            detail TEXT
        );
        CREATE INDEX jobs_name ON jobs(name, started_at);

        -- Derived: rebuilt by `mnemo reindex`.
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            id UNINDEXED, content, tags, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        """,
    ),
]
