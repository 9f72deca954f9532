"""Types from the parse (``nlp.classify.classify_parsed``) on sentences of the shapes the
labelled conversations showed going wrong: which failures are debug logs, which acts are
decisions, which habits are preferences. Hand-written cases: they prove behaviour, the
labelled splits (tests/test_extract_quality.py) measure quality."""

from __future__ import annotations

import pytest

from mnemo.models import MemoryType
from mnemo.nlp.classify import classify_parsed
from mnemo.nlp.entities import nlp

CASES = {
    # A failure of something technical is a debug log ...
    "The TLS certificate on api.shop expired and the mobile app stopped connecting.": "debug_log",
    "Query latency on the orders database jumped to 900 ms this morning.": "debug_log",
    "The cache key did not include the price version.": "debug_log",
    "Our CI minutes ran out on the 20th of the month.": "debug_log",
    "The log partition on web-3 filled up overnight.": "debug_log",
    # ... the same failure of anything else, or what a system cannot do, is a fact.
    "Our boiler broke down on the coldest night of the year.": "fact",
    "I failed the driving test in March.": "fact",
    "The CI runners do not support ARM builds.": "fact",
    "Black Friday traffic tripled the request rate on the checkout service.": "fact",
    # Decisions: an option taken over another, a practice changed, an act a cause made us do,
    # a fix, a step taken in response.
    "Because of the price, we got a rail pass instead.": "decision",
    "We now cycle to work.": "decision",
    "The flood made us move the servers upstairs.": "decision",
    "We fixed the API timeout by adding retries with backoff.": "decision",
    "We're turning on strict type checks for the billing package in response.": "decision",
    # A consequence said first, whoever acts; a rule set for the future; a stopgap; the option
    # a mishap left ("ended up"); a step taken to stop a repeat.
    "That's the reason she's moving into a flat near us in the spring.": "decision",
    "We told the lecturer, and as a result she let us submit as a pair.": "decision",
    "As a result, all prices are now stored in cents.": "decision",
    "Balance reads go to the primary from now on.": "decision",
    "Tablets stay in the kitchen after eight o'clock now.": "decision",
    "I'm using my old laptop until the new one arrives.": "decision",
    "We ended up renting a car and driving down.": "decision",
    "To avoid a repeat, I'm working with a trainer on my form.": "decision",
    "I've left a spare key with the neighbour downstairs.": "decision",
    # ... but a thing's state now, a consequence that is a failure, or a taste are not.
    "The app loads much faster now.": "fact",
    "He's fine now.": "fact",
    "As a result the site was down for two hours.": "fact",
    # Not decisions: an accident, taking up an activity without a reason.
    "I dropped my phone in the lake on Saturday.": "fact",
    "I started volunteering at the animal shelter last year.": "fact",
    # Habits of a person are preferences; a thing's schedule is not.
    "I play the piano every evening after dinner.": "preference",
    "My daughter swims on Saturdays.": "preference",
    "Our street has a residents' meeting every month.": "fact",
    # Decisions of any verb: a commitment, "let's", a step taken with its remedy or its result,
    # something had done, a practice given up, the subject left out in chat.
    "We'll publish one shared base image for all the services.": "decision",
    "Let's replace them with a written update in the team channel.": "decision",
    "We had an extractor fan put in the bathroom to deal with the damp.": "decision",
    "We're getting grab rails fitted in her kitchen and bathroom.": "decision",
    "I froze the clock in the test fixtures so the time of day no longer matters.": "decision",
    "I did, nothing changed, so I've started sleeping in the back room.": "decision",
    "I'm not drinking coffee after noon any more.": "decision",
    "bumped their memory request to 2Gi because of that": "decision",
    "Which means we're scrapping the separate marketing offsite this year.": "decision",
    # ... but having something with a name, a habit kept, a state gone are not.
    "We had a dog called Rex when I was little.": "fact",
    "My husband's new job starts at seven, so he can't do the school run any more.": "fact",
    # Tastes said with a noun, a need or "tend to".
    "I'm not a fan of group classes.": "preference",
    "I tend to read the licence before adding any dependency.": "preference",
    "I can't function without my morning espresso.": "preference",
    # Software trouble in words that are not "failed" / "broke": slowness, a recurring failure,
    # an HTTP error answered, a warning.
    "The orders page takes eight seconds to load for big accounts.": "debug_log",
    "Deploys take forty minutes because every service rebuilds its base image.": "debug_log",
    "The ingest worker pods keep getting OOMKilled every couple of hours.": "debug_log",
    "The partner API started answering 429 after we crossed a thousand calls a minute.": "debug_log",
    "Customers saw a certificate warning on the billing portal this morning.": "debug_log",
    # ... the same time taken by something that is no system is a fact.
    "The train to Leeds takes two hours.": "fact",
}


@pytest.mark.parametrize("text", sorted(CASES))
def test_type_from_the_parse(text: str) -> None:
    doc = nlp()(text)
    assert classify_parsed(text, list(doc.sents)) == MemoryType(CASES[text])
