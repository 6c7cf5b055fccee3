"""A throwaway PostgreSQL server for the tests: ``initdb`` + ``pg_ctl`` in a temp folder, on 127.0.0.1.

Debian's ``postgresql`` package puts the server binaries in ``/usr/lib/postgresql/<major>/bin``
(not on PATH). ``initdb`` and ``pg_ctl`` refuse to run as root, so as root they run as the
``postgres`` user (``runuser``), in a folder that user owns. :func:`find_bin_dir` is None when no
server can be started at all; the ``postgres`` tests then skip with that reason.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

USER = "workbench"
PASSWORD = "s3cret-pw"  # a test password; tests check it never shows up in messages


def find_bin_dir() -> Path | None:
    """The folder with ``initdb`` and ``pg_ctl``: on PATH, or the newest Debian install."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return Path(on_path).parent
    root = Path("/usr/lib/postgresql")
    majors = sorted((p for p in root.glob("*/bin") if (p / "pg_ctl").exists()), key=lambda p: p.parent.name)
    return majors[-1] if majors else None


def why_unavailable() -> str | None:
    """None when a server can be started here, else the reason (the skip message)."""
    if find_bin_dir() is None:
        return "PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install -y postgresql"
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser: initdb refuses to run as root"
    if os.geteuid() == 0:
        try:
            import pwd

            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run the server as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """One running server. ``url`` connects as :data:`USER` to database ``db``."""

    folder: Path
    port: int
    bin_dir: Path
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.folder / "server.log"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, db: str = "workbench", *, password: str = PASSWORD, user: str = USER) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{db}"

    def _as_owner(self, *args: str) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *args]
        return list(args)

    def _ctl(self, *args: str, timeout: float = 60) -> None:
        cmd = self._as_owner(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), *args)
        subprocess.run(cmd, check=True, capture_output=True, timeout=timeout)

    def start(self) -> None:
        opts = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} -c fsync=off"
        )
        self._ctl("-w", "-o", opts, "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-w", "-m", mode, "stop")

    def create_database(self, name: str) -> str:
        """A new empty database owned by :data:`USER`; returns its URL."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" OWNER {USER}')
        return self.url(name)


def start_server(base: Path | None = None) -> PgServer:
    """initdb a fresh cluster in a temp folder and start it on a free 127.0.0.1 port."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        raise RuntimeError(why_unavailable())
    folder = Path(tempfile.mkdtemp(prefix="pgtest-", dir=base))
    server = PgServer(folder, free_port(), bin_dir)
    pwfile = folder / "pw"
    pwfile.write_text(PASSWORD)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
        shutil.chown(pwfile, "postgres", "postgres")
    cmd = server._as_owner(
        str(bin_dir / "initdb"),
        "-D",
        str(server.data),
        "-U",
        USER,
        f"--pwfile={pwfile}",
        "--auth=scram-sha-256",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    )
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    pwfile.unlink()
    server.start()
    deadline = time.monotonic() + 30
    import psycopg

    while True:
        try:
            with psycopg.connect(server.url("postgres"), connect_timeout=2):
                break
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    with psycopg.connect(server.url("postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE workbench OWNER {USER}")
    return server


def remove_server(server: PgServer) -> None:
    try:
        server.stop("immediate")
    except (subprocess.SubprocessError, OSError):
        pass
    shutil.rmtree(server.folder, ignore_errors=True)
