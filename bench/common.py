"""Shared helpers of the load benchmarks (bench/run.py, bench/hall.py): a throwaway database, a
Redis database, daphne processes, HTTP with cookies and CSRF, websocket clients, percentiles.

Everything is bounded (a count and a time limit on every loop) and talks only to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import http.client as httpclient
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
BENCH_REDIS_DB = 5  # never 0; flushed at the start of every redis run
DEFAULT_PG_URL = "postgres://postgres@127.0.0.1:5432/postgres"
# socket_timeout: redis-py 8 reads with a 5 s socket timeout by default, shorter than or equal to
# channels_redis's 5 s BZPOPMIN, so an idle socket's consumer dies with "Timeout reading from
# 127.0.0.1:6379" (django/channels_redis#422). A longer timeout in the URL avoids it.
DEFAULT_REDIS_URL = f"redis://127.0.0.1:6379/{BENCH_REDIS_DB}?socket_timeout=30"


def with_socket_timeout(url: str, seconds: int = 30) -> str:
    """``url`` with ``socket_timeout`` in its query unless it has one (see DEFAULT_REDIS_URL)."""
    if "socket_timeout=" in url:
        return url
    return url + ("&" if "?" in url else "?") + f"socket_timeout={seconds}"


# --- numbers -------------------------------------------------------------------------------------


def percentile(samples: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of ``samples``; None when empty."""
    if not samples:
        return None
    s = sorted(samples)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return round(s[k], 2)


def summary(samples: list[float]) -> dict:
    return {"n": len(samples), "p50_ms": percentile(samples, 50), "p95_ms": percentile(samples, 95),
            "p99_ms": percentile(samples, 99), "max_ms": round(max(samples), 2) if samples else None}


# --- databases -----------------------------------------------------------------------------------


def with_dbname(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


class ThrowawayDatabase:
    """A SQLite file in a temporary folder, or a fresh PostgreSQL database (created, then dropped)
    on the server of ``admin_url``. ``tmp`` is also used as the servers' DATA_DIR."""

    def __init__(self, admin_url: str | None, prefix: str = "bench") -> None:
        self.tmp = tempfile.mkdtemp(prefix=f"{prefix}_")
        self.admin_url = admin_url
        self.pg_name: str | None = None
        if admin_url:
            import psycopg

            self.pg_name = f"{prefix}_{secrets.token_hex(4)}"
            with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f'CREATE DATABASE "{self.pg_name}"')
            self.url = with_dbname(admin_url, self.pg_name)
        else:
            # No DATABASE_URL at all: the embedded default (DATA_DIR/drive.sqlite3 with WAL,
            # BEGIN IMMEDIATE and a 20 s busy timeout). A sqlite:// DATABASE_URL gets none of
            # those options and fails with "database is locked" under concurrent writes.
            self.url = None

    def drop(self) -> None:
        if self.pg_name:
            import psycopg

            with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=10) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.pg_name}" WITH (FORCE)')
            self.pg_name = None
        shutil.rmtree(self.tmp, ignore_errors=True)


def flush_redis(url: str) -> None:
    import redis

    db = int(urlsplit(url).path.strip("/") or 0)
    if db == 0:
        raise SystemExit("refusing to flush Redis database 0: give the bench another database number")
    client = redis.Redis.from_url(url, socket_timeout=5)
    client.flushdb()
    client.close()


def redis_used_memory(url: str) -> int | None:
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=5)
        value = client.info("memory").get("used_memory")
        client.close()
        return value
    except Exception:
        return None


# --- servers ---------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def server_env(db_url: str | None, data_dir: str, redis_url: str | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")}
    if db_url:
        env["DATABASE_URL"] = db_url
    env.update({
        "DATA_DIR": data_dir, "DEBUG": "0", "LOG_LEVEL": "WARNING",
        "SECRET_KEY": "bench-" + "k" * 60, "ALLOWED_HOSTS": "127.0.0.1,localhost", "DJANGO_SETTINGS_MODULE": "bench.settings",
    })
    if redis_url:
        env["REDIS_URL"] = redis_url
    env.update(extra)
    return env


def asgi_app(env: dict[str, str]) -> str:
    """The benchmark's application (with its hooks) under its settings, else the server's own."""
    return "bench.asgi:application" if env.get("DJANGO_SETTINGS_MODULE") == "bench.settings" else "config.asgi:application"


class Servers:
    """``count`` daphne processes on free ports of 127.0.0.1; ``urls`` once started."""

    def __init__(self, count: int, env: dict[str, str], log_dir: str) -> None:
        self.procs: list[subprocess.Popen] = []
        self.urls: list[str] = []
        self.logs = []
        serve = [sys.executable, "-m", "config.server"]  # daphne as `make run` starts it
        app = asgi_app(env)
        for i in range(count):
            port = free_port()
            log = open(os.path.join(log_dir, f"daphne-{i}.log"), "w")
            self.logs.append(log)
            self.procs.append(subprocess.Popen(
                [*serve, "-b", HOST, "-p", str(port), "--websocket_timeout", "86400", app],
                env={**env, "PORT": str(port)}, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
            ))
            self.urls.append(f"http://{HOST}:{port}")
        deadline = time.monotonic() + 60
        for url, proc in zip(self.urls, self.procs):
            while True:
                if proc.poll() is not None:
                    self.stop()
                    raise RuntimeError(f"daphne exited ({proc.returncode}); see {log_dir}")
                try:
                    status, _h, _b = http("GET", url, "/healthz", timeout=2)
                    if status == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"daphne at {url} did not answer /healthz within 60 s")
                time.sleep(0.2)

    def url(self, i: int) -> str:
        return self.urls[i % len(self.urls)]

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        for log in self.logs:
            log.close()

    def keep_logs(self, log_dir: str, prefix: str) -> None:
        """The last 200 KB of each daphne's log, copied to bench/results/logs/<prefix>-daphne-<i>.log
        (``log_dir`` is the throwaway directory they were written in)."""
        logs = os.path.join(ROOT, "bench", "results", "logs")
        os.makedirs(logs, exist_ok=True)
        for i in range(len(self.urls)):
            src = os.path.join(log_dir, f"daphne-{i}.log")
            if os.path.exists(src):
                with open(src) as f_in, open(os.path.join(logs, f"{prefix}-daphne-{i}.log"), "w") as f_out:
                    f_out.write(f_in.read()[-200_000:])


def add_layer_arguments(p) -> None:
    """A load benchmark's ``--layer`` (``memory``: SQLite and the in-memory layer; ``redis``:
    PostgreSQL and Redis) and ``--processes`` (daphnes; see ``layer_processes``)."""
    p.add_argument("--layer", choices=["memory", "redis"], default="memory")
    p.add_argument("--processes", type=int, default=None, help="daphne processes (memory: 1; redis: 2)")


def layer_processes(p, args) -> None:
    """``args.processes`` by default one on the in-memory layer (which serves one only), two on
    Redis."""
    args.processes = args.processes or (1 if args.layer == "memory" else 2)
    if args.layer == "memory" and args.processes != 1:
        p.error("the in-memory layer serves one process only")


class Run:
    """A load benchmark's run (bench/entry_burst.py, bench/hall.py), as a ``with`` block: stopped
    by SIGTERM (bench/run.py, `make bench`'s timeout) through its end below. On the ``redis``
    layer a fresh PostgreSQL database on BENCH_DATABASE_URL's server and BENCH_REDIS_URL's
    database, flushed first; else SQLite in a temporary folder. At the end, the ``servers`` the
    block started are stopped and their logs kept as ``logs``, the database dropped and Redis
    flushed."""

    def __init__(self, layer: str, prefix: str, logs: str) -> None:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        self.logs = logs
        admin_url = self.redis_url = None
        if layer == "redis":
            admin_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_PG_URL)
            self.redis_url = with_socket_timeout(os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
            flush_redis(self.redis_url)
        self.db = ThrowawayDatabase(admin_url, prefix=prefix)
        self.servers: Servers | None = None

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *_exc) -> None:
        if self.servers is not None:
            self.servers.stop()
            self.servers.keep_logs(self.db.tmp, self.logs)
        self.db.drop()
        if self.redis_url:
            flush_redis(self.redis_url)


def report(out: dict, started: float, json_path: str | None) -> dict:
    """A script's result: each entry's running time added, printed as JSON (and written to
    ``json_path`` when given)."""
    for e in out["entries"]:
        e["seconds"] = round(time.monotonic() - started, 1)
    text = json.dumps(out)
    if json_path:
        with open(json_path, "w") as f:
            f.write(text)
    print(text)
    return out


# --- HTTP with cookies -----------------------------------------------------------------------------


def http(method: str, base: str, path: str, *, headers: dict | None = None, body: bytes | None = None,
         timeout: float = 60) -> tuple[int, list[tuple[str, str]], bytes]:
    parts = urlsplit(base)
    conn = httpclient.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.getheaders(), resp.read()
    finally:
        conn.close()


class Browser:
    """One client's cookie jar (a phone or the organiser); ``request`` is blocking (run it in a
    thread from asyncio). POSTs carry the CSRF token from the ``csrftoken`` cookie."""

    def __init__(self, cookies: dict[str, str] | None = None) -> None:
        self.cookies: dict[str, str] = dict(cookies or {})

    def cookie_header(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def request(self, method: str, base: str, path: str, data: dict | None = None,
                accept: str = "text/html", timeout: float = 60) -> tuple[int, bytes]:
        headers = {"Cookie": self.cookie_header(), "Accept": accept, "Host": urlsplit(base).netloc}
        body = None
        if method == "POST":
            body = urlencode(data or {}).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            if "csrftoken" in self.cookies:
                headers["X-CSRFToken"] = self.cookies["csrftoken"]
        status, resp_headers, content = http(method, base, path, headers=headers, body=body, timeout=timeout)
        for name, value in resp_headers:
            if name.lower() == "set-cookie":
                jar = SimpleCookie()
                jar.load(value)
                for key, morsel in jar.items():
                    self.cookies[key] = morsel.value
        return status, content


# --- websockets ------------------------------------------------------------------------------------


class Listener:
    """A websocket client that records (receive time in ns, decoded message) for every frame."""

    def __init__(self, name: str, url: str, cookies: dict[str, str] | None = None, mark: str | None = None) -> None:
        self.name = name
        self.url = url
        self.cookies = cookies or {}
        self.mark = mark  # a substring: frames containing it are also indexed in ``marked``
        self.received: list[tuple[int, dict]] = []
        self.by_stamp: dict[int, int] = {}  # stamp -> first receive time (ns)
        self.marked: dict[int, int] = {}  # stamp -> first receive time of a frame containing ``mark``
        self.results: dict[int, int] = {}  # a "result" frame's commit stamp -> first receive time (ns)
        self.ws = None
        self.task: asyncio.Task | None = None
        self.error: str | None = None
        self.closed = False

    async def connect(self, timeout: float = 30) -> None:
        from websockets.asyncio.client import connect

        origin = "http://" + urlsplit(self.url.replace("ws://", "http://")).netloc
        headers = {"Origin": origin}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self.ws = await asyncio.wait_for(
            connect(self.url, additional_headers=headers, max_size=None, open_timeout=timeout, ping_interval=None),
            timeout,
        )
        # The first frame is the snapshot (drive sockets) or "ready" (floor sockets).
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        self._record(time.time_ns(), raw)
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        try:
            async for raw in self.ws:
                self._record(time.time_ns(), raw)
        except Exception as exc:  # a dropped socket is an error of the run
            if not self.closed:
                self.error = f"{self.name}: {type(exc).__name__}: {exc}"
        else:
            if not self.closed:
                self.error = f"{self.name}: closed by the server ({self.ws.close_code})"

    def _record(self, now: int, raw: str) -> None:
        msg = json.loads(raw)
        self.received.append((now, msg))
        if msg.get("type") == "result" and msg.get("commit") is not None:
            self.results.setdefault(msg["commit"], now)
        stamp = msg.get("stamp")
        if stamp is not None:
            self.by_stamp.setdefault(stamp, now)
            if self.mark and self.mark in raw:
                self.marked.setdefault(stamp, now)

    async def close(self) -> None:
        self.closed = True
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except Exception:
                pass
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except BaseException:
                pass


async def connect_all(listeners: list[Listener], concurrency: int = 20, timeout: float = 120) -> list[str]:
    """Connect every listener (at most ``concurrency`` at once); returns the errors."""
    sem = asyncio.Semaphore(concurrency)
    errors: list[str] = []

    async def one(listener: Listener) -> None:
        async with sem:
            try:
                await listener.connect()
            except Exception as exc:
                errors.append(f"{listener.name}: connect failed: {type(exc).__name__}: {exc}")

    await asyncio.wait_for(asyncio.gather(*(one(listener) for listener in listeners)), timeout)
    return errors


async def wait_until(predicate, timeout: float, step: float = 0.02) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass (a bounded loop)."""
    deadline = time.monotonic() + timeout
    for _ in range(int(timeout / step) + 2):
        if predicate():
            return True
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(step)
    return bool(predicate())


def ws_url(http_url: str, path: str) -> str:
    return http_url.replace("http://", "ws://") + path


# --- the servers' own use of the machine ---------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def cpu_seconds(pid: int) -> dict[str, float]:
    """CPU time (user + system, seconds) of a server process and of its children (the render
    process), from /proc: ``{"server": s, "children": s}``."""
    tick = os.sysconf("SC_CLK_TCK")

    def own(p: int) -> float:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            return 0.0

    return {"server": own(pid), "children": sum(own(c) for c in _children(pid))}


def peak_rss_mb(pid: int) -> float | None:
    """A process's peak resident memory (VmHWM in /proc/<pid>/status), in MB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def serving_loop() -> asyncio.AbstractEventLoop:
    """An event loop in a thread of its own, where the channel layer's sends run as on a
    server's (``common.layer.remember_loop``): with none, each send would start a loop of its own."""
    import threading

    from common import layer

    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, name="server-loop", daemon=True).start()

    async def remember() -> None:
        layer.remember_loop()

    asyncio.run_coroutine_threadsafe(remember(), loop).result()
    return loop
