"""Writing an export or a bundle so that a write cut short (disk full, a kill, a file-size limit)
leaves the earlier file as it was: the bytes go to a temporary file in the same directory, are
flushed to disk, and only then replace the target in one rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """`path` holds `data`, or (on an OSError) what it held before; no temporary file is left."""
    path = Path(path)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o666 & ~_umask()
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:80]}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)  # mkstemp makes it 0600; keep what a plain write would have given
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _umask() -> int:
    """The process umask, read without changing it (os.umask sets it, racing other threads)."""
    with contextlib.suppress(OSError, ValueError, StopIteration), open("/proc/self/status", encoding="ascii") as status:
        return int(next(line for line in status if line.startswith("Umask:")).split()[1], 8)
    return 0o022
