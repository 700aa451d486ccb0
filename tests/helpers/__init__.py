"""Shared test helpers, imported as `helpers.<module>` (tests/ is on the path; pytest fixtures stay in conftest.py).

- `items`: small valid contract items (ideas, pairs, points) and the fixtures folder.
- `inspect_runs`: Inspect runs in-process with the session's private log and cache dirs.
- `real_items`: real bundled items and a small search corpus (the `search_set` fixture).
- `raw_notes`, `venue_forms`, `mine_fuzz`, `mine_options`: OpenReview notes, other venues' forms,
  the miner's fuzzer and option sets.
- `cli_starts`, `child_processes`: starting the CLI and child processes as a user would.
- `llama_grammar`: the local model's grammar helpers.
- `frame_rows`: rows of the report's tidy frame built by hand (report tests without an Inspect run).
- `session_caches`, `module_order`: the session's private caches and the costliest-first module order.
"""
