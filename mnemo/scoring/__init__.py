"""Scoring: small pure functions, each taking time as an argument (never reading a clock).
Each docstring states its formula, its source seed and which clock it uses.

- ``decay``       Mnemex's score, the three decay models (exponential, power-law,
                  two-component), the retention modes (l2, huber, elastic), per-type decay
                  rates and trust-weighted half-lives
- ``retention``   the one retention score in [0, 1] (formula in its docstring) that promotion,
                  forgetting, review and recall use
- ``importance``  MIRA's importance (sigmoid of value, hub, entity hub, mention, newness, base
                  and ACT-R terms × recency × temporal × expiration)
- ``actr``        ACT-R base-level activation from the use timestamps
- ``layers``      working → episodic → semantic / procedural transitions and half-lives
- ``review``      danger-zone priority and the review queue
- ``surprise``    novelty and near-duplicates at write
- ``activity``    activity days: the clock that stops when nobody uses the store

Two clocks: **activity days** (days on which the store was saved to, recalled from or touched)
for everything the seeds measure in use-time — recency decay, episode age, MIRA's terms — so a
holiday does not age memories; **calendar time** for what belongs to the calendar — per-type
decay and expiry, event dates, the 30-minute working layer, the 14-day promotion window and the
90-day archival age. Applying these to stored memories is ``lifecycle``'s job: ``lifecycle.assess``
measures a batch in a fixed handful of queries and passes the values in.
"""
