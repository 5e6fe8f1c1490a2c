"""A bounded JSON decoder for run bundles: a hostile file is refused before it can exhaust memory.

`json.loads` builds whatever the text describes: 175 KB of gzip holding `[{}, {}, ...]` becomes tens
of millions of dicts (gigabytes). Here the gzip stream is inflated in chunks into ijson's C parser
(yajl) and the document is built token by token, counting every value and the nesting depth, so the
parse stops at a stated limit with the limit named. Peak memory is bounded by MAX_VALUES values plus
MAX_STRING_CHARS per string (bench/hostile_inputs.py measures the worst case).
"""

from __future__ import annotations

import io
import zlib
from typing import TYPE_CHECKING, Any

import ijson  # type: ignore[import-untyped]  # ijson ships no type information

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

MAX_BUNDLE_BYTES = 200 * 1024 * 1024  # uncompressed
MAX_VALUES = 1_000_000  # every object, array, string, number, true/false/null counts as one
MAX_DEPTH = 64
MAX_STRING_CHARS = 20 * 1024 * 1024  # one page text; the byte cap bounds their sum
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 256 * 1024


class BundleDecodeError(ValueError):
    """The bytes are not JSON this decoder accepts; the message names the limit or the fault."""


class _Inflater(io.RawIOBase):
    """A read-only stream over gzip (or plain) bytes that refuses to inflate past a byte cap."""

    def __init__(self, data: bytes, cap: int) -> None:
        self._data, self._pos, self._cap, self._out = data, 0, cap, 0
        self._gzip = data[:2] == _GZIP_MAGIC
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if self._gzip else None
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer, /) -> int:
        view = memoryview(buffer)  # BufferedReader passes a writable byte memoryview
        while not self._pending and (self._pos < len(self._data) or (self._z and self._z.unconsumed_tail)):
            if self._z is None:
                self._pending, self._pos = self._data[self._pos : self._pos + _CHUNK], self._pos + _CHUNK
                break
            source = self._z.unconsumed_tail or self._data[self._pos : self._pos + _CHUNK]
            if not self._z.unconsumed_tail:
                self._pos += _CHUNK
            try:
                self._pending = self._z.decompress(source, _CHUNK)
            except zlib.error as exc:
                raise BundleDecodeError(f"corrupt gzip data ({exc})") from None
            if self._z.eof:
                break
        chunk, self._pending = self._pending[: len(view)], self._pending[len(view) :]
        self._out += len(chunk)
        if self._out > self._cap:
            raise BundleDecodeError(f"larger than {self._cap // (1024 * 1024)} MB uncompressed")
        view[: len(chunk)] = chunk
        return len(chunk)


def decode_bundle_json(
    data: bytes,
    *,
    max_bytes: int = MAX_BUNDLE_BYTES,
    max_values: int = MAX_VALUES,
    max_depth: int = MAX_DEPTH,
    max_string: int = MAX_STRING_CHARS,
) -> Any:
    """The JSON document in `data` (gzip or plain), built within the limits; raises
    BundleDecodeError naming what is wrong."""
    stack: list[Any] = []
    keys: list[str | None] = []
    root: list[Any] = []
    values = 0

    def add(value: Any) -> None:
        if not stack:
            root.append(value)
        elif isinstance(stack[-1], list):
            stack[-1].append(value)
        else:
            stack[-1][keys[-1]] = value

    stream = io.BufferedReader(_Inflater(data, max_bytes), buffer_size=_CHUNK)
    try:
        # A 1 MB read buffer: with the 64 KB default, yajl rebuilds a long string chunk by chunk (10x slower).
        for _prefix, event, value in ijson.parse(stream, use_float=True, buf_size=1 << 20):
            values += event != "map_key" and not event.startswith("end_")
            if values > max_values:
                raise BundleDecodeError(f"more than {max_values:,} JSON values")
            if event == "map_key":
                keys[-1] = value
            elif event in ("start_map", "start_array"):
                if len(stack) >= max_depth:
                    raise BundleDecodeError(f"nested deeper than {max_depth} levels")
                container: Any = {} if event == "start_map" else []
                add(container)
                stack.append(container)
                keys.append(None)
            elif event in ("end_map", "end_array"):
                stack.pop()
                keys.pop()
            else:
                if isinstance(value, str) and len(value) > max_string:
                    raise BundleDecodeError(f"a string longer than {max_string // (1024 * 1024)} MB")
                add(value)
    except BundleDecodeError:
        raise
    except UnicodeDecodeError:
        raise BundleDecodeError("the file is neither gzip nor JSON (not UTF-8 text)") from None
    except (ijson.JSONError, ValueError, OverflowError) as exc:
        first_line = (str(exc).strip().splitlines() or [""])[0]
        what = "the file is neither gzip nor JSON" + (" (gzip of something else)" if data[:2] == _GZIP_MAGIC else "")
        raise BundleDecodeError(f"{what} ({first_line[:120]})") from None
    if len(root) != 1:
        raise BundleDecodeError("the file is neither gzip nor JSON (empty)")
    return root[0]
