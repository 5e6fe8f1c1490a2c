"""A throwaway PostgreSQL cluster from Debian's postgresql package, for the shared-runs lane.

initdb + pg_ctl under /usr/lib/postgresql/15/bin, in a temp dir, on a free loopback port, with its
unix socket in that dir too (never /var/run). As root (CI containers) the server must run as the
`postgres` user, so the cluster dir is handed to it. Trust auth: only loopback can reach it.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

PG_BIN = Path(os.environ.get("RESEARCH_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="research-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self._as_root = os.geteuid() == 0
        if self._as_root:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(PG_BIN / args[0]), *args[1:]]
        if self._as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.root)
        if proc.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")

    def start(self) -> Cluster:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8")
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.root}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            " -c shared_buffers=32MB"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        return self

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def new_database(self) -> str:
        """A fresh, empty database on this cluster; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url.rsplit("/", 1)[0] + f"/{name}"


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    if not (PG_BIN / "initdb").exists():
        message = f"PostgreSQL is not installed ({PG_BIN}); `make test` installs Debian's postgresql"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message + " (CI=true: the Postgres lane must run in CI)", pytrace=False)
        pytest.skip(message + " (skipped outside CI)")
    cluster = Cluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A fresh database per test (its own runs, events, leases, checkpoints)."""
    return pg_cluster.new_database()
