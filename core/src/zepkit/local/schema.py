"""The local engine's tables and their migrations, versioned with `PRAGMA user_version`."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from zepkit.core._errors import ConfigurationError
from zepkit.local.connection import TOKENIZER, write_transaction
from zepkit.local.ids import GRAPH_BITS
from zepkit.local.vectors import from_float32

Step = str | Callable[[sqlite3.Connection], None]
"""A migration statement: SQL, or a function for what SQL cannot do (run in the transaction)."""

_TABLES = (
    # A graph is a user's own (kind 'user', key = app user id) or shared (kind 'shared', key = app
    # graph id): the kind keeps the two id spaces apart. Episodes, statements and entities take
    # row ids from their graph's own range (`zepkit.local.ids`).
    """CREATE TABLE graphs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('user', 'shared')),
        key TEXT NOT NULL,
        statements INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        UNIQUE (kind, key)
    )""",
    """CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        user_id TEXT NOT NULL UNIQUE,
        graph INTEGER NOT NULL UNIQUE REFERENCES graphs (id),
        first_name TEXT,
        last_name TEXT,
        email TEXT,
        metadata TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE threads (
        id INTEGER PRIMARY KEY,
        thread_id TEXT NOT NULL UNIQUE,
        user INTEGER NOT NULL REFERENCES users (id),
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX threads_user ON threads (user)",
    # Row id order is message order: ids only grow while a thread exists.
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        thread INTEGER NOT NULL REFERENCES threads (id),
        role TEXT NOT NULL,
        name TEXT,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        metadata TEXT
    )""",
    "CREATE INDEX messages_thread ON messages (thread)",
    """CREATE TABLE episodes (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL,
        graph INTEGER NOT NULL REFERENCES graphs (id),
        thread INTEGER REFERENCES threads (id),
        message INTEGER UNIQUE REFERENCES messages (id),
        source TEXT NOT NULL,
        role TEXT,
        name TEXT,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        metadata TEXT
    )""",
    "CREATE INDEX episodes_thread ON episodes (thread)",
    """CREATE TABLE statements (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL,
        graph INTEGER NOT NULL REFERENCES graphs (id),
        episode INTEGER NOT NULL REFERENCES episodes (id),
        text TEXT NOT NULL,
        speaker TEXT,
        valid_at TEXT NOT NULL,
        created_at TEXT NOT NULL
    )""",
    "CREATE INDEX statements_episode ON statements (episode)",
    """CREATE TABLE entities (
        id INTEGER PRIMARY KEY,
        uuid TEXT NOT NULL,
        graph INTEGER NOT NULL REFERENCES graphs (id),
        name TEXT NOT NULL,
        norm TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (graph, norm)
    )""",
    """CREATE TABLE mentions (
        entity INTEGER NOT NULL REFERENCES entities (id),
        statement INTEGER NOT NULL REFERENCES statements (id),
        PRIMARY KEY (entity, statement)
    ) WITHOUT ROWID""",
    "CREATE INDEX mentions_statement ON mentions (statement)",
    # Per graph, how many statements hold each word (by `text.stem`): plans which query terms
    # are rare enough to rank by, see `zepkit.local.plan`.
    """CREATE TABLE terms (
        graph INTEGER NOT NULL REFERENCES graphs (id),
        term TEXT NOT NULL,
        df INTEGER NOT NULL,
        PRIMARY KEY (graph, term)
    ) WITHOUT ROWID""",
)


def _fts(table: str, column: str) -> tuple[str, ...]:
    """An FTS5 index over `table.column` reading its text from the table, kept by triggers."""
    # Graph isolation comes from row id ranges, not from the index: see `zepkit.local.ids`.
    fts = f"{table}_fts"
    return (
        f"CREATE VIRTUAL TABLE {fts} USING fts5({column}, content='{table}', "
        f"content_rowid='id', tokenize='{TOKENIZER}')",
        f"""CREATE TRIGGER {table}_fts_insert AFTER INSERT ON {table} BEGIN
            INSERT INTO {fts} (rowid, {column}) VALUES (new.id, new.{column});
        END""",
        f"""CREATE TRIGGER {table}_fts_delete AFTER DELETE ON {table} BEGIN
            INSERT INTO {fts} ({fts}, rowid, {column}) VALUES ('delete', old.id, old.{column});
        END""",
    )


_V1 = (
    *_TABLES,
    *_fts("episodes", "content"),
    *_fts("statements", "text"),
    *_fts("entities", "name"),
)

_V2 = (
    # One vector per episode for dense retrieval (extra `embeddings`): float32 bytes, tagged with
    # the embedder's model id so vectors of two models are never compared.
    """CREATE TABLE episode_vectors (
        episode INTEGER PRIMARY KEY REFERENCES episodes (id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        vector BLOB NOT NULL
    )""",
)

_V3 = (
    # The user's profile and time: `profile` is the salience of a statement the user made about
    # themselves (NULL for other statements), `topics` the single-valued subjects it speaks to
    # (" home work "), `invalid_at` when a newer statement ended it and `ended_by` which one, so
    # deleting that statement's thread brings the older fact back.
    "ALTER TABLE statements ADD COLUMN profile REAL",
    "ALTER TABLE statements ADD COLUMN topics TEXT",
    "ALTER TABLE statements ADD COLUMN invalid_at TEXT",
    "ALTER TABLE statements ADD COLUMN ended_by INTEGER",
    "CREATE INDEX statements_profile ON statements (graph) WHERE profile IS NOT NULL",
    "CREATE INDEX statements_salience ON statements (graph, profile) WHERE profile IS NOT NULL",
    "CREATE INDEX statements_ended_by ON statements (ended_by) WHERE ended_by IS NOT NULL",
)


def _int8_vectors(conn: sqlite3.Connection) -> None:
    """Rewrite every stored float32 vector as int8 codes with a scale (`zepkit.local.vectors`)."""
    after = -(2**63)
    while batch := conn.execute(
        "SELECT episode, vector FROM episode_vectors WHERE episode > ? ORDER BY episode LIMIT 1024",
        (after,),
    ).fetchall():
        after = batch[-1][0]
        conn.executemany(
            "UPDATE episode_vectors SET vector = ? WHERE episode = ?",
            [(from_float32(vector), episode) for episode, vector in batch],
        )


_V4: tuple[Step, ...] = (_int8_vectors,)

_V5 = (
    # Extraction by a language model (`zepkit.local.llm`), off the turn's path. `origin` is
    # 'llm' for a statement the model wrote (NULL: the rules'); entities and users get the
    # model's summaries. A job per message waits in `llm_jobs`, written with the message, and
    # goes with it (or its thread); `llm_usage` keeps the tokens of every call.
    "ALTER TABLE statements ADD COLUMN origin TEXT",
    "CREATE INDEX statements_llm ON statements (graph, id) WHERE origin IS NOT NULL",
    "ALTER TABLE entities ADD COLUMN summary TEXT",
    "ALTER TABLE users ADD COLUMN summary TEXT",
    """CREATE TABLE llm_jobs (
        message INTEGER PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
        thread INTEGER NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
        user_turn INTEGER NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        due_at REAL NOT NULL,
        claim TEXT,
        claimed_until REAL,
        error TEXT
    )""",
    "CREATE INDEX llm_jobs_thread ON llm_jobs (thread, state)",
    "CREATE INDEX llm_jobs_claim ON llm_jobs (claim) WHERE claim IS NOT NULL",
    """CREATE TABLE llm_usage (
        id INTEGER PRIMARY KEY,
        user INTEGER REFERENCES users (id) ON DELETE CASCADE,
        thread INTEGER REFERENCES threads (id) ON DELETE SET NULL,
        at TEXT NOT NULL,
        model TEXT NOT NULL,
        messages INTEGER NOT NULL,
        user_turns INTEGER NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        ok INTEGER NOT NULL,
        seconds REAL,
        error TEXT
    )""",
    "CREATE INDEX llm_usage_user ON llm_usage (user)",
    "CREATE INDEX llm_usage_thread ON llm_usage (thread) WHERE thread IS NOT NULL",
)

_V6 = (
    # Each graph's stored vectors per model, and how many were ever deleted or rewritten, kept
    # by triggers: a process tells whether its in-memory matrix still matches the file by
    # reading one row instead of counting the graph's rows (`zepkit.local.vectors`).
    """CREATE TABLE vector_stats (
        graph INTEGER NOT NULL,
        model TEXT NOT NULL,
        rows INTEGER NOT NULL,
        rewrites INTEGER NOT NULL,
        PRIMARY KEY (graph, model)
    ) WITHOUT ROWID""",
    "INSERT INTO vector_stats (graph, model, rows, rewrites) "
    f"SELECT episode >> {GRAPH_BITS}, model, count(*), 0 FROM episode_vectors GROUP BY 1, 2",
    f"""CREATE TRIGGER vector_stats_insert AFTER INSERT ON episode_vectors BEGIN
        INSERT INTO vector_stats (graph, model, rows, rewrites)
        VALUES (NEW.episode >> {GRAPH_BITS}, NEW.model, 1, 0)
        ON CONFLICT (graph, model) DO UPDATE SET rows = rows + 1;
    END""",
    f"""CREATE TRIGGER vector_stats_delete AFTER DELETE ON episode_vectors BEGIN
        UPDATE vector_stats SET rows = rows - 1, rewrites = rewrites + 1
        WHERE graph = OLD.episode >> {GRAPH_BITS} AND model = OLD.model;
    END""",
    f"""CREATE TRIGGER vector_stats_update AFTER UPDATE ON episode_vectors BEGIN
        UPDATE vector_stats SET rows = rows - 1, rewrites = rewrites + 1
        WHERE graph = OLD.episode >> {GRAPH_BITS} AND model = OLD.model;
        INSERT INTO vector_stats (graph, model, rows, rewrites)
        VALUES (NEW.episode >> {GRAPH_BITS}, NEW.model, 1, 1)
        ON CONFLICT (graph, model) DO UPDATE SET rows = rows + 1, rewrites = rewrites + 1;
    END""",
)


def _statement_text(row: str, content: str) -> str:
    """SQL for the text of the statement `row` ("s", "new", "old"), given SQL for its
    episode's content: stored, or read from the span of the episode it was said in."""
    return (
        f"CASE WHEN {row}.span_start IS NULL THEN {row}.text ELSE {row}.speaker || ': ' || "
        f"substr({content}, {row}.span_start + 1, {row}.span_chars) END"
    )


def _said_in(row: str) -> str:
    return f"(SELECT content FROM episodes WHERE id = {row}.episode)"


_V7 = (
    # Each text and uuid stored once. A message written from now on keeps '' as its content and
    # time and no metadata: its episode holds them (`message_rows` reads them from there). A
    # statement that is "<speaker>: <a span of its episode's text>" keeps '' as its text and
    # the span's first character and length; '' as its `valid_at` when it is its episode's
    # time, and '' as its `created_at` when it is its episode's `stored_at` (`statement_rows`
    # reads all three back). An episode, statement or entity written from now on keeps '' as
    # its uuid and shows one derived from its row id and the file's salt
    # (`zepkit.local.ids.row_uuid`). `id_marks` keeps the last id each graph gave out of each
    # kind, so no id, nor so its uuid, is given twice.
    "CREATE TABLE settings (key TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID",
    "INSERT INTO settings (key, value) VALUES ('uuid_salt', randomblob(16))",
    """CREATE TABLE id_marks (
        graph INTEGER NOT NULL,
        kind TEXT NOT NULL,
        last INTEGER NOT NULL,
        PRIMARY KEY (graph, kind)
    ) WITHOUT ROWID""",
    *(
        f"INSERT INTO id_marks (graph, kind, last) "
        f"SELECT id >> {GRAPH_BITS}, '{table}', max(id) FROM {table} GROUP BY 1"
        for table in ("episodes", "statements", "entities")
    ),
    """CREATE VIEW message_rows AS
        SELECT m.id, m.thread, m.role, m.name, coalesce(e.content, m.content) AS content,
            coalesce(e.created_at, m.created_at) AS created_at,
            CASE WHEN e.id IS NULL THEN m.metadata ELSE e.metadata END AS metadata
        FROM messages AS m LEFT JOIN episodes AS e ON e.message = m.id""",
    "ALTER TABLE episodes ADD COLUMN stored_at TEXT",
    "ALTER TABLE statements ADD COLUMN span_start INTEGER",
    "ALTER TABLE statements ADD COLUMN span_chars INTEGER",
    f"""CREATE VIEW statement_rows AS
        SELECT s.id, s.uuid, s.graph, s.episode, {_statement_text("s", "e.content")} AS text,
            s.speaker, CASE WHEN s.valid_at = '' THEN e.created_at ELSE s.valid_at END AS valid_at,
            CASE WHEN s.created_at = '' THEN e.stored_at ELSE s.created_at END AS created_at,
            s.profile, s.topics, s.invalid_at, s.ended_by, s.origin
        FROM statements AS s JOIN episodes AS e ON e.id = s.episode""",
    # The index reads statements' texts from `statement_rows` (once rebuilt, a one-off pass
    # over the statements), and its triggers give it a span's text. A statement's episode is
    # written before it and deleted after it, so the text removed is the text given.
    "DROP TRIGGER statements_fts_insert",
    "DROP TRIGGER statements_fts_delete",
    "DROP TABLE statements_fts",
    "CREATE VIRTUAL TABLE statements_fts USING fts5(text, content='statement_rows', "
    f"content_rowid='id', tokenize='{TOKENIZER}')",
    "INSERT INTO statements_fts (statements_fts) VALUES ('rebuild')",
    f"""CREATE TRIGGER statements_fts_insert AFTER INSERT ON statements BEGIN
        INSERT INTO statements_fts (rowid, text)
        VALUES (new.id, {_statement_text("new", _said_in("new"))});
    END""",
    f"""CREATE TRIGGER statements_fts_delete AFTER DELETE ON statements BEGIN
        INSERT INTO statements_fts (statements_fts, rowid, text)
        VALUES ('delete', old.id, {_statement_text("old", _said_in("old"))});
    END""",
)


_V8 = (
    # The profile statements with a single-valued subject, by graph: a newer one on the same
    # subject reads only these (`supersede`), not every profile statement of the user.
    "CREATE INDEX IF NOT EXISTS statements_topics ON statements (graph, topics) "
    "WHERE topics IS NOT NULL AND profile IS NOT NULL",
)


def _statement_states(conn: sqlite3.Connection) -> None:
    """Each profile statement's kinds of state (`outcomes.states_column`), read once from its
    text: news of an outcome then reads only the statements in a state."""
    from zepkit.local.outcomes import states_column

    conn.execute("ALTER TABLE statements ADD COLUMN states TEXT")
    rows = conn.execute("SELECT id, text FROM statement_rows WHERE profile IS NOT NULL")
    conn.executemany(
        "UPDATE statements SET states = ? WHERE id = ?",
        [(states, key) for key, text in rows if (states := states_column(text)) is not None],
    )


_V9: tuple[Step, ...] = (
    # A column no read-only path reads (`WRITE_ONLY_STEPS`): only a write's outcome news does.
    _statement_states,
    "CREATE INDEX statements_states ON statements (graph) WHERE states IS NOT NULL",
)


def _states_read_again(conn: sqlite3.Connection) -> None:
    """Each profile statement's kinds of state read again by rules that know more kinds (a
    thing broken, ended by its repair; a trip, by the return; an illness, by being well again;
    a stay away, by being home again; renting, by a home bought): a state said before the
    upgrade ends by news after it. Only the statements whose reading changes are written."""
    from zepkit.local.outcomes import states_column

    rows = conn.execute(
        "SELECT r.id, r.text, s.states FROM statement_rows AS r JOIN statements AS s "
        "ON s.id = r.id WHERE r.profile IS NOT NULL"
    )
    conn.executemany(
        "UPDATE statements SET states = ? WHERE id = ?",
        [(now, key) for key, text, was in rows if (now := states_column(text)) != was],
    )


_V10: tuple[Step, ...] = (
    # The states join the index, so news seeks the statements in exactly its own state ("|a
    # trip|") instead of reading every statement in some state (a user may be in thousands of
    # other kinds); the few in more than one state have an index of their own, read whole.
    "DROP INDEX statements_states",
    _states_read_again,
    "CREATE INDEX statements_states ON statements (graph, states) WHERE states IS NOT NULL",
    "CREATE INDEX statements_states_many ON statements (graph) WHERE states GLOB '|*|*|*'",
)


_V11: tuple[Step, ...] = (
    # The rules know an illness that passes (ended by being well again) and a stay away from
    # home (ended by being home again): the states once more.
    _states_read_again,
)


def _instruction_topics(conn: sqlite3.Connection) -> None:
    """Each profile statement's subjects of a standing instruction (the answers' language,
    length, units, ...) and favourites named after the thing ("Pizza is my favourite food"),
    added to its topics: an instruction given before the upgrade ends by a newer one after it.
    Only the statements whose topics grow are written."""
    from zepkit.local.profile import added_topics

    _topics_added(conn, added_topics)


def _topics_added(
    conn: sqlite3.Connection,
    added: Callable[[str], tuple[str, ...]],
    holding: Sequence[str] = (),
) -> None:
    """Add to each profile statement's topics those `added` reads in its sentence that it does
    not hold (topics are only added: an answer's subject came from its question, which the
    sentence does not hold); only statements holding one of the words `holding` (any, if none)
    are read, and only those whose topics grow are written."""
    from zepkit.local.retrieval import unprefixed

    holds_one = " OR ".join(["r.text LIKE ?"] * len(holding))
    rows = conn.execute(
        "SELECT r.id, r.text, r.speaker, s.topics FROM statement_rows AS r JOIN statements AS s "
        "ON s.id = r.id WHERE r.profile IS NOT NULL" + (f" AND ({holds_one})" if holding else ""),
        [f"%{word}%" for word in holding],
    )
    changed = []
    for key, text, speaker, was in rows:
        held = was.split() if was else []
        more = [t for t in added(unprefixed(text, speaker)) if t not in held]
        if more:
            changed.append((f" {' '.join([*held, *more])} ", key))
    conn.executemany("UPDATE statements SET topics = ? WHERE id = ?", changed)


_V12: tuple[Step, ...] = (
    # The rules know renting (ended by a home bought), working from home (by a return to the
    # office), studies at a university or college however named, studying a subject (by
    # qualifying in it) and an event ahead (by being held): the states once more. And the
    # subjects of standing instructions.
    _states_read_again,
    _instruction_topics,
)


_V13: tuple[Step, ...] = (
    # The rules know a wedding ahead (ended by getting married), not driving (by passing the
    # driving test), injuries told without "I" or of the part (by the part healed) and a year
    # at college (by being done with it): the states once more.
    _states_read_again,
)


_V14: tuple[Step, ...] = (
    # The rules know the life now of someone close (ended by their death, a partner's also by a
    # breakup): the states once more.
    _states_read_again,
)


def _device_topics(conn: sqlite3.Connection) -> None:
    """Each profile statement's phone or laptop subject, added to its topics: a phone told
    before the upgrade ends by a newer one after it. Only statements holding a device's word are
    read."""
    from zepkit.local.profile import DEVICE_WORDS, device_topics

    _topics_added(conn, device_topics, DEVICE_WORDS)


_V15: tuple[Step, ...] = (
    # The rules know a phone and a laptop as single-valued subjects: the topics they add.
    _device_topics,
)


def _own_entities(conn: sqlite3.Connection) -> None:
    """Mark each entity a profile statement of its user gives as their family member or pet
    (`kin.own_names`): the user's later news of them by name joins their profile."""
    from zepkit.local.kin import own_names
    from zepkit.local.retrieval import unprefixed

    conn.execute("ALTER TABLE entities ADD COLUMN own INTEGER")
    rows = conn.execute(
        "SELECT r.id, r.text, r.speaker, e.id, e.name FROM statement_rows AS r "
        "JOIN mentions AS m ON m.statement = r.id JOIN entities AS e ON e.id = m.entity "
        "WHERE r.profile IS NOT NULL ORDER BY r.id"
    )
    named: dict[int, tuple[str, dict[str, int]]] = {}
    for statement, text, speaker, entity, name in rows:
        named.setdefault(statement, (unprefixed(text, speaker), {}))[1][name] = entity
    own = [
        (entity,)
        for text, entities in named.values()
        for name in own_names(text, list(entities))
        for entity in (entities[name],)
    ]
    conn.executemany("UPDATE entities SET own = 1 WHERE id = ?", own)


_V16: tuple[Step, ...] = (
    # The user's own people and pets, by name: news of them told by name joins the profile.
    _own_entities,
)


def _heed_topics(conn: sqlite3.Connection) -> None:
    """Mark each profile statement of an allergy or condition to heed (`profile.must_heed`)
    among its topics: every block then carries the newest, told before the upgrade or after.
    Only statements holding one of its words are read."""
    from zepkit.local.profile import HEED_TOPIC, HEED_WORDS, must_heed

    _topics_added(conn, lambda text: (HEED_TOPIC,) if must_heed(text) else (), HEED_WORDS)


_V17: tuple[Step, ...] = (
    # The allergies and conditions every block heeds, marked among the topics.
    _heed_topics,
)


def _schedule_topics(conn: sqlite3.Connection) -> None:
    """Each profile statement's schedule (the hours or shifts the user works), added to its
    topics: a message asking when to sleep or train then carries it, and a newer schedule ends
    it. Only statements holding one of its words are read."""
    from zepkit.local.profile import SCHEDULE_WORDS, schedule_topics

    _topics_added(conn, schedule_topics, SCHEDULE_WORDS)


def _standing_marks(conn: sqlite3.Connection) -> None:
    """Mark each profile statement of a standing instruction on no subject the rules name
    (`profile.asked_to_keep`) among its topics: every block then carries the newest. Only
    statements holding one of its words are read."""
    from zepkit.local.profile import STANDING_WORDS, standing_marks

    _topics_added(conn, standing_marks, STANDING_WORDS)


def _limit_marks(conn: sqlite3.Connection) -> None:
    """Mark each profile statement of a limit that plans of outings, travel or exercise must
    heed (`profile.limits_plans`) among its topics (read again at schema 19 for the household's).
    Only statements holding one of its words are read."""
    from zepkit.local.profile import LIMIT_MARK, LIMIT_WORDS, limits_plans

    _topics_added(conn, lambda text: (LIMIT_MARK,) if limits_plans(text) else (), LIMIT_WORDS)


_V18: tuple[Step, ...] = (
    # The rules know the hours the user works as a single-valued subject: the topic they add.
    _schedule_topics,
    # And standing instructions on no subject they name, and the limits plans must heed:
    # marked among the topics.
    _standing_marks,
    _limit_marks,
)


def _thing_topics(conn: sqlite3.Connection) -> None:
    """Each profile statement's car, camera, kitchen, the languages of the work, phone, partner
    or job told in a form the rules read since (`profile.THING_TOPICS`), added to its topics: a
    drive then carries the car, a recipe what the kitchen lacks. Only statements holding one of
    their words are read."""
    from zepkit.local.profile import THING_WORDS, thing_topics

    _topics_added(conn, thing_topics, THING_WORDS)


_V19: tuple[Step, ...] = (
    # The rules know a camera, what the kitchen lacks and the languages of the user's work as
    # single-valued subjects, and read a car, a phone, a partner and a job in more forms: the
    # topics they add. And the limits of the household's children, partner and parents.
    _thing_topics,
    _limit_marks,
)


MIGRATIONS: Sequence[Sequence[Step]] = (
    _V1,
    _V2,
    _V3,
    _V4,
    _V5,
    _V6,
    _V7,
    _V8,
    _V9,
    _V10,
    _V11,
    _V12,
    _V13,
    _V14,
    _V15,
    _V16,
    _V17,
    _V18,
    _V19,
)
"""Step i takes the schema from version i to i + 1; append steps, never edit a shipped one."""

SCHEMA_VERSION = len(MIGRATIONS)
READABLE_FROM = 7
"""The oldest version a read-only open serves as it is: the steps after it only add or remake
indexes, which make some writes faster and which reads do without, or are `WRITE_ONLY_STEPS`."""
WRITE_ONLY_STEPS: tuple[Step, ...] = (
    _statement_states,
    _states_read_again,
    _instruction_topics,
    _device_topics,
    _own_entities,
    _heed_topics,
    _schedule_topics,
    _standing_marks,
    _limit_marks,
    _thing_topics,
)
"""Steps after `READABLE_FROM` that add what only writes read, or what reads do without when a
file lacks it (the marks of the user's own people, `retrieval.kin_holders`, and of what to
heed, `retrieval.heeded`); a read-only open never runs them."""


def schema_version(conn: sqlite3.Connection) -> int:
    """The version recorded in the database file (0 for a new file)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection) -> None:
    """Bring the file to `SCHEMA_VERSION`; refuse a file written by a newer zepkit."""
    # The version is read again inside an IMMEDIATE transaction: when two processes open the
    # same new file at once, one creates the schema and the other then finds it done.
    if _checked(schema_version(conn)) == SCHEMA_VERSION:
        return
    with write_transaction(conn):
        version = _checked(schema_version(conn))
        for step in MIGRATIONS[version:]:
            for statement in step:
                if isinstance(statement, str):
                    conn.execute(statement)
                else:
                    statement(conn)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _checked(version: int) -> int:
    if version > SCHEMA_VERSION:
        raise ConfigurationError(
            f"this database has schema version {version}, newer than the {SCHEMA_VERSION} this "
            "zepkit understands; upgrade zepkit to open it"
        )
    return version
