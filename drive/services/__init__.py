"""Every write of the drive, by sub-domain: players (``players``; their names, pure text, in ``names``), the seating shown between
hands (``seats``), the hand cycle with results, the end and the prizes (``hands``); what they
share (refusals, the stale-page check, the drive's lock) in ``base``; a new drive (``drives``).

Callers use ``from drive import services`` and ``services.<function>``: the names below are the
whole public surface.
"""

from drive.services.drives import create_drive, made_just_now
from drive.services.base import DriveError, ImpossibleAnswers, NotThisPlayersForm, StaleForm, check_shown_hand, hand_now, lock
from drive.services.hands import (close_hand, end_drive, organiser_result, outcome_for, players_at,
                                  refuse_paper_result_on_the_phones, same_answers, set_aside_late_entries, show_prizes,
                                  start_hand)
from drive.services.names import (MAX_NAME, clean_name, has_control_characters, name_key, parse_names, sort_names,
                                  typed_too_long)
from drive.services.players import (JOIN_AGAIN_WITHIN, MAX_PLAYERS, add_bot, add_names, add_players, join_phone, has_played, leave_phone,
                                    leaving_leaves_drive, places_held, rejoin_player, revoke_phone, withdraw_player)
from drive.services.seats import (current_hand, draw_seating, drive_game_changed, drive_play_mode_changed,
                                  drive_table_size_changed, hand_sent_to_the_phones, set_table_mode, swap_players)

__all__ = [
    "JOIN_AGAIN_WITHIN", "MAX_NAME", "MAX_PLAYERS", "places_held", "DriveError", "ImpossibleAnswers", "NotThisPlayersForm", "StaleForm", "add_bot", "add_players", "join_phone", "typed_too_long",
    "check_shown_hand", "clean_name", "hand_now", "players_at", "create_drive", "made_just_now", "lock", "close_hand", "current_hand", "draw_seating", "drive_game_changed",
    "drive_play_mode_changed", "drive_table_size_changed", "end_drive", "hand_sent_to_the_phones", "has_played", "leave_phone", "leaving_leaves_drive", "name_key", "organiser_result",
    "outcome_for", "same_answers", "set_aside_late_entries", "has_control_characters", "parse_names", "sort_names", "add_names", "refuse_paper_result_on_the_phones", "rejoin_player", "revoke_phone",
    "set_table_mode", "show_prizes", "start_hand", "swap_players", "withdraw_player",
]
