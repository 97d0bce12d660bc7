"""Tournaments: seat agents and AI rulers across many games, in parallel and resumably, and rate them.

Layered above the game service: `config` (the TOML file), `schedule` (every game, fair by construction),
`store` (the tournament's one SQLite file), `worker` (plays one game into its own game file), `metrics`
(per-seat figures read back through kingdoms.storage), `executors` (local processes or Ray), `ratings`
(openskill live ratings, Bradley-Terry season table with bootstrap intervals), `report` (text, JSON, CSV,
HTML), `runner` (run / status / table) and `cli` (the subcommand's arguments).
"""
