"""The base of every event payload model: typed fields that also read as a mapping."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Readable(BaseModel):
    """Reads as a mapping too (`data["topic"]`, `data.get(...)`, `**data`), so callers that index
    event data by key keep working; new code uses the attributes."""

    def items(self) -> list[tuple[str, Any]]:
        return [(key, getattr(self, key)) for key in self.keys()]

    def keys(self) -> list[str]:
        return [*type(self).model_fields, *(self.__pydantic_extra__ or {})]

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.keys() else default

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dict):  # equal to the same data as a plain dict
            return self.model_dump(mode="json") == other
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dict it stands in for


class Payload(Readable):
    """Base of every payload model."""

    model_config = ConfigDict(extra="allow")
