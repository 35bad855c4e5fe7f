"""What the harnesses write, read back as the leaderboard's own lines, beside the engine that scores them:
lmms-eval samples files, VLMEvalKit prediction files and Inspect AI logs (:mod:`.harness_files`, with
:mod:`.inspect_log` for the ``.eval`` zip), and several files sent together (:mod:`.bundle`).

The engine, the scoring CLI and the site's upload path import these; nothing here imports what drives a
harness (``scoring.harness``)."""
