from django.apps import AppConfig


class TablesConfig(AppConfig):
    name = "tables"
    verbose_name = "Tables and hands"

    def ready(self) -> None:
        from tables import bots, digital

        # After a move, a deal or a stand-in commits, the table's bots look at it (the bots
        # call the digital services, which therefore do not import them).
        if bots.table_moved not in digital.moved_listeners:
            digital.moved_listeners.append(bots.table_moved)
