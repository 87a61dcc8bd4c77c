from django.urls import path

from drive import exports, views

app_name = "drive"

urlpatterns = [
    path("", views.home, name="home"),
    path("drives/new", views.drive_create, name="create"),
    path("drives/<int:drive_id>/", views.dashboard, name="dashboard"),
    path("drives/<int:drive_id>/edit", views.drive_edit, name="edit"),
    path("drives/<int:drive_id>/players", views.players_add, name="players_add"),
    path("drives/<int:drive_id>/players/presence", views.player_presence, name="player_presence"),
    path("drives/<int:drive_id>/draw", views.seating_draw, name="draw"),
    path("drives/<int:drive_id>/swap", views.seating_swap, name="swap"),
    path("drives/<int:drive_id>/tables/<int:number>/mode", views.table_mode, name="table_mode"),
    path("drives/<int:drive_id>/start", views.hand_start, name="start"),
    path("drives/<int:drive_id>/close", views.hand_close, name="close"),
    path("drives/<int:drive_id>/end", views.drive_end, name="end"),
    path("drives/<int:drive_id>/results/<int:table_id>", views.result_edit, name="result"),
    path("drives/<int:drive_id>/results/<int:table_id>/preview", views.result_preview, name="result_preview"),
    path("drives/<int:drive_id>/standings", views.standings, name="standings"),
    path("drives/<int:drive_id>/phones", views.phones, name="phones"),
    path("drives/<int:drive_id>/phones/<int:player_id>/revoke", views.phone_revoke, name="phone_revoke"),
    path("drives/<int:drive_id>/prizes", views.prizes_toggle, name="prizes"),
    path("drives/<int:drive_id>/log", views.correction_log, name="log"),
    path("drives/<int:drive_id>/hands/<int:number>", views.hand_detail, name="hand"),
    path("drives/<int:drive_id>/export/hands.csv", exports.hands_csv, name="export_hands"),
    path("drives/<int:drive_id>/export/standings.csv", exports.standings_csv, name="export_standings"),
    path("drives/<int:drive_id>/print/tables", views.print_tables, name="print_tables"),
    path("drives/<int:drive_id>/print/scorecards", views.print_scorecards, name="print_scorecards"),
]
