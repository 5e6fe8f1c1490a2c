"""The Postgres checkpoint savers, masking secrets in the channels they store without the serializer.

`langgraph-checkpoint-postgres` keeps plain str/int/float/bool channel values inline in the
checkpoint's JSONB row and sends only the others through the serializer. These savers hand it
checkpoints whose string channels are already masked (SecretMaskingSerializer.mask_inline_values),
so a key typed into a topic is no more readable in Postgres than in SQLite. Imported lazily: psycopg
is only needed with RESEARCH_DATABASE_URL.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver


def _masked(serde: Any, checkpoint: Checkpoint) -> Checkpoint:
    """Read off the serializer (checkpoints.py imports this module: no import back)."""
    mask_inline_values = getattr(serde, "mask_inline_values", None)
    return mask_inline_values(checkpoint) if mask_inline_values else checkpoint


class MaskingPostgresSaver(PostgresSaver):
    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return super().put(config, _masked(self.serde, checkpoint), metadata, new_versions)


class MaskingAsyncPostgresSaver(AsyncPostgresSaver):
    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await super().aput(config, _masked(self.serde, checkpoint), metadata, new_versions)
