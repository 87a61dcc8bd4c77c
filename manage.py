#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as exc:  # a bad setting in the environment: its message, no traceback
        sys.exit(f"Not started: {exc}")
    finally:
        # A command that changed a drive (``shell -c``, say) has its live update still queued:
        # sent now, not failed with a traceback by the interpreter's exit (found by probing).
        if "drive.live" in sys.modules:
            sys.modules["drive.live"].wait_idle()


if __name__ == "__main__":
    main()
