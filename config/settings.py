"""One settings module; every choice comes from the environment through config.env.

Embedded defaults (nothing set): DEBUG off, SQLite in ``data/``, the in-memory channel layer, a
secret key generated once into ``data/secret_key``. See docs/operations.md for production.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from common import network
from config.env import env_bool, env_choice, env_int, env_list, env_str, env_time_zone, env_url

BASE_DIR = Path(__file__).resolve().parent.parent
# Set but empty is the default too (not the current folder, where a fresh database would hide
# the evening's drives).
DATA_DIR = Path(env_str("DATA_DIR") or BASE_DIR / "data")
try:
    DATA_DIR.mkdir(parents=True, exist_ok=True)
except OSError as exc:
    raise ImproperlyConfigured(f"DATA_DIR must be a folder this user may write in; {str(DATA_DIR)!r}: "
                               f"{exc.strerror}.") from None
if not os.access(DATA_DIR, os.W_OK | os.X_OK):
    raise ImproperlyConfigured(f"DATA_DIR must be a folder this user may write in; {str(DATA_DIR)!r}: "
                               "Permission denied.")

# Off unless asked for: `make run` serves the hall's Wi-Fi, where Django's debug pages (every
# URL pattern on a mistyped address, a traceback on an error) must never show.
DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    """SECRET_KEY, or one generated once into the data directory and kept there (readable by
    this user only), so that sessions outlive a restart of the laptop's server."""
    key = env_str("SECRET_KEY")
    if key:
        return key
    path = DATA_DIR / "secret_key"
    try:  # created readable by this user only, never for a moment by others; once, even by two processes
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", network.default_allowed_hosts())
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
for _origin in CSRF_TRUSTED_ORIGINS:
    if "://" not in _origin:
        raise ImproperlyConfigured(f"CSRF_TRUSTED_ORIGINS entries need a scheme, e.g. https://{_origin}")

# The port `make run` serves on and prints (manage.py banner); the join links and QR codes are
# built from the address the page was opened at (drive/phone_links.py).
PORT = env_int("PORT", 8000, minimum=1, maximum=65535)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "drive",
    "tables",
    "scoring",
]

MIDDLEWARE = [
    # First: before anything checks the Host (SecurityMiddleware's redirect to HTTPS,
    # CommonMiddleware) or reads the form (CSRF). A forged Host is refused with Django's page for
    # it, which reads the address's parameters and the form: one it cannot read must be refused
    # here already, or that page fails on it (with DEBUG on, a server error and its tracebacks).
    "config.middleware.UnreadableForm",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.PrivatePages",  # after WhiteNoise: static files keep their caching
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.KnownMethods",
    "config.middleware.HostPort",  # after CommonMiddleware, which checks the Host's name
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.middleware.UnknownCodes",  # a view's drive.access.TooManyCodes: 429
    "config.middleware.SyncChain",  # last: every middleware above runs in the request's thread
]
# Flashed messages as Django keeps them, each said once (common/messages.py: repeated, they
# overflowed into the session, a row of the database a stranger's request).
MESSAGE_STORAGE = "common.messages.SaidOnce"

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

# Database: SQLite file by default; DATABASE_URL (postgres://…) for bigger events.
_database_url = env_url("DATABASE_URL", {"sqlite", "postgres", "postgresql"})
_SQLITE_OPTIONS = {
    # IMMEDIATE: a writer takes the lock at BEGIN, so two writers queue instead of failing
    # with "database is locked" half-way through a transaction.
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
        # A file, in a folder that is there: an in-memory database loses the evening when the
        # server stops, and a missing folder failed at the first query with a traceback.
        _name = str(DATABASES["default"]["NAME"] or ":memory:")
        if _name == ":memory:" or _name.startswith("file::memory:"):
            raise ImproperlyConfigured("DATABASE_URL must name a SQLite file (sqlite:////path/to/drive.sqlite3), not "
                                       "an in-memory database, which loses every drive when the server stops.")
        if not Path(_name).parent.is_dir():
            raise ImproperlyConfigured(f"DATABASE_URL names a SQLite file in a folder that does not exist: {_name!r}.")
        DATABASES["default"]["OPTIONS"] = dict(_SQLITE_OPTIONS)
        DATABASES["default"]["CONN_MAX_AGE"] = None
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # psycopg's pool: persistent connections leak under ASGI, a pool does not.
        DATABASES["default"]["OPTIONS"] = {
            "pool": {"min_size": 1, "max_size": env_int("DATABASE_POOL_SIZE", 20, minimum=2, maximum=500), "timeout": 10}
        }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "drive.sqlite3",
            "OPTIONS": dict(_SQLITE_OPTIONS),
            "CONN_MAX_AGE": None,  # kept, as the threads that use it are (config/http_handler.py)
            # Tests use a file too (one per run): an in-memory database shared between threads
            # locks whole tables ("database table is locked") where a WAL file just waits.
            "TEST": {"NAME": str(DATA_DIR / f"test-{os.getpid()}.sqlite3")},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channels: in-memory layer by default (one process); REDIS_URL for several processes.
# Full live updates are built in a child process of the server (drive/render.py).
LIVE_RENDER_PROCESS = env_bool("LIVE_RENDER_PROCESS", True)
# Pages running their middleware and view at once, per server process (config/http_handler.py;
# sign-ins, /healthz and the organiser's prints and exports wait apart):
# one on SQLite, whose writes all go through one thread anyway; two on PostgreSQL, where one
# request's round trips leave the interpreter to the other (docs/benchmarks.md, entry_burst).
REQUEST_THREADS = env_int("REQUEST_THREADS", 1 if DATABASES["default"]["ENGINE"].endswith("sqlite3") else 2,
                          minimum=1, maximum=64)
# Requests one address may have in the server at once (waiting or in their views); one more is
# answered 429 (config/http_handler.py). The server's own machine is not limited; 0: no limit.
REQUESTS_PER_ADDRESS = env_int("REQUESTS_PER_ADDRESS", 16, minimum=0, maximum=10_000)
# Names joined (taken or added) a minute per client address (drive/phone_views.py); 0: no limit.
JOINS_PER_ADDRESS = env_int("JOINS_PER_ADDRESS", 60, minimum=0, maximum=100_000)
# A result's own message reaches the board and the dashboard at its commit (drive.live
# table_changed); their full re-render then waits LIVE_GATHER_MS (milliseconds) for the rest of
# a burst of results, so 50 results at the end of a hand cost a few renders, not fifty.
LIVE_GATHER_SECONDS = env_int("LIVE_GATHER_MS", 1000, minimum=0, maximum=5000) / 1000
_redis_url = env_url("REDIS_URL", {"redis", "rediss", "unix"})
if _redis_url:
    # channels_redis's pub/sub layer: a group message is published once and reaches each server
    # process once, which hands it to its own sockets in the group (docs/architecture.md).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {
                # No read timeout on the subscription's idle connection; connecting still fails fast.
                "hosts": [{"address": _redis_url, "socket_timeout": None, "socket_connect_timeout": 5}],
                "prefix": env_str("CHANNEL_PREFIX", "drive"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "common.memory_layer.SweepingInMemoryChannelLayer", "CONFIG": {"capacity": 1500}}}



def _bot_delay() -> tuple[float, float]:
    """BOT_DELAY_SECONDS: "0.8,2" (a random pause between the two) or "0"; bots play at a human pace."""
    raw = env_str("BOT_DELAY_SECONDS", "0.8,2")
    try:
        parts = [float(p) for p in raw.split(",")]
    except ValueError:
        parts = []
    if len(parts) not in (1, 2) or any(not 0 <= p <= 60 for p in parts) or parts[0] > parts[-1]:
        raise ImproperlyConfigured(f"BOT_DELAY_SECONDS must be seconds like 0.8,2 or 0 (0 to 60); got {raw!r}.")
    return parts[0], parts[-1]


BOT_DELAY_SECONDS = _bot_delay()

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "drive:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = env_time_zone("TIME_ZONE", "Europe/London")
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"  # collectstatic's, for a server in front (docs/operations.md)
STATIC_ROOT.mkdir(exist_ok=True)  # (empty, it is looked in for nothing: WhiteNoise warned at every start)
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Production hardening (python manage.py check --deploy is clean with DEBUG=0 and HTTPS=1).
HTTPS = env_bool("HTTPS", False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and env_bool("SECURE_SSL_REDIRECT", True)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY", False) else None
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if HTTPS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 14
# Request bodies. Every form here is a few KB. The server refuses any body over this limit before
# reading it (config/server.py, 413); Django applies it to a form's fields (413 too, from
# config.middleware.UnreadableForm), and no form takes a file: a file part is refused (400)
# before its data is stored, so FILE_UPLOAD_MAX_MEMORY_SIZE never comes into play.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000
DATA_UPLOAD_MAX_NUMBER_FILES = 0

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"without_traceback": {"()": "config.log_filters.WithoutTraceback"},
                "client_error_without_traceback": {"()": "config.log_filters.ClientErrorWithoutTraceback"},
                "without_private_links": {"()": "config.log_filters.WithoutPrivateLinks"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["without_private_links"]}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR"))},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        "daphne": {"level": "WARNING"},
        # Django's own "django" logger prints to the console when DEBUG is on, and propagates to
        # the root's: every line twice. The root's handler alone.
        "django": {"handlers": []},
        # A client's mistake is one line, not a traceback: a forged Host header; a body read
        # past its limits by something other than config.middleware.UnreadableForm; a lookup or
        # a field the admin refuses in an address, an admin search too long; any request
        # answered 4xx.
        **{f"django.security.{name}": {"filters": ["without_traceback"]}
           for name in ("DisallowedHost", "RequestDataTooBig", "TooManyFieldsSent", "TooManyFilesSent",
                        "DisallowedModelAdminLookup", "DisallowedModelAdminToField", "DisallowedRedirect",
                        "SuspiciousMultipartForm", "SuspiciousSession", "SuspiciousOperation", "csrf")},
        "django.request": {"filters": ["client_error_without_traceback"]},
    },
}
