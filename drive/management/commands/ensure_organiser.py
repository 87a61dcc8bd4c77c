"""Create the organiser's account on first run and print its password once.

``--reset`` sets a new password (``make password``) when the first one is lost.
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

WORDS = "amber basil cedar delta ember fable garnet harbor indigo juniper kestrel lumen maple nectar onyx pepper quartz raven saffron tango umber velvet willow yarrow zephyr".split()


def generate_password() -> str:
    # Four words of 26 and two digits: easy to type on a laptop; about 25 bits, plenty against
    # online guessing over one evening on a local party server.
    return "-".join(secrets.choice(WORDS) for _ in range(4)) + f"-{secrets.randbelow(90) + 10}"


class Command(BaseCommand):
    help = "Create the organiser account if there is none (prints the password once)."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="organiser")
        parser.add_argument("--reset", action="store_true", help="Set and print a new password.")

    def handle(self, *args, username: str, reset: bool, **options):
        User = get_user_model()
        # As the account will store it (full-width letters become plain ones): checked, looked up
        # and printed as such.
        username = User.normalize_username(username.strip())
        try:  # the sign-in page's own rules (letters, digits and @ . + - _; at most 150)
            User.username_validator(username)
            if not username or len(username) > 150:
                raise ValidationError("Enter 1 to 150 characters.")
        except ValidationError as exc:
            raise CommandError(f"--username {username!r} cannot be a user name: {' '.join(exc.messages)}") from None
        user = User.objects.filter(username=username).first()
        if user and not reset:
            self.stdout.write(f"Organiser account: {username} (password was shown at first run; `make password` sets a new one)")
            return
        password = generate_password()
        if user is None:
            user = User.objects.create_superuser(username=username, email="", password=password)
            what = "Created the organiser account"
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
            what = "New password for the organiser account"
        self.stdout.write(self.style.SUCCESS(f"{what}:\n    user name: {username}\n    password:  {password}\n"
                                             "Write it down: it is shown only once."))
