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
    (
        "0003_vault",
        """
        -- Every Markdown note of the vault as last indexed (derived: the vault is the truth).
        -- uid is stable across renames so a move never re-embeds; content_hash, mtime and size
        -- let a reconcile skip unchanged notes without reading them.
        CREATE TABLE notes (
            path TEXT PRIMARY KEY,
            uid TEXT NOT NULL UNIQUE,
            mnemo_id TEXT,
            title TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT '[]',
            tags TEXT NOT NULL DEFAULT '[]',
            links TEXT NOT NULL DEFAULT '[]',
            content_hash TEXT NOT NULL,
            mtime REAL NOT NULL,
            size INTEGER NOT NULL DEFAULT 0,
            indexed_at REAL NOT NULL
        );
        CREATE INDEX notes_mnemo ON notes(mnemo_id);
        CREATE INDEX notes_title ON notes(title COLLATE NOCASE);
        CREATE INDEX notes_hash ON notes(content_hash);

        -- Heading chunks of each note; id = '<note uid>:<ord>', hash = hash of the embedded text.
        -- n is also the chunks_fts rowid, so a note's FTS rows are deleted by key, not by scan.
        CREATE TABLE chunks (
            n INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            note_uid TEXT NOT NULL,
            ord INTEGER NOT NULL,
            heading TEXT,
            content TEXT NOT NULL,
            hash TEXT NOT NULL,
            words INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX chunks_note ON chunks(note_uid, ord);

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            id UNINDEXED, title, heading, content, tags, tokenize = 'porter unicode61 remove_diacritics 2'
        );

        -- Promotions, demotions and renames, for the dashboard's weekly chart.
        CREATE TABLE vault_log (
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            memory_id TEXT,
            path TEXT
        );
        CREATE INDEX vault_log_at ON vault_log(at);
        """,
    ),
    (
        "0005_graph",
        """
        -- Memories written in bulk wait here for their fingerprint and links (enrich_pending).
        -- Existing memories are queued so an upgraded store gets its graph too.
        CREATE TABLE enrich_queue (
            memory_id TEXT PRIMARY KEY,
            queued_at REAL NOT NULL
        );
        INSERT OR IGNORE INTO enrich_queue (memory_id, queued_at) SELECT id, created_at FROM memories;

        -- Which memory names which entity: shares_entity links and the gazetteer read it.
        CREATE TABLE memory_entities (
            memory_id TEXT NOT NULL,
            key TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (memory_id, key)
        );
        CREATE INDEX memory_entities_key ON memory_entities(key, created_at);
        CREATE INDEX uses_session ON uses(json_extract(context, '$.session_id')) WHERE json_valid(context);
        """,
    ),
    (
        "0006_dream",
        """
        -- The dream cycle's journal: one row per run, one per planned operation. An operation
        -- goes planned -> applied | skipped | failed; a run left 'applying' by a crash or a kill
        -- is finished by the next run (every operation is idempotent).
        CREATE TABLE dream_runs (
            id TEXT PRIMARY KEY,
            started_at REAL NOT NULL,
            finished_at REAL,
            status TEXT NOT NULL,
            steps TEXT NOT NULL DEFAULT '[]',
            report_path TEXT,
            summary TEXT
        );
        CREATE INDEX dream_runs_started ON dream_runs(started_at);

        CREATE TABLE dream_ops (
            run_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            step TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            summary TEXT NOT NULL DEFAULT '',
            payload TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'planned',
            attempts INTEGER NOT NULL DEFAULT 0,
            result TEXT,
            applied_at REAL,
            PRIMARY KEY (run_id, seq)
        );
        CREATE INDEX dream_ops_status ON dream_ops(run_id, status);

        -- Clusters of near-duplicates. The id is a hash of the sorted member ids, so the same
        -- cluster keeps its id from run to run; review-band clusters wait here for a person.
        CREATE TABLE dream_clusters (
            id TEXT PRIMARY KEY,
            members TEXT NOT NULL,
            cohesion REAL NOT NULL,
            status TEXT NOT NULL,
            first_seen REAL NOT NULL,
            updated_at REAL NOT NULL,
            decided_at REAL,
            merged_into TEXT
        );
        CREATE INDEX dream_clusters_status ON dream_clusters(status);
        """,
    ),
    (
        "0007_fts_rowid",
        # FTS rows take their memory's rowid so updates find them by key, not by a scan.
        """
        DELETE FROM memories_fts;
        INSERT INTO memories_fts (rowid, id, content, tags) SELECT rowid, id, content,
            (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(memories.tags)) FROM memories;
        """,
    ),
    (
        "0008_demotions",
        # A person's demotion (lifecycle/demotion.py): automatic promotion counts only the uses
        # made after it, so the decision sticks until new evidence or an explicit promote.
        """
        CREATE TABLE demotions (
            memory_id TEXT PRIMARY KEY,
            at REAL NOT NULL
        );
        """,
    ),
    (
        "0009_fts_context",
        # A memory said in a conversation is indexed with the turn before it (meta.context, set
        # by ingest) in a column of its own, weighed below its content (store/fts.py
        # MEMORY_WEIGHTS). An FTS5 table cannot gain a column: it is made anew and refilled.
        """
        DROP TABLE memories_fts;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            id UNINDEXED, content, tags, context, tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO memories_fts (rowid, id, content, tags, context) SELECT rowid, id, content,
            (SELECT coalesce(group_concat(value, ' '), '') FROM json_each(memories.tags)),
            coalesce(json_extract(meta, '$.context'), '') FROM memories;
        """,
    ),
]
