from django.apps import AppConfig


class DriveConfig(AppConfig):
    name = "drive"
    verbose_name = "Drives"

    def ready(self) -> None:
        from drive import ending, live
        from tables import digital, screen_facts

        # A digital hand's result refreshes the drive's live screens (tables never imports drive).
        if live.drive_changed not in digital.drive_listeners:
            digital.drive_listeners.append(live.drive_changed)
        if live.table_finished not in digital.table_listeners:
            digital.table_listeners.append(live.table_finished)
        # What follows a digital table's hand, as the drive's rules say it (its close may end the drive).
        if ending.after_hand not in screen_facts.facts_readers:
            screen_facts.facts_readers.append(ending.after_hand)
