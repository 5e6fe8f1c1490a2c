"""The SQLite checkpointer, storing each channel's value once per version (as LangGraph's Postgres saver does).

LangGraph's SqliteSaver serialises the whole state into every checkpoint: every source, note and
draft again at every step, so each step late in a run writes more than one early in it. Here a
checkpoint row keeps only the channel versions, and a channel's value goes to `checkpoint_blobs`
once per version: a step serialises what it changed (the `new_versions` LangGraph passes to
`put`). Reading joins them back, so a checkpoint reads as SqliteSaver's did, and checkpoints
SqliteSaver wrote before (values inline) still read as they were.

A thread may have been started by SqliteSaver (a run interrupted before an upgrade): its unchanged
channels' values are inline in an old row, not in blobs. So the first checkpoint a saver writes
for a thread stores every channel's value (at most once per version), and later ones what changed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.sqlite import SqliteSaver

# A channel with a version but no value (cleared): recorded, so reading it back finds no value.
_EMPTY = "empty"
# One SELECT per checkpoint names at most this many (channel, version) pairs, far below SQLite's
# 32,766 bound variables; a graph has a few dozen channels.
_PAIRS_PER_QUERY = 200


class BlobSqliteSaver(SqliteSaver):
    """SqliteSaver with channel values stored per (channel, version), written when they change."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # (thread, namespace) whose every value this saver has stored; a saver serves one run's execution.
        self._snapshotted: set[tuple[str, str]] = set()

    def setup(self) -> None:
        if self.is_setup:
            return
        super().setup()
        self.conn.execute(
            """
            CREATE TABLE IF NOT EXISTS checkpoint_blobs (
                thread_id TEXT NOT NULL,
                checkpoint_ns TEXT NOT NULL DEFAULT '',
                channel TEXT NOT NULL,
                version TEXT NOT NULL,
                type TEXT NOT NULL,
                blob BLOB,
                PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
            )
            """
        )
        self.conn.commit()

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        thread_id = str(config["configurable"]["thread_id"])
        checkpoint_ns = config["configurable"]["checkpoint_ns"]
        values = checkpoint["channel_values"]
        with self.lock:  # puts come from LangGraph's background threads
            first = (thread_id, checkpoint_ns) not in self._snapshotted
            self._snapshotted.add((thread_id, checkpoint_ns))
        changed = checkpoint["channel_versions"] if first else new_versions
        blobs = [
            (thread_id, checkpoint_ns, channel, str(version), *self._dump(values, channel))
            for channel, version in changed.items()
        ]
        stored = {**checkpoint, "channel_values": {}}
        type_, serialized = self.serde.dumps_typed(stored)
        serialized_metadata = json.dumps(get_checkpoint_metadata(config, metadata), ensure_ascii=False).encode(
            "utf-8", "ignore"
        )
        with self.cursor() as cur:  # one transaction: the blobs and the row that names them
            cur.executemany(
                "INSERT OR IGNORE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                blobs,
            )
            cur.execute(
                "INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,"
                " type, checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    thread_id,
                    checkpoint_ns,
                    checkpoint["id"],
                    config["configurable"].get("checkpoint_id"),
                    type_,
                    serialized,
                    serialized_metadata,
                ),
            )
        return {
            "configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint["id"]}
        }

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        found = super().get_tuple(config)
        return self._with_values(found) if found is not None else None

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        # Collected first: SqliteSaver's list holds the saver's lock while it yields.
        found = list(super().list(config, filter=filter, before=before, limit=limit))
        for item in found:
            yield self._with_values(item)

    def delete_thread(self, thread_id: str) -> None:
        super().delete_thread(thread_id)
        with self.cursor() as cur:
            cur.execute("DELETE FROM checkpoint_blobs WHERE thread_id = ?", (str(thread_id),))

    def get_delta_channel_history(
        self, *, config: RunnableConfig, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        # SqliteSaver's fast path reads values inline in the checkpoint rows; the base class's walk
        # goes through get_tuple, which joins the blobs back.
        return BaseCheckpointSaver.get_delta_channel_history(self, config=config, channels=channels)

    # --- helpers ---------------------------------------------------------------------------------
    def _dump(self, values: dict[str, Any], channel: str) -> tuple[str, bytes | None]:
        if channel not in values:
            return _EMPTY, None
        return self.serde.dumps_typed(values[channel])

    def _with_values(self, found: CheckpointTuple) -> CheckpointTuple:
        checkpoint = found.checkpoint
        if checkpoint["channel_values"] or not checkpoint["channel_versions"]:
            return found  # written by SqliteSaver (values inline), or nothing to join
        configurable = found.config["configurable"]
        values = self._load(
            str(configurable["thread_id"]), configurable.get("checkpoint_ns", ""), checkpoint["channel_versions"]
        )
        return found._replace(checkpoint={**checkpoint, "channel_values": values})

    def _load(self, thread_id: str, checkpoint_ns: str, versions: ChannelVersions) -> dict[str, Any]:
        pairs = [(channel, str(version)) for channel, version in versions.items()]
        rows: list[tuple[str, str, bytes | None]] = []
        with self.cursor(transaction=False) as cur:
            for start in range(0, len(pairs), _PAIRS_PER_QUERY):
                chunk = pairs[start : start + _PAIRS_PER_QUERY]
                wanted = ", ".join("(?, ?)" for _ in chunk)
                cur.execute(
                    "SELECT channel, type, blob FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ?"
                    f" AND (channel, version) IN (VALUES {wanted})",
                    (thread_id, checkpoint_ns, *(item for pair in chunk for item in pair)),
                )
                rows.extend(cur.fetchall())
        loads = self.serde.loads_typed
        return {channel: loads((type_, blob or b"")) for channel, type_, blob in rows if type_ != _EMPTY}
