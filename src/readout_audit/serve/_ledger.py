"""The SQLite ledger of served-model requests: one row per call key, every state change committed.

States: planned → reserved (cost reserved) → sent (body being written) → completed | failed |
unknown; a completed answer its reader finds impossible becomes failed. A kill at any moment
leaves each row in the last committed state; the runner never replays a ``sent`` or ``unknown``
row by itself.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import check_regular
from readout_audit.serve._call import CostCap, HttpCall
from readout_audit.serve._cost import Spend, over_cap

LEDGER_FILE = "requests.sqlite"
"""The ledger's file name inside a run directory."""

State = Literal["planned", "reserved", "sent", "completed", "failed", "unknown"]
STATES: tuple[State, ...] = ("planned", "reserved", "sent", "completed", "failed", "unknown")

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE calls (
            key TEXT PRIMARY KEY,
            state TEXT NOT NULL CHECK (state IN
                ('planned', 'reserved', 'sent', 'completed', 'failed', 'unknown')),
            path TEXT NOT NULL,
            body BLOB NOT NULL,
            endpoint TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            reserved_tokens INTEGER NOT NULL DEFAULT 0,
            reserved_usd REAL NOT NULL DEFAULT 0,
            released_tokens INTEGER NOT NULL DEFAULT 0,
            released_usd REAL NOT NULL DEFAULT 0,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            used_tokens INTEGER,
            used_usd REAL,
            response BLOB,
            error TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            started_at REAL,
            sent_at REAL,
            settled_at REAL
        )""",
        "CREATE INDEX calls_state ON calls (state)",
    ),
    ("ALTER TABLE calls ADD COLUMN tag TEXT NOT NULL DEFAULT ''",),
)
"""Append-only schema migrations; ``PRAGMA user_version`` counts those applied."""

_SPEND = """
    SELECT COALESCE(SUM(released_tokens + CASE
               WHEN state = 'completed' THEN used_tokens
               WHEN state IN ('reserved', 'sent', 'unknown') THEN reserved_tokens ELSE 0 END), 0),
           COALESCE(SUM(released_usd + CASE
               WHEN state = 'completed' THEN used_usd
               WHEN state IN ('reserved', 'sent', 'unknown') THEN reserved_usd ELSE 0 END), 0.0)
    FROM calls WHERE key != ?
"""


@dataclass(frozen=True)
class LedgerEntry:
    """One call's row."""

    key: str
    state: State
    path: str
    body: bytes
    tag: str
    """The call's tag (``HttpCall.tag``, part of its key; empty for an untagged call)."""
    endpoint: str | None
    """The ``base_url`` of the last attempt."""
    attempts: int
    """Attempts over every run of the ledger."""
    reserved: Spend
    """The call's reservation (counted in the spend while reserved, sent or unknown)."""
    released: Spend
    """Reservations of sends released from unknown: the server may have charged them."""
    used: Spend | None
    """What the completed call was charged (its reported usage, else its reservation)."""
    prompt_tokens: int | None
    completion_tokens: int | None
    """``usage`` as the server reported it (None when it did not)."""
    error: str | None
    response: dict[str, Any] | None
    created_at: float
    updated_at: float
    started_at: float | None
    """When the last attempt took its start (after the pacing bucket), Unix seconds."""
    sent_at: float | None
    """When the last attempt's body began to be written."""
    settled_at: float | None

    @property
    def over_bound(self) -> bool:
        """The server counted more tokens than the call's bounds reserved."""
        return self.used is not None and self.used.tokens > self.reserved.tokens


def _entry(row: sqlite3.Row) -> LedgerEntry:
    used = None if row["used_tokens"] is None else Spend(row["used_tokens"], row["used_usd"])
    return LedgerEntry(
        key=row["key"],
        state=row["state"],
        path=row["path"],
        body=bytes(row["body"]),
        tag=row["tag"],
        endpoint=row["endpoint"],
        attempts=row["attempts"],
        reserved=Spend(row["reserved_tokens"], row["reserved_usd"]),
        released=Spend(row["released_tokens"], row["released_usd"]),
        used=used,
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        error=row["error"],
        response=None if row["response"] is None else json.loads(row["response"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        started_at=row["started_at"],
        sent_at=row["sent_at"],
        settled_at=row["settled_at"],
    )


def ledger_of(run_dir: Path) -> Path:
    """The ledger file of a run directory, or an ``InputError`` when the run sent no requests."""
    path = Path(run_dir) / LEDGER_FILE
    if not os.path.lexists(path):
        raise InputError(f"holds no {LEDGER_FILE}: the run sent no requests", source=str(run_dir))
    return path


class Ledger:
    """A SQLite file (WAL) with one row per call key; safe to share between threads.

    One process runs calls through a ledger at a time (a run directory's lock sees to that);
    others may read it meanwhile.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise RunDirectoryError(f"{self.path.parent} is not a directory: no ledger there")
        if os.path.lexists(self.path):
            check_regular(self.path, limit=None, what="ledger")
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA busy_timeout = 10000")
            self._db.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode skips the fsync at each commit: a committed row is in the WAL
            # file (the kernel's page cache) when COMMIT returns, so it survives the process
            # being killed, kill -9 included; only a power loss or kernel crash may drop the
            # last commits.
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as error:
            self._db.close()
            raise RunDirectoryError(
                f"{self.path} cannot be read as a ledger ({error}); it is not the SQLite "
                "database readout-audit writes"
            ) from None

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise RunDirectoryError(
                f"{self.path} was written by a newer readout-audit (ledger schema {version}); "
                "upgrade to read it"
            )
        for number, statements in enumerate(MIGRATIONS[version:], start=version + 1):
            with self._write() as db:
                if db.execute("PRAGMA user_version").fetchone()[0] >= number:
                    continue  # another process migrated it meanwhile
                for statement in statements:
                    db.execute(statement)
                db.execute(f"PRAGMA user_version = {number}")

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction, serialised with every other use of the connection."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _update(self, key: str, **values: Any) -> None:
        now = time.time()
        assignments = ", ".join(f"{name} = ?" for name in values)
        with self._write() as db:
            db.execute(
                f"UPDATE calls SET {assignments}, updated_at = ? WHERE key = ?",
                (*values.values(), now, key),
            )

    def entry(self, key: str) -> LedgerEntry | None:
        """The row of ``key``, or None when the ledger has never seen it."""
        with self._lock:
            row = self._db.execute("SELECT * FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else _entry(row)

    def entries(self, *states: State) -> list[LedgerEntry]:
        """Rows in any of ``states`` (every row when none is given), oldest first."""
        wanted = states or STATES
        marks = ", ".join("?" for _ in wanted)
        with self._lock:
            rows = self._db.execute(
                f"SELECT * FROM calls WHERE state IN ({marks}) ORDER BY created_at, key", wanted
            ).fetchall()
        return [_entry(row) for row in rows]

    def unknown(self) -> list[LedgerEntry]:
        """Calls sent once with no known outcome; a rerun leaves them alone until released."""
        return self.entries("unknown")

    def counts(self) -> dict[str, int]:
        """Rows per state (every state, zeros included)."""
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM calls GROUP BY state").fetchall()
        found = {state: count for state, count in rows}
        return {state: found.get(state, 0) for state in STATES}

    def spend(self) -> Spend:
        """Tokens and dollars charged so far, as the cost cap counts them.

        Completed calls' usage, plus the reservations of calls reserved, sent or unknown (an
        unknown call may have been charged), plus those of unknown sends since released.
        """
        with self._lock:
            tokens, usd = self._db.execute(_SPEND, ("",)).fetchone()
        return Spend(int(tokens), float(usd))

    def release_unknown(self, keys: Sequence[str] | None = None) -> int:
        """Unknown → planned, so that a rerun sends them again; returns how many were released.

        Their reservations stay in the spend (the first send may have been charged).
        """
        release = """UPDATE calls SET state = 'planned',
            released_tokens = released_tokens + reserved_tokens,
            released_usd = released_usd + reserved_usd,
            reserved_tokens = 0, reserved_usd = 0, updated_at = ?
            WHERE state = 'unknown'"""
        now = time.time()
        with self._write() as db:
            if keys is None:
                return db.execute(release, (now,)).rowcount
            return sum(db.execute(release + " AND key = ?", (now, key)).rowcount for key in keys)

    def plan(self, calls: Sequence[HttpCall]) -> dict[str, LedgerEntry]:
        """Add unseen calls as planned; every call's row by key."""
        now = time.time()
        with self._write() as db:
            db.executemany(
                "INSERT OR IGNORE INTO calls (key, state, path, body, tag, created_at, updated_at) "
                "VALUES (?, 'planned', ?, ?, ?, ?, ?)",
                [(call.key, call.path, call.body_bytes, call.tag, now, now) for call in calls],
            )
        entries = (self.entry(call.key) for call in calls)
        return {entry.key: entry for entry in entries if entry is not None}

    def reserve(self, key: str, amount: Spend, cap: CostCap | None) -> str | None:
        """Reserve ``amount`` for ``key`` if the cap allows it (atomically); else why not."""
        with self._write() as db:
            tokens, usd = db.execute(_SPEND, (key,)).fetchone()
            refused = over_cap(cap, Spend(int(tokens), float(usd)), amount)
            if refused is None:
                db.execute(
                    "UPDATE calls SET state = 'reserved', reserved_tokens = ?, reserved_usd = ?, "
                    "updated_at = ? WHERE key = ?",
                    (amount.tokens, amount.usd, time.time(), key),
                )
            else:  # a reservation left by an earlier run is dropped: the call stays planned
                db.execute(
                    "UPDATE calls SET state = 'planned', reserved_tokens = 0, reserved_usd = 0, "
                    "updated_at = ? WHERE key = ? AND state = 'reserved'",
                    (time.time(), key),
                )
        return refused

    def start(self, key: str, endpoint: str) -> None:
        """A new attempt of a reserved call on ``endpoint`` takes its start."""
        now = time.time()
        with self._write() as db:
            db.execute(
                "UPDATE calls SET attempts = attempts + 1, endpoint = ?, started_at = ?, "
                "updated_at = ? WHERE key = ?",
                (endpoint, now, now, key),
            )

    def sent(self, key: str) -> bool:
        """The body is about to be written: from now on the server may process the call.

        False, and nothing changes, when the call is no longer reserved (its run stopped and
        dropped the reservation): the body must not be written then.
        """
        now = time.time()
        with self._write() as db:
            return bool(
                db.execute(
                    "UPDATE calls SET state = 'sent', sent_at = ?, updated_at = ? "
                    "WHERE key = ? AND state = 'reserved'",
                    (now, now, key),
                ).rowcount
            )

    def unreserve(self, keys: Sequence[str]) -> None:
        """Reserved → planned, reservation dropped: a stopped run never leaves a call reserved."""
        now = time.time()
        with self._write() as db:
            db.executemany(
                "UPDATE calls SET state = 'planned', reserved_tokens = 0, reserved_usd = 0, "
                "updated_at = ? WHERE key = ? AND state = 'reserved'",
                [(now, key) for key in keys],
            )

    def complete(
        self, key: str, response: bytes, reported: tuple[int, int] | None, charged: Spend
    ) -> None:
        """A complete 2xx JSON answer: the reservation is replaced by ``charged``."""
        prompt, completion = reported or (None, None)
        self._update(
            key,
            state="completed",
            response=response,
            prompt_tokens=prompt,
            completion_tokens=completion,
            used_tokens=charged.tokens,
            used_usd=charged.usd,
            error=None,
            settled_at=time.time(),
        )

    def retry(self, key: str, error: str) -> None:
        """A definite refusal worth another attempt: back to reserved (reservation kept)."""
        self._update(key, state="reserved", error=error)

    def refuse(self, key: str, error: str) -> None:
        """A completed answer found impossible when read: failed, so a rerun sends it again.

        Its answer stays for inspection, and what it was charged stays in the spend.
        """
        with self._write() as db:
            db.execute(
                "UPDATE calls SET state = 'failed', error = ?, "
                "released_tokens = released_tokens + COALESCE(used_tokens, 0), "
                "released_usd = released_usd + COALESCE(used_usd, 0), "
                "used_tokens = NULL, used_usd = NULL, "
                "updated_at = ? WHERE key = ? AND state = 'completed'",
                (error, time.time(), key),
            )

    def fail(self, key: str, error: str) -> None:
        """A definite refusal with no attempt left (or none worth making)."""
        self._update(key, state="failed", error=error, settled_at=time.time())

    def lose(self, key: str, error: str) -> None:
        """Sent, with no known outcome: unknown until the user releases it."""
        self._update(key, state="unknown", error=error, settled_at=time.time())
