"""The assistant's client calls mnemo by itself: hooks (``run``) and their installation in the
client's settings (``install``). The work itself is the engine's (``capture.py``)."""
