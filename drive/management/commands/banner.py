"""Print where to open the dashboard and where phones connect (used by ``make run``)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from common.network import lan_address


class Command(BaseCommand):
    help = "Print the addresses of this server for the laptop and for phones."

    def handle(self, *args, **options):
        port = settings.PORT
        lan = lan_address()
        self.stdout.write(
            "\n"
            f"  Card drive is starting on port {port}.\n"
            f"  On this laptop open:    http://127.0.0.1:{port}/\n"
            f"  Phones on the Wi-Fi:    http://{lan}:{port}/  (each drive shows its own QR code)\n"
            "  Stop with Ctrl+C.\n"
        )
