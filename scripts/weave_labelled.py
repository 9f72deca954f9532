"""A labelled set for woven links: memories, the person's notes, and which notes each memory's
note should link to. Written for mnemo (no outside data), before any threshold was chosen.

Each topic has one memory, the notes that are clearly about the same thing (the positives) and a
near-miss: a note that shares a common word with the memory but is about something else. A few
notes are about nothing any memory says. The split is fixed here, up front: the threshold is
chosen on ``train`` topics only and reported on ``test`` topics (scripts/eval_weave.py).
"""

from __future__ import annotations

TOPICS: list[dict] = [
    {
        "id": "postgres", "split": "train",
        "memory": "We decided to move the orders service from MySQL to PostgreSQL because we need JSONB columns and better query plans.",
        "positives": {
            "Orders DB migration": "# Orders DB migration\n\nPlan for moving the orders tables off MySQL onto Postgres.\n\n## Steps\n- dump schema, convert types\n- JSONB for the line items\n- compare EXPLAIN plans on the slow report queries",
        },
        "near_miss": {
            "Moving house checklist": "# Moving house checklist\n\nBook the van for the 14th. Pack the kitchen last. Tell the bank and the dentist the new address. Service the boiler before we move.",
        },
    },
    {
        "id": "oncall", "split": "train",
        "memory": "Bob is the on-call engineer for the payments service this month; page him for any checkout outage.",
        "positives": {
            "Payments on-call rota": "# Payments on-call rota\n\nWho carries the pager for payments each month. This month: Bob. Escalate checkout failures to the payments on-call first, then to the platform lead.",
        },
        "near_miss": {
            "Bob's birthday ideas": "# Bob's birthday ideas\n\nHe likes climbing and old jazz records. Maybe a voucher for the bouldering gym, or the Coltrane reissue. Cake from the bakery on Elm street.",
        },
    },
    {
        "id": "sourdough", "split": "train",
        "memory": "Alice's sourdough works best with 75% hydration and an overnight cold proof in the fridge.",
        "positives": {
            "Sourdough notes": "# Sourdough notes\n\nStarter fed at 1:1:1. Dough at 75% hydration felt right. Bulk ferment 5 hours, then shape and retard overnight in the fridge. Bake at 250 C in the Dutch oven.",
            "Bread baking log": "# Bread baking log\n\n## Week 3\nTried a cold proof overnight: much better oven spring and a more open crumb than the same-day loaf. Higher hydration made shaping harder.",
        },
        "near_miss": {
            "Fridge repair": "# Fridge repair\n\nThe fridge is making a buzzing noise again. The technician comes Thursday; warranty runs until June. Keep the receipt in the drawer.",
        },
    },
    {
        "id": "jwt", "split": "train",
        "memory": "Our API authenticates clients with short-lived JWT access tokens signed by the auth service, refreshed every 15 minutes.",
        "positives": {
            "Auth design": "# Auth design\n\nAccess tokens are JWTs signed by the auth service with RS256. They expire after 15 minutes; clients use the refresh token to get a new one. Services verify the signature with the published JWKS.",
        },
        "near_miss": {
            "Arcade tokens for the kids": "# Arcade tokens for the kids\n\nThe arcade sells tokens in bags of 20. The kids spent them all on the racing game. Next time set a budget before we go in.",
        },
    },
    {
        "id": "marathon", "split": "train",
        "memory": "I am training for the Berlin marathon in September; long runs are on Sundays and I am aiming for a sub 3:45 finish.",
        "positives": {
            "Marathon training plan": "# Marathon training plan\n\nGoal race: Berlin, last Sunday of September. Target pace 5:15 per km for a 3:40-3:45 finish. Long run every Sunday building to 32 km; tempo on Wednesdays; easy runs otherwise.",
        },
        "near_miss": {
            "Berlin museums": "# Berlin museums\n\nPergamon is closed for renovation. The Neues Museum has the Nefertiti bust. Buy the museum pass for three days; Monday many are closed.",
        },
    },
    {
        "id": "kafka", "split": "train",
        "memory": "The events pipeline replaced RabbitMQ with Kafka so consumers can replay the last seven days of events.",
        "positives": {
            "Event streaming": "# Event streaming\n\nWe run Kafka for the events pipeline. Retention is seven days so a consumer that falls behind or ships a bug can rewind its offsets and replay. RabbitMQ is gone since the migration.",
        },
        "near_miss": {
            "Kafka reading group": "# Kafka reading group\n\nNext month we read The Trial. Discussion at Maria's place. Questions: is Josef K guilty of anything? What does the parable of the door mean?",
        },
    },
    {
        "id": "tomatoes", "split": "train",
        "memory": "The tomatoes on the balcony get blossom end rot when I water them unevenly; water deeply every two days.",
        "positives": {
            "Balcony garden": "# Balcony garden\n\n## Tomatoes\nThree plants in big pots. Some fruits have dark leathery bottoms: blossom end rot, from irregular watering (calcium uptake). Water deeply and on a schedule, mulch the pots.",
        },
        "near_miss": {
            "Pasta sauce": "# Pasta sauce\n\nCan of tomatoes, garlic, olive oil, a pinch of chilli. Simmer 20 minutes. Basil at the end. Good with rigatoni.",
        },
    },
    {
        "id": "flaky-test", "split": "train",
        "memory": "The checkout integration test is flaky because it depends on the wall clock; inject a fake clock instead of sleeping.",
        "positives": {
            "Flaky tests": "# Flaky tests\n\nThe checkout integration test fails about one run in twenty. Cause: it reads the real time and sleeps, so slow CI machines cross a minute boundary. Fix: pass a fake clock into the cart and advance it explicitly.",
        },
        "near_miss": {
            "Grandfather clock": "# Grandfather clock\n\nThe old clock in the hall runs five minutes fast per week. The pendulum nut moves it: turn it down to slow the clock. Wind it on Sundays.",
        },
    },
    {
        "id": "mortgage", "split": "train",
        "memory": "We fixed the mortgage rate for five years at 3.9% with the local bank; overpayments up to 10% a year are free.",
        "positives": {
            "Mortgage": "# Mortgage\n\nFive-year fixed rate at 3.9 percent with the local bank, signed in March. We may overpay up to 10 percent of the balance each year without a fee. Review before the fix ends.",
        },
        "near_miss": {
            "River bank walk": "# River bank walk\n\nNice loop along the river bank from the old mill to the bridge, about 6 km. Herons near the weir. Muddy after rain.",
        },
    },
    {
        "id": "ci-cache", "split": "train",
        "memory": "CI builds got three times faster after we cached the pip and npm downloads between runs.",
        "positives": {
            "CI speed": "# CI speed\n\nBuild times were 18 minutes. Most of it was downloading Python wheels and npm packages again on every run. With the dependency cache keyed on the lock files a build takes about 6 minutes.",
        },
        "near_miss": {
            "Geocaching trip": "# Geocaching trip\n\nFound four caches in the forest near the lake. One was a tiny magnetic cache on a sign. Bring a pen next time: the log book had none.",
        },
    },
    {
        "id": "allergy", "split": "train",
        "memory": "Carol is allergic to peanuts; keep anything with nuts out of the team lunch orders.",
        "positives": {
            "Team lunch": "# Team lunch\n\nFriday lunch for the team. Remember dietary needs: Carol has a peanut allergy (serious), so no satay, no nut sauces, check the dessert. Dmitri is vegetarian.",
        },
        "near_miss": {
            "Carol's project handover": "# Carol's project handover\n\nCarol moves to the data team in May. She hands over the reporting dashboards and the quarterly export job. Pair with her on the export before she leaves.",
        },
    },
    {
        "id": "dark-mode", "split": "train",
        "memory": "Alice prefers dark mode and a monospace font in every editor she uses.",
        "positives": {
            "Editor setup": "# Editor setup\n\nShared settings for the team's editors. Alice asked for the dark theme by default and a monospace font everywhere (she likes JetBrains Mono). Font size 14.",
        },
        "near_miss": {
            "Darkroom printing": "# Darkroom printing\n\nDeveloper at 20 C for 90 seconds, stop bath, fixer 5 minutes. Use the red safelight. Test strips every 3 seconds.",
        },
    },
    {
        "id": "cdn", "split": "train",
        "memory": "Images are served from the new CDN with a one-year cache lifetime; filenames carry a content hash so updates bust the cache.",
        "positives": {
            "Static assets": "# Static assets\n\nAll images and scripts go through the CDN. Cache-Control max-age is one year; every filename includes a hash of its content, so a changed file gets a new URL and old copies never go stale.",
        },
        "near_miss": {
            "Photo album": "# Photo album\n\nPrint twenty images from the summer for grandma's album. The ones from the beach and the birthday. Order from the print shop by Friday.",
        },
    },
    {
        "id": "spanish", "split": "train",
        "memory": "I practise Spanish for twenty minutes every morning and have a conversation class on Thursdays.",
        "positives": {
            "Learning Spanish": "# Learning Spanish\n\nDaily: 20 minutes of vocabulary and listening before work. Thursday evening: conversation class with Lucia. Goal: B1 by the summer trip to Seville.",
        },
        "near_miss": {
            "Morning routine": "# Morning routine\n\nWake at 6:30, glass of water, stretch, coffee. No phone until after breakfast. Walk the dog before 8.",
        },
    },
    # -- test topics (never looked at while choosing the threshold) ---------------------------
    {
        "id": "redis", "split": "test",
        "memory": "Session data moved into a Redis cluster after the single Redis node ran out of memory during the sale.",
        "positives": {
            "Sessions storage": "# Sessions storage\n\nDuring the spring sale the one Redis instance holding user sessions hit its memory limit and started evicting logins. We now run a three-shard Redis cluster for sessions with replicas.",
        },
        "near_miss": {
            "Spring sale budget": "# Spring sale budget\n\nMarketing spend for the sale: 40% social, 30% email, rest search. Discount codes expire Sunday night. Review the numbers the week after.",
        },
    },
    {
        "id": "knee", "split": "test",
        "memory": "The physio said my knee pain comes from weak hips; do clamshells and side planks three times a week.",
        "positives": {
            "Knee rehab": "# Knee rehab\n\nPhysio session 2: the knee hurts because the hip muscles are weak and the knee caves in when I run. Exercises: clamshells 3x15, side plank 3x30s, single-leg squats. Three times a week.",
        },
        "near_miss": {
            "Kitchen planks": "# Kitchen planks\n\nThe oak planks for the kitchen shelves are cut. Sand, oil twice, then mount on the hidden brackets. Check the wall for pipes first.",
        },
    },
    {
        "id": "release", "split": "test",
        "memory": "Mobile app releases ship every second Tuesday; a release freeze starts the Thursday before.",
        "positives": {
            "Release calendar": "# Release calendar\n\nThe iOS and Android apps release every other Tuesday. Code freeze on the Thursday before, then QA on the release candidate. Hotfixes only outside the train.",
        },
        "near_miss": {
            "Film release dates": "# Film release dates\n\nThe new Villeneuve film is out on the 12th. The documentary about the climbers releases in cinemas in March. Book tickets early.",
        },
    },
    {
        "id": "rent", "split": "test",
        "memory": "The landlord raises the rent by 4% from July; the lease lets us leave with two months' notice.",
        "positives": {
            "Flat lease": "# Flat lease\n\nLetter from the landlord: rent goes up 4 percent starting in July. Lease terms: we can end it with two months' notice in writing. Consider looking for a cheaper place in autumn.",
        },
        "near_miss": {
            "July holiday": "# July holiday\n\nTwo weeks in Croatia in July. Ferry to Hvar, then Split. Book the apartment and the rental car.",
        },
    },
    {
        "id": "backup", "split": "test",
        "memory": "The photo library is backed up nightly to an external disk and weekly to cloud storage with restic.",
        "positives": {
            "Backups": "# Backups\n\nrestic runs every night at 2am to the USB disk and every Sunday to the cloud bucket. Restore test done in May: the photo library came back intact.",
        },
        "near_miss": {
            "Nightly feeds": "# Nightly feeds\n\nThe baby wakes around 3am for a feed. We take turns: odd nights me, even nights Sam. Bottle prep the evening before.",
        },
    },
    {
        "id": "rate-limit", "split": "test",
        "memory": "The public API limits each key to 100 requests per minute; clients get a 429 with a Retry-After header.",
        "positives": {
            "API rate limits": "# API rate limits\n\nPer API key: 100 requests per minute, token bucket. Over the limit the gateway answers 429 Too Many Requests with a Retry-After header saying when to come back.",
        },
        "near_miss": {
            "Speed limits on the trip": "# Speed limits on the trip\n\nFrance: 130 on motorways, 110 in rain. Spain: 120. Watch out for the average speed cameras near Bordeaux.",
        },
    },
    {
        "id": "garden-pond", "split": "test",
        "memory": "The garden pond turns green every June; a UV clarifier and more oxygenating plants fixed the algae last year.",
        "positives": {
            "Pond care": "# Pond care\n\nAlgae bloom again in early summer, water like pea soup. Last year the UV clarifier on the pump plus extra oxygenating plants (hornwort) cleared it in three weeks.",
        },
        "near_miss": {
            "Green paint for the hallway": "# Green paint for the hallway\n\nSage green, matte finish, two coats. Buy masking tape and a new roller. Move the coats off the hooks first.",
        },
    },
    {
        "id": "interview", "split": "test",
        "memory": "For backend hiring we dropped the whiteboard puzzle and now run a take-home exercise reviewed in a pairing session.",
        "positives": {
            "Hiring process": "# Hiring process\n\nBackend candidates: no more whiteboard algorithm puzzles. They get a small take-home task (3 hours max), then we review it together in a one-hour pairing call and extend it live.",
        },
        "near_miss": {
            "Whiteboard for the office": "# Whiteboard for the office\n\nOrder a 120x90 magnetic whiteboard and markers for the meeting room. Mount it opposite the window to avoid glare.",
        },
    },
    {
        "id": "sleep", "split": "test",
        "memory": "I sleep better when I stop screens at 10pm and keep the bedroom at 18 degrees.",
        "positives": {
            "Sleep experiments": "# Sleep experiments\n\nTracked sleep for a month. Best nights: no phone or laptop after 10pm and the bedroom thermostat at 18 C. Worst: late TV and a warm room.",
        },
        "near_miss": {
            "Laptop screen repair": "# Laptop screen repair\n\nThe screen has a dead line of pixels. Repair shop quote: 180 euros, three days. Back up first.",
        },
    },
]

# Notes about nothing any memory says.
UNRELATED: dict[str, str] = {
    "Book list": "# Book list\n\nTo read: The Left Hand of Darkness, Piranesi, The Overstory. Finished: Project Hail Mary.",
    "Bike maintenance": "# Bike maintenance\n\nChain lube every 300 km. Brake pads worn on the front. Tyre pressure 4.5 bar.",
    "Gift ideas": "# Gift ideas\n\nMum: a scarf and the gardening book. Dad: a new thermos. Niece: the Lego set.",
    "Quarterly goals": "# Quarterly goals\n\nShip the onboarding redesign. Hire two engineers. Write the incident review template.",
    "Chess openings": "# Chess openings\n\nLearn the Caro-Kann as black. Against e4 play c6, then d5. Review the Advance variation.",
    "Wine tasting": "# Wine tasting\n\nThe Rioja Reserva 2016 was the favourite. The Albarino went well with the fish.",
    "Car insurance": "# Car insurance\n\nRenewal due in October. Compare three quotes. Current excess is 300 euros.",
    "Podcast ideas": "# Podcast ideas\n\nInterview a lighthouse keeper. An episode on the history of maps. Listener questions.",
}
