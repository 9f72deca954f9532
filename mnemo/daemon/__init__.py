"""The owner process (design.md §2): one daemon per ``MNEMO_HOME`` holds the owner lock, keeps
the models warm, serves the engine's operations on a loopback JSON API, watches the vault and
runs the lifecycle jobs on a schedule.

- ``endpoint``  the port + token file clients read (stdlib only: clients import it)
- ``http``      the API server (threaded; token and loopback checks)
- ``server``    the Daemon: engine, operation lock, status, start-up and graceful shutdown
- ``scheduler`` lifecycle jobs with persisted last-run times and a journal
- ``watcher``   vault events → index_note / remove_note / move_note, debounced
- ``process``   start / stop / status from another process
"""
