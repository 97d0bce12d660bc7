"""The month engine: pure and deterministic, (state, orders) -> (new state, events, order outcomes).

Rules areas (economy, movement, combat, sieges, intelligence...) plug phases and verbs into the
registry; `resolve_month` runs them in the canonical order. Nothing here does I/O or reads a clock.
"""
