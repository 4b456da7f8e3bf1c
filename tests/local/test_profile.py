"""The user's profile: self-statements, their salience, and time (newer replaces older)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from zepkit.core._backend import SearchRequest, UserProfile
from zepkit.core._models import Message
from zepkit.local import LocalBackend, RuleExtractor, profile, supersede
from zepkit.local.profile import (
    LIMIT_WORDS,
    SCHEDULE_WORDS,
    STANDING_MARK,
    THING_TOPICS,
    THING_WORDS,
    kinds_in,
    kinds_of,
    limits_plans,
    manner_subjects,
    needed_topics,
    needs_limits,
    negated_value,
    self_statement,
    subjects_apart,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def profile_of(context: str | None) -> list[str]:
    """The entry lines of a block's USER_PROFILE section."""
    assert context is not None and "<USER_PROFILE>" in context
    section = context.split("<USER_PROFILE>\n")[1].split("\n</USER_PROFILE>")[0]
    return section.splitlines()


async def profile_after(ana: LocalBackend, told: tuple[str, ...], asked: str) -> list[str]:
    """The profile lines of the block a new conversation gets after Ana told `told` in one."""
    for said in told:
        await ana.add_messages("t1", [Message("user", said, name="Ana")])
    block = await ana.add_messages("now", [Message("user", asked, name="Ana")], return_context=True)
    return profile_of(block)


@pytest.fixture
async def ana(backend: LocalBackend) -> LocalBackend:
    await backend.ensure_user(UserProfile("ana", first_name="Ana"))
    for thread in ("t1", "t2", "t3", "now"):
        await backend.ensure_thread(thread, "ana")
    return backend


def test_self_statements_rank_by_what_they_are_about() -> None:
    allergy = self_statement("I'm allergic to peanuts.")
    taste = self_statement("I like green tea.")
    plain = self_statement("I went for a walk.")
    assert allergy and taste and plain
    assert allergy.salience > taste.salience > plain.salience
    assert self_statement("The weather is nice in Porto.") is None  # not about the speaker
    assert self_statement("We have two cats.") is not None  # the speaker's household
    assert self_statement("We should meet at the station.") is None  # a group, not a home
    assert self_statement("If I were rich I would buy a boat.") is None  # hypothetical


@pytest.mark.parametrize(
    ("weightier", "lighter"),
    [
        # the people a user answers for, above the rest of their people
        ("I'm a single dad of three boys.", "I have a niece and two nephews."),
        ("My wife and I are expecting twins.", "My best friend is getting married in June."),
        ("I have two kids under five.", "I have two sisters."),
        ("My husband is a graphic designer.", "My brother is a graphic designer."),
        # who the user is now (a single-valued subject), above what else they say of it
        ("I'm a primary school teacher.", "I take the train to work."),
        ("I live in a studio flat in Hackney.", "My flat gets very little sun."),
        ("I'm vegan.", "I like my coffee black."),
    ],
)
def test_what_shapes_a_users_days_outweighs_the_rest(weightier: str, lighter: str) -> None:
    heavy, light = self_statement(weightier), self_statement(lighter)
    assert heavy and light
    assert heavy.salience > light.salience
    assert kinds_of(weightier) & kinds_of(lighter)  # of the same kind of subject


@pytest.mark.parametrize(
    ("sentence", "kind", "read"),
    [
        ("I broke my wrist skiing last year.", "health", True),
        ("I sprained my left ankle.", "health", True),
        ("I broke the record last year.", "health", False),
        ("I'm on warfarin since the clot.", "health", True),  # a medicine
        ("I had a c-section in May.", "health", True),  # a procedure
        ("I had a stroke two years ago.", "health", True),
        ("That was a stroke of luck.", "health", False),
        ("I needed six stitches.", "health", True),
        ("I'm learning new knitting stitches.", "health", False),
        ("I had a kidney transplant.", "health", True),
        ("I transplanted my tomato seedlings.", "health", False),
        ("I make chilli with kidney beans.", "health", False),
        ("My grandad taught me to fish.", "pets", False),  # fishing, not a pet
        ("We keep tropical fish.", "pets", True),
        ("Going to a hen do in Dublin.", "pets", False),
        ("Our hens laid six eggs today.", "pets", True),
        ("I don't drive.", "constraints", True),
        ("I don't drive to work.", "constraints", True),
        ("I'm paying off my student loan.", "constraints", True),
        ("All my hard work is paying off.", "constraints", False),
        ("I'm a practising Catholic.", "identity", True),
        ("My friend Christian is visiting.", "identity", False),  # a name, not a faith
        ("From now on, use bullet points.", "home", False),  # "from", but no place
        ("I'm a civil servant.", "work", True),
        ("I'm a lorry driver.", "work", True),
        ("I had two knee replacements.", "health", True),
        ("I use crutches since the accident.", "health", True),
        ("I got my black belt in judo.", "fitness", True),
        ("I have a pacemaker.", "health", True),
        ("I stammer when I'm nervous.", "health", True),
        ("I'm a trainee solicitor.", "work", True),
        ("We go to church every Sunday.", "identity", True),
        ("I volunteer at the library.", "tastes", True),
        ("We've booked flights to Lisbon.", "plans", True),
        ("Our little one has reflux.", "health", True),
        ("Our little one has reflux.", "people", True),
        ("Gran is 95 and lives with us.", "people", True),
        ("The loss is nan after epoch 3.", "people", False),  # not a grandmother
        ("I've got severe arachnophobia.", "health", True),
        ("My uncle is homophobic.", "health", False),
        ("I'm afraid of heights.", "health", True),
        ("Dad had a triple bypass in May.", "health", True),
        ("We are pure veg, even egg also we don't take.", "diet", True),
        ("I fast Mondays and Thursdays (sunnah).", "diet", True),
        ("📍Lagos → Toronto", "home", True),  # a bio's pin on a place
        ("I get seasick on anything smaller than a car ferry.", "health", True),
        ("I have POTS, the tilt table test was brutal.", "health", True),
        ("Got CF, on Kaftrio now.", "health", True),
        ("I have ME/CFS, so my energy is very limited.", "health", True),
        ("Got a CPAP machine last week.", "health", True),
        ("I have pots and pans everywhere.", "health", False),
        ("I have a CF card for the camera.", "health", False),
        ("we get power cuts most days in our area", "home", True),
        ("I don't have a driving licence", "constraints", True),
        ("doing a 3-month rotation in Darwin at the ED", "work", True),
        ("I'm on a secondment in Leeds until March.", "work", True),
        ("We practise crop rotation.", "work", False),
        ("Settings → Privacy", "home", False),
        ("I fast forward the ads.", "diet", False),
        ("I'm a sole trader, so it's just me chasing invoices.", "work", True),
        ("I am an independent contractor.", "work", True),
        ("The contractor is late again.", "work", False),
        ("Got an interview at Google!", "work", True),
        ("It's a panel interview, 4 people, all remote.", "work", True),
        ("I watched an interview with the president.", "work", False),
        ("My husband is non-veg.", "diet", True),
        ("Fry it in pure vegetable oil.", "diet", False),
        ("We're on the 4th floor.", "home", True),
        ("It's about 18 square meters, shower included.", "home", True),
        ("Our team made the semi finals.", "home", False),  # a semi-final, not a house
        ("I'm a semi pro golfer.", "home", False),
        ("We live in a tiny studio.", "home", True),
        ("Which time zone are you in?", "home", False),
        ("I'm afraid to drive on motorways.", "health", True),
        ("Since then I am very afraid with the internet.", "health", True),
        ("Work question, I'm afraid.", "health", False),  # the apology, not a fear
        ("I'm afraid I can't make it on Friday.", "health", False),
        ("Been off the booze for six months.", "diet", True),
        ("Dave's been made redundant.", "work", True),
        ("Single at the moment.", "people", True),
        ("Met someone at a friend's wedding.", "people", True),
        ("I want recipes in grams, not cups.", "manner", True),  # how every answer is given
        ("The prices in euros are lower.", "manner", False),
        ("I'm in my early 30s.", "identity", True),  # an age, told roughly
        ("I'm nearly 50.", "identity", True),
        ("Just turned 40 and feeling it.", "identity", True),
        ("I paid nearly 50 quid for it.", "identity", False),  # a price, not an age
        ("Turn 2 and then left.", "identity", False),
        ("I took up pottery last year.", "tastes", True),  # a pastime taken up
        ("I practise the cello most evenings.", "tastes", True),  # an instrument played
        ("Always end your answers with a one-line summary.", "manner", True),
        ("I always start work at 8.", "manner", False),  # a habit, not how to answer
        ("I always start with coffee.", "manner", False),
        ("Our drum kit lives in the garage.", "tastes", True),
        ("The pianist was late.", "tastes", False),  # a player, not a pastime of the user's
        ("I'm going to propose to Sam at Christmas.", "people", True),
        ("We proposed to the board a four-day week.", "people", False),
        ("We're redoing the kitchen, so no oven until May.", "home", True),
        ("Redoing my CV tonight.", "home", False),
        ("I earn £2,400 a month.", "work", True),
        ("The role of vitamin D is debated.", "work", False),
        ("The meeting took up my whole day.", "tastes", False),  # time taken
        ("The boxes are taking up too much space.", "tastes", False),
        ("I'm hosting Thanksgiving this year.", "plans", True),
        ("Our hosting costs went up again.", "plans", False),
        ("14 of us, including the in-laws.", "people", True),
        ("i supervise nights at a distribution centre", "work", True),
        ("im on four on four off nights at the depot", "work", True),
        ("we do 7 til 7", "constraints", True),
        ("still on the walking frame indoors and sticks outside", "health", True),
        ("had the hip done in october", "health", True),
        ("had the kitchen done in october", "health", False),
        ("one bite and she comes up in hives", "health", True),
        ("I'm sitting CFA level 1 in february", "work", True),
        ("we do 10pm to 6am", "constraints", True),
        ("My partner and I live in Leeds.", "people", True),
        ("We pitched a partner company today.", "people", False),
        ("I smoke about ten a day.", "health", True),
        ("How do I tell if my smoke alarm battery is low?", "health", False),
        # "work out" is exercise, or figuring something out: never a job
        ("I work out three times a week.", "fitness", True),
        ("I work out three times a week.", "work", False),
        ("How do I work out what to charge for a new product?", "fitness", False),
        ("How do I work out what to charge for a new product?", "work", False),
        ("It worked out fine in the end.", "fitness", False),
        ("1st year at SGH, economics program in English.", "work", True),  # a year of study
        ("first year in the flat was rough", "work", False),
        ("My workout is short.", "work", False),
        ("Our smoke detectors keep beeping.", "health", False),
        ("he's using a walker now", "health", True),  # a walking aid
        ("Our dog walker is great.", "health", False),
        ("Currently growing a human, 24 weeks.", "health", True),  # a pregnancy
        ("I'm growing a beard for charity.", "health", False),
        ("We count carbs for every meal.", "diet", True),  # carb counting
        ("I count the days until the holiday.", "diet", False),
        ("We have twin boys, 4 years old.", "people", True),
        ("I have two little girls.", "people", True),
        ("Two girls from the office came.", "people", True),  # someone's, not the speaker's
        ("The twin engines failed.", "people", False),
        ("We're off-grid up in the Kootenays, solar only.", "home", True),
        ("doing dry january this year.", "diet", True),  # a month without drink
        ("after stroke i have aphasia.", "health", True),
        ("Below-knee amputation, 8 years now.", "health", True),
        ("My prosthetic leg liner rubs.", "health", True),
        ("The stroke of genius was hers.", "health", False),
        ("The summer was dry and January was cold.", "diet", False),
        ("The grid view is off.", "home", False),
        # phones and computers, by a word that owns them or a model's name
        ("it's a Pixel 7a with 128GB", "belongings", True),
        ("My laptop is a 2015 MacBook Air.", "belongings", True),
        ("We got the kids a Kindle each.", "belongings", True),
        ("I need to phone the bank.", "belongings", False),
        ("The image is 300 pixels wide.", "belongings", False),
        ("the tablets make me dozy", "belongings", False),  # a medicine
        # the eyes, and driving given up
        ("I stopped driving after my eyesight got worse.", "health", True),
        ("I have macular degeneration.", "health", True),
        ("I have low vision and use magnification.", "health", True),
        ("The vision statement is on the wall.", "health", False),
        ("I stopped driving after my eyesight got worse.", "constraints", True),
        ("I stopped driving to work when the bus came.", "constraints", True),
        # an injury of theirs, a condition named by its ending
        ("X-ray showed he fractured his right wrist.", "health", True),
        ("She broke the back door.", "health", False),
        ("vet says Bingo has hip dysplasia.", "health", True),
        ("Tendinitis again, from the rowing.", "health", True),
        ("They broke a record.", "health", False),
        # a religious observance of theirs
        ("I keep Shabbat, no phone from Friday sundown.", "identity", True),
        ("I'm fasting for Ramadan this month.", "identity", True),
        ("We kept the receipts.", "identity", False),
    ],
)
def test_kinds_tell_a_word_from_its_other_senses(sentence: str, kind: str, read: bool) -> None:
    assert (kind in kinds_of(sentence)) is read


@pytest.mark.parametrize(
    "sentence",
    [
        "btw i'm a night owl, usually up till 3am",
        "im on a budget of $50 a week for groceries",
        "Im allergic to cats.",
        "ive been vegetarian since 2019",
        "i work nights at the hospital",
        "Our wedding is in June.",
        "Our wedding anniversary is on the 14th of May.",
        "vegan btw",  # no "I", but told as news about the speaker
        "Just so you know, peanut allergy here.",
        "FYI: gluten intolerant.",
        "Note: wheelchair user.",
        "Mom of two toddlers, so evenings are chaos.",
        "Please always reply in Spanish.",  # how the user wants to be spoken to
        "From now on, keep your answers short, bullet points only.",
        "Never use emojis when you write to me.",
        "and please, when you explain me things, use simple english and short sentences.",
        "Please give me measurements in grams and Celsius from now on, I weigh everything.",
        "Please keep your answers short, I read them on my phone.",  # no "always", but "your"
        "Please don't use emojis in your replies.",
        "Stop using emojis.",
        "Please don't suggest anything with mushrooms.",
        "Do not include recipes with nuts.",
        "Please use metric units, I'm in Australia.",  # units and spelling stand for every turn
        "Please answer in British English.",
        "Please don't use American spellings, I'm British.",
        "Please keep replies short, I read them on my phone between meetings.",  # plural: all
        "Our budget for the kitchen is 15k, not a penny more.",  # the household's money
        "We're on a tight budget this year.",
        "the missus is pregnant again, due in may",
        "Severe arachnophobia here, don't even joke.",  # a note, then a word to the listener
        "Landed a job at the council, start Monday!",
        "Met someone!",
        "Please stop apologising so much.",  # how to speak, in a request's form
        "Skip the pleasantries and get to the point.",
        # how to speak, said as a complaint or a request to stop
        "Can you not use emojis with me?",
        "please don't call me dear or sweetie, it's weird coming from an AI.",
        "Can you drop the follow-up questions at the end?",
        "please don't sugarcoat, be brutally honest.",
        "Please stop saying 'Great question!' every time, it's patronizing.",
        "please don't moralize, I'm a crime reporter, I know it's bad.",
        "lol ur so formal, talk normal bro",
        "car is finally paid off!!!",  # a thing of theirs with the "my" dropped
        "Yours truly is 7 months pregnant.",  # the speaker by a stock phrase
        # owning and expecting, said as a joke
        "proud owner of one (1) lactose intolerant gut 🙃 had paneer butter masala last night "
        "and regretted every life choice",
        "Currently growing a human 🤰 24 weeks, send snacks.",
        # a home taken, with the "I" dropped
        "Just bought a place outside Wasilla.",
        "just rented a 2bhk in Koramangala with a big balcony.",
        "We just signed a lease in Dubai Marina.",
        "Finally settled in Kitsilano!!",
        # a treatment, with the "I" dropped
        "ok so doing IVF injections this month",
        # a long one read by its first clause, up to a comma when nothing else ends it
        "started doing keto 3 wks ago, lost 4kg already but feeling v tired in the evenings, "
        "is this normal",
        # a long one read by its first clause, up to an emoji or a sign
        "ok so doing IVF injections this month 💉 stims every night + trigger next week "
        "hopefully, fingers crossed",
        "on ozempic since jan, down 18 lbs.",
        "Taking metformin for my diabetes.",
        "first-time buyer here, scared witless",  # "X here" and an aside
        "Prices in euros please.",
        "Use 24 hour time.",
        "Please reply in Welsh where you can.",
        "Never suggest recipes with coriander.",
        "Going forward, always start with a TL;DR of two lines max.",  # what answers open with
        "Please answer in simple English.",  # the level of every answer
        "Please don't use abbreviations or tech jargon with me.",
        # chat's dropped "I"
        "Been vegan for 5 years now.",
        "Recently diagnosed with celiac.",
        "Currently pregnant with twins!",
        "Just got engaged!!",
        "Starting a PhD in chemistry this fall.",
        "Not a fan of mushrooms tbh.",
        "Really into bouldering lately.",
        "Living in Leeds these days.",
        "just adopted a kitten 🐱😍",
        "Have two dogs, both rescues.",
        "On a low-FODMAP diet for IBS.",
        "Booked Kilimanjaro for Feb!!",  # a trip, told as news
        "just booked 10 days in Oaxaca for February!!!",
        "learned Hangul last month!!",  # a skill taken up, told as news
        "Booked: Switzerland in August.",
        "yo just landed a ski season job in Queenstown, lift op at the remarkables.",
        "Shortlisted for final round at a fintech in Bengaluru!",
        "Ah'm on warfarin for the AF, the heart flutter thing.",  # Scots "I'm"
        # a reading of their own with the "my" dropped
        "ferritin was 8, gp says iron tablets.",
        "credit score is 580 after the divorce.",
        "Vit D 18 nmol/L.",
        "BP runs about 150/95 most mornings",
        "goal is a sub-3 marathon next year.",  # an aim, the "my" dropped
        # the household's rule on money; the year of a course
        "we don't do debt, period.",
        "yo, third year architecture at Westminster here, Part 1 crunch time.",
        # a labelled list of their own facts
        "facts: 36, vegan for 10 yrs, iron deficient (on supplements), running about 60km/week",
        "moi: 20 ans, étudiante en droit, allergique aux chats, tiny studio in Paris 11e",
        # the speaker's life told without "I" or "my"
        "theres a toddler in the house now (18 mo, into EVERYTHING) so the old routines are out",
        "The little one starts school in September so everything at the minute is uniforms and "
        "name labels 🙃",
        "Gluten's been off the menu completely since the coeliac diagnosis in May.",
        "There is a cat who owns this apartment, 3 years old and very curious.",
        "Nearest supermarket is a 2 hour round trip so the big shop happens once a fortnight.",
        "The old dog has gone blind this year, 13 now, but still happy and wagging.",
        # a bio line of the user's, quoted for editing too
        "Right now it just says: dad of 3 👦👦👧 | nurse 🏥 | runner 🏃 | Bristol",
        "'Software QA 🧪 | Arsenal till I die ⚽ | 📍Lagos → Toronto | jollof supremacy 🍛'",
        "Current opener: 'Civil engineer | Johannesburg | hard of hearing, fluent lipreader'",
        # a birth, told as the household's news, however long
        "The twins arrived on the 3rd, a bit early but both grand thank God, Oisín and Clodagh.",
        "The baby came early!",
        "Learned to drive last year.",
        "Had a stent put in back in March.",
        "'I am allergic to penicillin.",  # a passage of their own in single quotes opens
        "Work from home Mondays and Fridays.",
        "Trying to lose about 10 kg before summer.",
        "Lactose intolerant here lol",
        # and the dropped "my"
        "Husband is vegetarian, kids eat everything.",
        "Wife's birthday is on Friday.",
        "Hubby has diabetes.",
        "Being a single mom is exhausting.",
        "Wife's a surgeon, so she works crazy hours.",  # "'s" for "is"
        "Dog's name is Pepper, she's a beagle.",
        "Kids are 4 and 7.",
        "Parents are visiting from Seoul next week.",
        "Money's tight until the end of the month.",
        "New job starts Monday.",
        # trips, work and tastes without "I"
        "Heading to Barcelona on Friday for a conference.",
        "Off to Iceland next month!",
        "Gonna be in Tokyo all of next week.",
        "Started at KPMG this week.",
        "Joined Spotify as a data analyst last month.",
        "Been a nurse for 12 years.",
        "Enjoying retirement so far.",
        "Hate cooking, honestly.",
        "Into woodworking these days.",
        "Obsessed with sourdough baking lately.",
        "Can't get enough of true crime podcasts.",
        "Absolutely love gardening.",
        "Really enjoy cooking Thai food.",
        "Avid reader, mostly sci-fi.",
        "Keen cyclist.",
        "Lifelong Yankees fan.",
        "Been a Spurs season ticket holder for 20 years.",
        # work, told without "I"
        "WFH mostly.",
        "Between jobs at the moment.",
        "Currently on parental leave.",
        "Working two jobs right now, a café in the mornings and a bar at night.",
        "Working remotely these days.",
        "Been playing guitar in a covers band for years.",  # a pastime kept for years
        "30 min practice on digital piano every day.",  # an instrument, a routine's time
        "update!! it's twins!!",  # a baby's news
        "I'm a data engineer and I write Python all day.",  # of a kind: code words or none
        "running this on my raspberry pi 4 homelab (4gb) if that matters",
        "I like that band a lot.",  # a taste, not a pick
        "I like 3 sugars in my tea.",
        "I love it in Lisbon.",
        "Having a baby in May!!",
        "Lost 15 kilos this year by walking every day.",
        "Teaching English in Seoul.",
        "Looking for a new job in Leeds.",
        "Newly single after 8 years.",
        "Big Arsenal fan here.",
        "Our corgi Waffles hates the rain.",  # a breed is a pet
        "Not a morning person at all.",  # what kind of person the speaker is not
        "Not much of a cook, honestly.",
        "Proud dog mom of three.",  # "proud", not "proud of" someone
        "Grandma to seven, and they all come for Sunday lunch!",
        "In a long-distance relationship with someone in Chile.",
        # telegraphic notes on the speaker's health, diet, people, pets, work
        "Diabetic, type 2.",
        "Nut allergy, severe.",
        "Two kids, one dog, zero free time.",
        "Sober 2 years this week.",
        "Teetotal since 2019.",
        "Currently renovating a Victorian terrace in Bristol.",
        "Renovating our kitchen at the moment.",
        "Third trimester now.",
        "Back from chemo, feeling tired.",
        "Gluten-free household here.",
        "Bad back, so no heavy lifting please.",
        "Shellfish allergy, so be careful with recipes.",  # a caution to the listener after it
        "Job hunting, it's brutal.",  # a comment on the note
        "Job hunting, it's been a nightmare.",
        "Going through a divorce right now, so things are rough.",
        "Fluent in Spanish and French, a bit of German.",
        "Learning to play the piano.",
        "Started learning Japanese.",
        "Started learning the cello in January, total beginner.",  # a subject with its article
        "Taking up the violin again.",
        "Training for a half marathon in May.",
        "Training to be a pilot, checkride next month.",
        "Moving house this weekend, from Leeds to York!",  # "this" of a time, not a reaction
        "Gonna propose to Hana in Kyoto next month, don't tell anyone!",
        "About to start a new job at Google.",
        "ngl the new job at the hospital pharmacy is intense",  # "the new job" is the speaker's
        "We're doing up an old farmhouse in Normandy.",
        "Based in Leeds.",
        "Big into board games.",
        "Two left feet, can't dance.",
        "Newly qualified electrician!",  # news headed "newly", not an exclamation at the listener
        "Retiring in June after 40 years at the post office.",  # no post of someone's
        "Currently on a Couch to 5k plan.",
        "Mine's a pretty strict budget, about £200 a month for food.",  # "mine" of a kind
        "Never learned to drive.",
        "Drive an old Land Rover.",
        "Run a small Etsy shop selling candles.",
        "Half Japanese, half Scottish.",  # capitals of a heritage, not names in passing
        "Landlord just gave us notice.",
        "Promoted to head chef!",
        "Training for Ironman Wales.",
        "Renting a tiny studio in Paris.",
        "Big Liverpool fan.",
        "Twins due in April!",
        "Starting a new role at the BBC on Monday.",
        "Currently on furlough.",
        "Can't lift anything heavy after the surgery.",
        "Flat hunting in Berlin.",
        "New house has no heating yet.",
        "Honeymoon in Bali next month!",
        "Two weeks in Vietnam in October, starting in Hanoi.",  # a stay told bare: a trip
        "had the hip done in october, still on the walking frame indoors",  # "I" left out
        "The eldest's allergic to cats.",
        # a long sentence read by its first clause
        "Also the little one's got a thing with eggs — one bite and she comes up in hives, so "
        "cooking's a bit of a minefield.",
        "A long weekend in Lisbon.",
        "ten days in japan in april",
        "Earn about 30k a year.",
        "Only free on weekends.",
        "On call this week.",
        "Prefer trains to planes.",
        "Can spend up to £50 on the gift.",
        "From Texas originally.",
        "Catholic, practising.",  # a faith noted bare
        "Muslim, so no pork.",
        "No sugar, doctor's orders.",  # "no" of a diet, not an interjection
        "Gym at 6am most days.",  # a routine
        "Trans woman, she/her.",  # pronouns named, not used
        "Dual citizen, US and UK.",  # the country, not "us"
        "Atheist, for what it's worth.",
        "Left-handed, for what it's worth.",
        "Been doing CrossFit four times a week for three years.",
        # what the household owns
        "Our car is an old Prius.",
        "We have a boat moored in Sausalito.",
        "We drive a Volvo.",
        "Our old Volvo finally died.",  # a car by its maker's name
        "We own a cabin near Tahoe.",
        "We don't have a garden, just a small balcony.",  # what it lacks tells as much
        "We're an Apple household so it's going to be an Apple Watch.",  # its things' brand
        "We're a two-car household.",
        "We've had a heat pump since last winter.",  # owned for a while
        # the home itself: its kind, size, floor, zone and what is wrong with it
        "Ours is a 1930s semi with a north-facing garden.",
        "We've got a 1950s weatherboard in Karori.",
        "we're on the 4th floor, no lift",
        "We live in a 28 square metre studio flat.",
        "fort collins, we're zone 5b, semi arid",
        "tiny studio, 22 square metres, but 3 min to the station.",  # the home, noted
        "2-bed flat, top floor, no lift.",
        "The builder said there's asbestos in the ceiling, so we're leaving it alone.",
        "Just bought a motorbike.",
        "Got a new car last week.",
        # where the speaker lives, comes from, goes
        "Just moved into a studio in Brooklyn.",
        "Originally from Ghana.",
        "Born and raised in Glasgow.",
        "Raised in Ohio.",
        "grew up in lagos, been in london ten years",  # typed without capitals
        "Grew up on a farm.",
        "Planning a trip to Japan in October.",
        "Going to Lisbon next week.",
        "Visiting Rome in May.",
        "Just got back from Japan.",
        "Graduated in May.",
        "As someone with anxiety, crowds are tough.",
        "Not being able to eat gluten is annoying.",
        "Turned 40 on Sunday.",
        "turning 40 next month and honestly dreading it",
        "New puppy!!!",  # an exclamation that heads with "new": the speaker's news
        "New job!",
        "This is Bruno, our rescue pup.",
        "Say hi to Milo, he's our bearded dragon.",
        "New to Chicago, just moved from Atlanta.",
        # the household's people, with "the" for "my"
        "The kids are 5 and 8.",
        "We have a toddler and a newborn.",
        "We homeschool our two girls.",
        # a child's schooling, the household's decision
        "We decided to take Hana out of school.",
        "We've started homeschooling her this term.",
        # arriving somewhere with a kind of the speaker's: the move told as news
        "Landed in Berlin last week for the new job!",
        "Arrived in Lisbon for my sister's wedding.",
        "We're both nurses.",  # what each of a group is, the speaker too
        "We're all retired teachers in our 70s.",
        "We are all vegetarians.",
        "We're a same-sex couple planning to adopt.",
        "Our stack is Django and React, deployed on AWS.",  # the speaker's workplace
        "Our security team blocks ChatGPT plugins.",  # its rules and tools, of any kind
        "we're on GKE autopilot.",
        "we use Xero and Shopify",
        "Only IT-whitelisted apps can be installed on our machines.",
        "We only have satellite internet out here, and it is dreadfully slow when it rains.",
        # a taste told as the speaker's view
        "Unpopular opinion but avocado is the worst.",
        "hot take: raw tomatoes are my nemesis.",
        "We're a B2B SaaS company selling to hospitals.",
        "Our team is fully remote across 6 time zones.",
        "Our fiscal year ends in June.",
        "We have a 3-year-old and another on the way.",  # a child by their age
        "Went keto in January, down 8 kilos so far.",
        "Not great with spicy food.",
        "Scared of needles.",
        "Can't swim.",
        "Veggie btw.",
        "Work's been insane.",
        "Currently in Bali for a few weeks.",
        "Lived in Tokyo for five years before moving back to Manchester.",
        "Three months smoke-free now!",  # a milestone, though exclaimed
        "Two years sober today!",
        "Ended up going with a Kia Picanto in the end.",
        "We're thinking of buying a Toyota Yaris.",  # what the household means to own
        "Back in London after two years in Dubai!",
        "im 6 months postpartum and knackered lol",  # "im" before a number
        "Moved here from Manila.",
        "Been a physio for ten years.",
        "started at kpmg last month as an auditor",  # no capitals: the occupation tells
        "i'm 72 years old",  # a lowercase "i'm" before a number
        # after an aside
        "Honestly, being a teacher is exhausting.",
        "Ugh, just got diagnosed with asthma.",
        # after a short opening clause or two
        "Sorry for the late reply, just got back from Japan.",
        "Sorry, typing one-handed, just had carpal tunnel surgery.",
        "Update: got the job at Deloitte!",
        "Ok so, moving to Berlin next month.",
        # a baby on the way, told the ways parents tell it
        "We're expecting our first in March!",
        "We are expecting!",
        "Baby number two is due in May!",
        # money saved for, owed and short
        "Saving hard for a house deposit, so every penny counts right now.",
        "Paying off my credit card.",
        "Skint until payday.",
        # a faith, the speaker's or the household's; traits and pronouns
        "We're Jehovah's Witnesses so we don't do birthdays.",
        "We're Muslim, so no pork at the party.",
        "As a left-handed guitarist, which beginner guitars should I look at?",
        "I'm a trans man, he/him please.",
        # a standing instruction asked as a question, or with "from now on" last
        "Can you make your answers bullet points from now on?",
        "Could you always answer in bullet points?",
        "Will you use metric from now on please?",
        "Please use bullet points from now on.",
        # ... and the reason after it
        "Please give me answers in bullet points from now on - I skim everything on my phone.",
        "Keep answers short from now on, since I read them between meetings.",
        # a new shift pattern told with chat's dropped "I"
        "Just moved onto night shifts on the ICU - four nights on, four off.",
        "3 kids under 5, so quiet is a distant memory lol",  # a note, then what it means
        "Don't like spicy food at all, even black pepper is too much.",
        "Only have Tuesday and Thursday evenings free for the gym.",
        "We've got a holiday booked to Crete in August.",  # the household's trip ahead
        "We've booked flights to Tokyo for the cherry blossom.",
        "We're going to Rome for Easter.",  # on its way to a place by its name
        "We're flying to Lisbon next week.",
        "Been volunteering at the food bank every Saturday for years.",
        "Do the school run every morning, so nothing before 9:30.",
        # the speaker's home and household with a dropped "my"
        "landlord was really clear, no drilling at all, its in the contract",
        "kitchen is one counter and a two-ring hob, no oven",
        "backyard in perth is pure sand mate, water just runs straight through it.",
        "the whole flat is tiny tbh",
        "The landlord says no pets.",
        # the trade of someone of theirs, named or "she"
        "Dana's at work till late anyway, she's a pastry chef at a hotel so her hours are mad",
        "Mum's a nurse.",
        "big news, we're expecting again!!",
        # the household's savings
        "Update! We've revised our target down to £15k.",
        "We're saving £400 a month for a deposit.",
        "Can you suggest a dinner that Cillian, who's 6, and Nora, who's 3, will eat?",
        # the fact offered as an aside, not a supposition
        "if relevant, I'm lactose intolerant — what's a good breakfast that isn't eggs?",
        "if it matters, I'm a wheelchair user, so the walls are probably out",
        "In case it helps, we're vegetarian.",
        # the user's own trade's hours and prices, as "we"
        "we open 6am to 2pm every day except thurs.",
        "We charge 35 euros per hour, it includes the products.",
        "Also the order for the supplier, we are closed on Mondays so delivery is Tuesday.",
        # the household's
        "We have twin boys, 4 years old, and every morning they fight at breakfast.",
        "We're off-grid up here in the Kootenays, solar only with a 10 kWh battery bank.",
        # service, with the "I" dropped
        "did two tours in Helmand with the army, 2008 and 2010.",
        "served in the navy for 12 years.",
        # a pet or a child with its age, and more, beside the name
        "Toast (poodle mix, 3) has separation anxiety.",
        "Leo (7, obsessed with lego) wants a dinosaur party.",
    ],
)
def test_chat_spelling_and_household_milestones_join_the_profile(sentence: str) -> None:
    assert self_statement(sentence) is not None


@pytest.mark.parametrize(
    ("sentence", "plan"),
    [
        ("I'm presenting at the ESTRO congress in Vienna on March 18.", True),
        ("I registered for the Georgia bar on July 30 and 31.", True),
        ("Our wedding anniversary is on the 14th of May.", True),
        ("I won the regional chess tournament.", True),
        ("I may 5 times a week go swimming.", False),  # "may", the verb
        ("I hate presenting.", False),
    ],
)
def test_a_day_of_the_calendar_or_an_event_is_a_plan(sentence: str, plan: bool) -> None:
    assert ("plans" in kinds_in(sentence)) is plan


@pytest.mark.parametrize(
    "sentence",
    [
        "Use a VPN, i.e. a private network, when travelling.",  # a lowercase "i" that is no one
        "Wir wohnen im Zentrum.",  # German's "im" before a noun
        "Wir sind im 3. Stock.",  # or a number
        "We are going to the cinema tomorrow.",  # a group's plan, not the household's
        "FYI the restaurant has vegan options.",  # news, but of something else
        "Heads up: the gym closes early on Sundays.",
        "By the way, Paris is lovely in spring.",
        "It always rains here in November.",  # "always", but no instruction
        "Our marketing budget for Q3 is 2M.",  # a workplace's money, not the household's
        "We're over budget on the project.",
        # an opener without "I" that points at something else
        "Love the way you explain things!",
        "Hate when that happens.",
        "Got home late.",
        "Moving on to the next question.",
        "Working on it.",
        "Getting late, talk tomorrow!",
        "Had a great time at the party.",
        "On the news they said diabetes rates are up.",
        "Dad jokes are the best.",
        "Getting to work is a nightmare.",
        "Love the pics of the kids.",  # a reply to someone else's news
        "Kids are amazingly resilient.",  # kids in general, not the speaker's
        "Kids are amazing.",
        "Love is truly magical.",  # "love" the noun
        "Love and acceptance can be found everywhere.",
        "Love seeing all the new places!",
        "Love the chef's special!",  # a reaction, whatever it names
        "Heading to the store.",  # no place named
        "Same here.",
        "Right here.",
        "Started raining here.",
        "Proud of you, sis.",
        "Not a problem.",
        "It's cold here.",
        "Yeah, work can be tough.",  # a subject after the interjection
        "Keep up the good work!",
        "Love the colors and the sunset vibe.",
        "Being a pro basketball player must be quite a journey.",
        "[shares a photo of a family picnic]",
        "Congrats on the new job!",
        "Sorry about the dog.",
        "Great job on the marathon!",
        "That dog is huge.",  # a subject of its own
        "We have a meeting at 3.",  # a group's, and nothing the household owns
        "Can we take your car?",  # the speaker and the listener
        "Going to bed now.",  # no place named
        "Bought tickets for the show.",  # nothing of the speaker's kinds
        "The dog is a good breed for families.",  # dogs in general
        "The kids in the video are hilarious.",  # someone else's
        "Seriously, getting late.",
        "Got back from the shops.",  # no place named
        "Saving for later.",  # a bookmark, not money put by
        "Busy week, so dinner is late.",  # a note on nothing of the speaker's kinds
        "Our trip to Rome was amazing.",  # a trip told of, not one ahead
        "Yeah, our trip got off to a bad start.",
        "Only two days left!",
        "Don't suggest that again.",  # this once, not from now on
        "The page turned 3 times.",  # a number after "turned", but no age
        "Turned it off and on again.",
        "Not being able to find the remote is annoying.",  # nothing of the speaker's kinds
        "Graduated cylinders are used in chemistry.",
        "Girls just want to have fun.",  # girls in general
        "Do not include spaces in the password.",  # this task's, not a standing preference
        "We took a boat tour in Venice.",  # an outing, not a belonging
        "We're all going to the cinema.",  # a group's outing
        "We're both tired.",
        "We're all in the same boat.",
        "We went to the office party.",  # an outing, though at work
        "Our team won 2-0 last night.",  # a team the speaker supports
        "We all have unique paths, and by working together we can change things.",
        "We spent a couple of days in Rome.",  # "a couple of" is no couple
        "We should buy a boat someday, haha.",
        "Our company just bought a new truck.",
        "We're on Monday's flight.",  # a day, not a tool
        "Crazy about the weather today.",  # a taste is named bare
        "Enjoy the show.",
        "Enjoy your meal!",
        "Amateur hour over there.",
        "Keen observation, thanks.",
        "New to this, sorry.",
        "Honestly, love the colours!",
        "Sad news, it was the president's wife.",  # the comment names someone else
        "The market crashed, things are rough.",  # a subject before the comment
        "Learning to code is hard.",  # learning as a subject: a view, not a pastime
        "Renovating the old town hall took years.",
        "Learning a lot today.",
        "Learning the hard way.",
        "Learning the ropes, slowly.",  # no subject taken up
        "Learning a few things from this thread.",
        "Training for a marathon is hard.",  # training as a subject: a view
        "Gonna watch a movie.",  # nothing of the speaker's kinds
        "Love this!",
        "Hate this weather.",
        "The new job posting is live.",
        "Big into it.",
        "Love the post!",
        "Run a quick search for flights.",  # a request to the listener
        "Drive a hard bargain.",
        "Renting a car for the trip.",  # not a home
        "rented a car for the trip",
        "Doing the dishes now.",
        "Based in reality, that's unlikely.",  # no place
        "The new job market is tough.",
        "Mine was better.",
        "Promoted tweets are annoying.",  # a subject of its own
        "Catholic churches are beautiful.",
        "Museums free on Sundays, apparently.",  # a routine of no pastime or work
        "Closed on Mondays.",
        "Prices change weekly.",
        "No, that's wrong.",
        "The US is huge.",
        "Toyota recalled a million cars.",  # a maker's name, no owner
        "Raised in the meeting, the budget.",
        "Went to the shops.",
        "Currently in a meeting.",  # no place named
        "Use the US address.",  # this task's
        "Been loving this weather for weeks.",
        "Having a supportive team is awesome.",  # having as a subject: a view
        "Yeah, had a great time.",  # nothing of the speaker's kinds after the opening
        "He said, just got engaged.",  # the opening has a subject: someone else's news
        "The relationship between inflation and rates is complex.",
        "Sorry about your dog, had a cat like that.",
        "Moved on from that.",
        "Not good with names, sorry!",
        "New episode tonight!",  # news, but of nothing of the speaker's kinds
        "A new puppy!",  # an echo of someone else's news
        "Turning the oven off now.",  # no age after "turning"
        "Lived and learned.",
        "Two weeks to go!",  # a span, but nothing of the speaker's kinds
        "Two weeks in, still no reply.",  # a span gone by, no place
        "A week in bed with flu would be awful.",  # no place by its name
        "Ended up going home early.",
        "We're going to buy tickets.",
        "We're going to the park.",  # no place by its name
        "We broke up the fight.",
        "The house is a 100-year-old cottage.",
        "The kitchen is the heart of the home.",  # "the": anyone's kitchen
        "The oven is key here.",
        "She's a chef's daughter.",
        "It's a designer bag.",
        "We're saving the best for last.",
        "Our sales target is £2M this quarter.",  # a workplace's
        "We're expecting rain all weekend.",  # expecting something else
        "Expecting a parcel today.",
        "We don't have time for this.",  # nothing the household owns
        "We went to a support group.",  # support, but no team
        # a pick among the options the assistant just gave says which, not what the user likes
        "I like the third one very much.",
        "I like 3.",
        "ok I like the second option.",
        "I like 2 but change the title.",
        "I like that",
        "I like the sound of that.",
        "oh I love the idea of this one",
        "It's a girl thing.",  # no baby's news
        # the task at hand in code, file or error names, of no kind
        "I have orders(id, customer_id, total, created_at).",
        "Getting 'ModuleNotFoundError: No module named requests' but I installed it with pip.",
        "My config.yaml has debug = true.",
        "They're an Apple household.",  # someone else's household
        "Python (3.8, the old one) is what runs.",  # no age beside a name
        "If I moved to Berlin, I'd need a new job.",  # a supposition
        "In case I forget, remind me about the dentist.",
        "We did three tours of the vineyards.",  # tours of no duty
        "We're open to ideas.",  # open to no hours
        "We open presents at Christmas.",
        "We had a boat once.",  # no longer theirs
        "Booked it.",  # nothing named
        "So 'I work here since three years' is wrong",  # words quoted, not said of oneself
        "soil is wet yeah.",  # a pot's, not the home's
        "Learned that the hard way.",
        "The parcel arrived on the 3rd.",
        "| Home airport | YYC | Dates | Oct 3-20 |",  # a table's row
        "The kids look so cute, Mel!",  # anyone's kids
        "Since the update, the app keeps crashing.",  # no event of the speaker's
        "The results were a | b | c",  # values of no kind
        "Big house, lots of rooms, sleeps 12",  # a rental looked for, no home noted
        "learned a lot today",
        "Iron is 26 in the periodic table.",  # no reading of anyone's
        "We don't do debt collection.",  # a firm's line of work
        "second year in a row we go to Crete.",  # no course
        "Landed in Tokyo!",  # arrived, with nothing of the speaker's life
        "The plane landed in Oslo for refuelling.",  # a subject of its own
    ],
)
def test_what_is_not_the_speaker_stays_out(sentence: str) -> None:
    assert self_statement(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("mi esposo works nights at the port", "people"),
        ("a minha mãe tem Alzheimer, early stage", "people"),
        ("mio figlio è autistico, ha 7 anni", "health"),
        ("ma fille a 8 ans and she's allergic to eggs", "health"),
        ("Mein Mann is a nurse on the stroke ward", "people"),
        ("mój mąż doesn't drive", "people"),
        ("meri beti has asthma", "health"),
        ("ang asawa ko is a seaman", "people"),
        ("ich bin Veganerin seit 2019", "diet"),
        ("soy celíaca so no wheat at all", "health"),
        ("sono incinta, 20 settimane", "health"),
        ("jag är laktosintolerant", "diet"),
        ("Mon fils Hugo a 6 ans et il est autiste", "health"),
        ("Moro em Curitiba com a minha esposa", "home"),
        ("j'ai adopté un greyhound, il s'appelle Filou", "pets"),
    ],
)
def test_the_speakers_own_words_in_another_language(sentence: str, kind: str) -> None:
    # "my", "I am" and family words of the languages chat mixes into English
    reading = self_statement(sentence)
    assert reading is not None
    assert kind in kinds_in(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "The trail is 5 mi from the car park.",  # miles
        "Soy sauce has gluten in it.",  # the bean
        "mon to fri the shop is shut.",  # a weekday
        "Ma and Pa Kettle was on TV.",
        "pressure cooker mein kitni seeti?",  # Hindi "in", not German "my"
        "el mes pasado fue lluvioso.",  # a month
        "Saya loves the park by the river.",  # a name, not Indonesian's "I"
        "Mon morning is too early for a call.",  # a weekday, not French's "my"
    ],
)
def test_look_alikes_of_another_languages_my_stay_out(sentence: str) -> None:
    assert self_statement(sentence) is None


@pytest.mark.parametrize(
    ("sentence", "fitness"),
    [
        ("I run about 30 km a week.", True),
        ("I go to the gym three times a week.", True),
        ("I run a small bakery.", False),  # running a business is no sport
        ("Been doing CrossFit for three years.", True),
        ("Signed up for a half-marathon.", True),
        ("We love having movie marathons.", False),  # a marathon of films
    ],
)
def test_sport_is_a_kind_of_its_own(sentence: str, fitness: bool) -> None:
    assert ("fitness" in kinds_of(sentence)) is fitness


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("Heading to Barcelona on Friday for a conference.", "plans"),
        ("Off to Iceland next month!", "plans"),
        ("Big Arsenal fan here.", "tastes"),
        ("Been a nurse for 12 years.", "work"),
        ("Joined Spotify as a data analyst.", "work"),
        ("I quit smoking in January.", "health"),
        ("Our corgi Waffles hates the rain.", "pets"),
    ],
)
def test_kinds_a_search_can_ask_for(sentence: str, kind: str) -> None:
    assert kind in kinds_of(sentence)


@pytest.mark.parametrize(
    ("sentence", "kinds"),
    [
        # read in any case; a wife also weighs as one the user answers for
        ("MY WIFE IS ALLERGIC TO NUTS.", {"people", "health", "diet", "dependants"}),
        ("Started at Shopify last week.", {"work"}),  # a capitalised name after "started at"
        ("started at noon today.", set()),  # a lower-case word there is no employer
        ("Please always reply in Spanish.", {"manner"}),
    ],
)
def test_kinds_read_the_words_in_any_case_and_names_by_their_capitals(
    sentence: str, kinds: set[str]
) -> None:
    assert kinds_in(sentence) == kinds


def test_a_kind_read_from_lower_cased_text_must_be_written_in_lower_case() -> None:
    with pytest.raises(ValueError, match="lower case"):
        profile._kind("work", 2.0, r"\bI work\b")
    assert profile._kind("work", 2.0, r"\bi work\b\W").touched("I WORK!", "i work!")


def test_chat_spelling_finds_single_valued_subjects() -> None:
    reading = self_statement("im living in Madrid now")
    assert reading is not None and reading.topics == ("home",)


@pytest.mark.parametrize(
    ("sentence", "topics"),
    [
        ("I live in Porto.", ("home",)),
        ("I just moved to Lisbon to work at the Oceanarium.", ("home",)),
        ("I relocated from Toronto to Melbourne last month.", ("home",)),
        ("I work as a nurse.", ("work",)),
        ("I work remotely for Stripe.", ("work",)),
        ("I work part-time at the library.", ("work",)),
        ("I work hard for my family.", ()),
        ("I started a new job at the bank.", ("work",)),
        ("I'm vegetarian now.", ("diet",)),
        ("I follow a keto diet.", ("diet",)),
        ("I'm married.", ("relationship",)),
        ("We just moved to Berlin!", ("home",)),  # the household moved
        ("I no longer live in Porto.", ("home",)),  # a negation still speaks of the subject
        ("I don't work at the bank anymore.", ("work",)),
        ("I'm not vegan anymore.", ("diet",)),
        ("I'm no longer married.", ("relationship",)),
        ("I don't live far from the sea.", ()),  # "don't" without "anymore": nothing new
        ("I don't work for free.", ()),
        ("Ana and I broke up last week.", ("relationship",)),
        ("I've been seeing someone new, his name is Femi.", ("relationship",)),
        ("My sister lives in Rome.", ()),  # her home, not the speaker's
        ("I moved the meeting to Friday.", ()),  # a thing moved, not a home
        ("We moved the standup to ten.", ()),
        ("I've moved teams at work, now on the payments team.", ()),  # a team, not a home
        ("I moved jobs last year.", ()),
        ("I moved onto night shifts.", ("schedule",)),  # the hours worked, not a home
        ("I moved to a new role in March.", ()),
        ("I moved to the day team.", ()),
        ("I moved onto a houseboat.", ("home",)),
        ("We moved house in May.", ("home",)),
        ("We just moved!", ("home",)),
        ("Just moved to Leeds!", ("home",)),  # chat's dropped "I"
        ("Just moved into a studio in Brooklyn.", ("home",)),
        ("I'm a translator.", ("work",)),  # an occupation: the job, which a newer one ends
        ("Relocated to Madrid for work last month.", ("home",)),
        ("Changed careers, I'm a software developer now.", ("work",)),
        ("Husband is vegetarian.", ()),  # his diet, not the speaker's
        ("I'm moving to Berlin next month.", ()),  # a plan: the user still lives where they do
        ("I'm relocating to Austin for work in June.", ()),
        ("I love my job.", ()),  # speaks of the job, does not change it
        ("My job is so stressful this week.", ()),
        ("I got a job offer from a clinic in Leeds!", ()),
        ("My new job is at a clinic in Leeds.", ("work",)),
        ("My job is as a charge nurse now.", ("work",)),
        ("I got laid off last week.", ("work",)),
        ("I went vegan in January.", ("diet",)),
        ("I live with two roommates.", ()),  # how, not where
        ("I live near the beach.", ()),
        ("I live in a small flat on the fifth floor.", ()),
        ("I live in a flat in Porto.", ("home",)),
        ("I'm renting a flat in Hackney.", ("home",)),
        ("We rent a tiny studio in Paris.", ("home",)),
        ("I rent a 2-bed in Leeds.", ("home",)),
        ("Got the keys to the car.", ()),
        ("We're renting a car in Spain.", ()),  # rented, but not lived in
        ("I rent a van in Leeds for the move.", ()),
        ("I retired last month.", ("work",)),
        ("Just retired from teaching!", ("work",)),
        ("I retired my old laptop.", ()),
        ("Started at Aldi today.", ("work",)),
        ("I started at the gym this week.", ()),  # no employer named
        ("It was my 30th birthday yesterday!", ("age",)),
        ("I'm 5 minutes away.", ()),
        ("im 15 btw", ("age",)),
        ("It was my sister's 30th birthday yesterday!", ()),
        ("Just had my 26th birthday.", ("age",)),
        ("We celebrated my mum's 60th birthday.", ()),
        ("I've started eating fish again.", ("diet",)),
        ("I've started eating healthier.", ()),  # how well, not what
        ("vegetarian since i was 12", ("diet",)),  # noted without "I", an "i" after it
        ("My favourite band is Muse.", ("favourite-band",)),  # a favourite of its own kind
        ("My fave food at the moment is sushi.", ("favourite-food",)),
        ("My kids' favourite game is Uno.", ()),  # the children's
        ("We broke up last week.", ("relationship",)),  # the user and their partner
        ("Sam and I aren't together anymore.", ("relationship",)),
        ("We've just got married!", ("relationship",)),
        ("I'm in a relationship.", ("relationship",)),
        ("I broke up the fight.", ()),  # a fight, not a couple
        ("My boyfriend and I moved in together.", ("home", "relationship")),
        ("I live in the Bay Area.", ("home",)),
        ("i live in lisbon now", ("home",)),  # typed without capitals
        ("i live in a small flat", ()),
        ("I lived in London for two years before this.", ()),  # the past, not a change
        ("I moved here from Braga in 2019.", ()),  # how the current home came about
        ("I'm a volunteer at the food bank on weekends.", ()),  # no employer, no occupation
        ("I'm a junior at Ohio State.", ()),  # a year of studies, not a job
        ("I'm a senior analyst at Google.", ("work",)),
        ('How do I say "I\'m pescatarian" in French?', ()),  # quoted, not said of oneself
        ("I'm a junior developer at a fintech now.", ("work",)),
        ("I'm a product owner at Spotify.", ("work",)),
        ("I'm a senior software engineer at Google.", ("work",)),  # three words before "at"
        ("I'm a secondary school maths teacher.", ("work",)),  # three before the occupation
        ("Finally quit the bank, I'm a full-time baker now!", ("work",)),
        ("Not at Google anymore - joined a startup called Loom.", ("work",)),
        ("Also I quit nursing, I'm retraining as a teacher.", ("work",)),  # a field left
        ("I left teaching last year.", ("work",)),
        ("I stopped sales calls after lunch.", ()),  # a task, not a field
        ("I'm a terrible artist.", ()),  # a judgement, not a job
        ("I'm an amateur photographer.", ()),  # a pastime
        ("I joined a book club called Page Turners.", ()),
        ("I'm on the keto diet.", ("diet",)),
        ("Gave up keto, it wasn't for me.", ("diet",)),
        ("I've got a girlfriend now, her name's Leah.", ("relationship",)),
        ("I got a new partner for the project.", ()),
        ("I'm a mother of a nurse.", ()),  # someone else's occupation
        ("I got the job at Stripe!", ("work",)),
        ("Today was my first day at Stripe.", ("work",)),
        ("I'm now working at Stripe as a data analyst.", ("work",)),
        ("My new employer is Stripe.", ("work",)),
        ("I accepted an offer from Stripe.", ()),  # not started yet
        ("I've been living in York since the summer.", ("home",)),
        ("My new apartment has a balcony!", ("home",)),
        ("We bought a house in York and moved in last month.", ("home",)),
        ("I have a girlfriend now, her name is Mia.", ("relationship",)),
        ("I'm seeing someone, it's early days.", ("relationship",)),
        ("I'm seeing Dr Patel about my knee tomorrow.", ()),
        ("I'm dating Sam now.", ("relationship",)),
        ("My wife and I got divorced last year.", ("relationship",)),
        ("I got married in June.", ("relationship",)),
        ("I just got engaged!", ("relationship",)),
        ("Pizza is my favourite food these days.", ("favourite-food",)),  # named after
        ("Muse is still my favourite band.", ("favourite-band",)),
        # the subjects of a standing instruction
        ("Always reply in Spanish.", ("manner-language",)),
        ("Please keep your answers short.", ("manner-length",)),
        ("Actually, longer answers are fine now.", ("manner-length",)),
        ("Don't use emojis.", ("manner-emojis",)),
        ("Emojis are fine now.", ("manner-emojis",)),
        ("Use imperial units from now on, please.", ("manner-units",)),
        (
            "Please give me temperatures in Celsius from now on, I bake a lot.",
            ("manner-temperature",),
        ),
        ("when you explain me things, use simple english please", ("manner-language",)),
        ("Always give distances in km.", ("manner-distance",)),
        ("Please call me Samantha from now on.", ("manner-name",)),
        ("I prefer bullet points.", ("manner-format",)),
        ("Always use metric, as long as it's for cooking.", ("manner-units",)),
        # not an instruction: no subject of one
        ("I like long walks.", ()),
        ("I'm learning Spanish.", ()),
        ("I speak French at home.", ()),
        ("Always translate everything into French.", ("manner-language",)),
        ("Always give distances in km, not miles.", ("manner-distance",)),
        # a state noted without "I'm"
        ("Based in Leeds.", ("home",)),
        ("Finally settled in Kitsilano!!", ("home",)),  # a place settled in
        ("We've settled into the Bay Area nicely.", ("home",)),
        ("I've settled in the Monday team at work.", ()),  # a day's name is no place
        ("I settled in June at the new job.", ()),
        ("Pescatarian mostly.", ("diet",)),
        ("Married with two kids.", ("relationship",)),
        ("NHS nurse, mostly nights.", ()),
        ("The new job at the hospital pharmacy is intense.", ("work",)),  # "the new" is "my new"
        # a second clause whose "I" or "we" is the first one's
        ("I quit Aldi and started at Lidl on Monday.", ("work",)),
        ("We sold the flat and moved to Bristol.", ("home",)),
        ("finally caved and went vegan", ("diet",)),
        ("I gave up on apple and got a pixel 8", ("phone",)),
        ("My brother quit Aldi and started at Lidl.", ()),
        ("I told Sam and he moved to Leeds.", ()),
        ("I went to the shop and got a new phone for my son.", ()),
        # a worker who does something is someone met, not "I'm a ..."
        ("A broker costs money though.", ()),
        ("A physio said no running.", ()),
        ("A tutor charges £40 an hour.", ()),
        ("A nurse on nights.", ("work",)),
        ("A teacher at Hillside, twelve years now.", ("work",)),
        # a move told as the time of something else, with no place, is no new home
        ("Emil is scared of the dark since we moved, he wakes up crying.", ()),
        ("Ever since I moved to Oslo I cycle everywhere.", ("home",)),
        ("I started as junior data analyst at Kasha Logistics last week.", ("work",)),
        ("I started as usual at 9.", ()),
        ("I'm now in a little bungalow in Whitby, near the harbour.", ("home",)),
        ("I'm now in a tiny room in Rome for the week.", ()),  # a stay, not a home
        # the hours worked: a pattern of shifts or days, not one shift
        ("I work permanent night shifts on the ICU.", ("schedule",)),
        ("I'm on nights this month.", ("schedule",)),
        ("I switched to early shifts at the depot.", ("schedule",)),
        ("I work Monday to Thursday now, 10 hours a day.", ("schedule",)),
        ("I work four days a week.", ("schedule",)),
        ("My shifts start at 6am.", ("schedule",)),
        ("My working hours are 7 to 3.", ("schedule",)),
        ("I'm doing a night shift tonight.", ()),
        ("I'm on days off until Monday.", ()),
    ],
)
def test_single_valued_subjects(sentence: str, topics: tuple[str, ...]) -> None:
    reading = self_statement(sentence)
    assert reading is not None and reading.topics == topics
    # the upgrade to schema 18 reads for the hours worked only the statements holding one of these
    assert "schedule" not in topics or any(word in sentence.lower() for word in SCHEDULE_WORDS)


@pytest.mark.parametrize(
    ("sentence", "topics"),
    [
        ("We have an old diesel VW Passat estate from 2012.", ("car",)),
        ("We traded the Passat in for a Kia EV6 last week (finally!).", ("car",)),
        ("We bought a Toyota for my son.", ()),
        ("Right now my camera is an old Canon 600D with just the kit lens.", ("camera",)),
        ("I switched to a Fujifilm X-T30 last year.", ("camera",)),
        ("my camera's a Pentax K1000, no auto anything", ("camera",)),
        ("I have an old Nikon from my father.", ("camera",)),
        ("My phone's a mess.", ()),  # what it is like, not which
        ("It's bright, but there is no oven, only a two-burner hob and a microwave.", ("kitchen",)),
        ("My apartment has no oven, just a two-burner cooktop.", ("kitchen",)),
        ("We finally got an oven!", ("kitchen",)),
        (
            "Our whole backend team is a Kotlin shop, the CTO won't approve anything else.",
            ("stack",),
        ),
        ("We're a .NET shop.", ("stack",)),
        ("Our stack is Django and Postgres.", ("stack",)),
        ("We are a coffee shop in Leeds.", ()),
        ("Salma gave me her old iPhone, so I must learn everything again.", ("phone",)),
        ("Me and Inès (we've been seeing each other since March!)", ("relationship",)),
        ("Since I joined Novacare Pharma in regulatory affairs I drive to Bellandur.", ("work",)),
        ("I joined Hinge in March.", ()),
    ],
)
def test_the_things_of_the_user_read_as_subjects(sentence: str, topics: tuple[str, ...]) -> None:
    """A car or camera by its make, what the kitchen lacks, the languages of the work, a phone
    given, a partner seen since, an employer joined in a department: each one at a time."""
    reading = self_statement(sentence)
    assert (reading.topics if reading is not None else ()) == topics
    # the upgrade to schema 19 reads only the statements holding one of these
    assert set(topics) <= set(THING_TOPICS)
    assert not topics or any(word in sentence.lower() for word in THING_WORDS)


@pytest.mark.parametrize(
    ("message", "needed"),
    [
        ("What vegetables would do well where I live?", ("home",)),
        ("Any good vets nearby?", ("home",)),
        ("I'd love to earn a bit of extra money using what I'm good at. Ideas?", ("work",)),
        ("My first quarterly review with my manager is on Thursday, what do I prepare?", ("work",)),
        ("When is the best time of day for me to go to the gym?", ("schedule",)),
        ("Can you build me a weekly plan for sleep, meals and my runs?", ("schedule",)),
        ("I'd like to join a club. When do these things usually meet?", ("schedule",)),
        ("What should I cook tonight?", ("kitchen",)),
        ("Tell me a joke about penguins.", ()),
        ("How should we plan the drive and the stops? About 1100 km.", ("car",)),
        ("The phone says the memory is almost full. How do I save my photos?", ("phone", "camera")),
        ("What settings should I use so my photos aren't blurry?", ("camera",)),
        ("Which chocolate cake recipe would you suggest?", ("kitchen",)),
        ("Can you sketch a service that reads a Kafka topic? Just the core code.", ("stack",)),
        (
            "Our 6 month anniversary is in 2 weeks, help me plan something special?",
            ("relationship",),
        ),
        ("My LinkedIn profile is outdated, can you write me a headline?", ("work",)),
        ("My washing machine died. Which one should I buy?", ()),
    ],
)
def test_what_a_message_needs_the_current_value_of(message: str, needed: tuple[str, ...]) -> None:
    assert needed_topics(message) == needed


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("My washing machine died. Which one should I buy?", True),
        ("Is a dishwasher worth buying for two people?", True),
        ("Can we afford a week in Crete?", True),
        ("Which one should I read first?", False),
    ],
)
def test_a_purchase_asks_for_the_users_money_limits(message: str, asked: bool) -> None:
    """What to buy, whether it is worth it or affordable turns on what the user can spend."""
    assert ("constraints" in profile.kinds_asked(message)) is asked


@pytest.mark.parametrize(
    ("sentence", "told"),
    [
        ("It's coeliac disease.", True),
        ("Turns out it's coeliac disease.", True),
        ("So it's endometriosis, apparently.", True),
        ("It is a disease of the elderly, sadly.", False),
        ("It's a syndrome that affects the nerves.", False),
    ],
)
def test_a_diagnosis_told_as_what_it_is(sentence: str, told: bool) -> None:
    """After "Got the results back.", what "it" is, the whole sentence, is the speaker's
    diagnosis; a sentence going on about the condition is not."""
    assert (self_statement(sentence) is not None) is told


@pytest.mark.parametrize(
    ("sentence", "limits"),
    [
        ("I'm scared of heights, even glass floors make my legs shake.", True),
        ("I have a real fear of flying, so the train it is.", True),
        ("I can't swim.", True),
        ("I get motion sickness on long bus rides.", True),
        ("I use a wheelchair since a car crash when I was 19.", True),
        ("I'm 24 weeks pregnant with our first.", True),
        ("I have a bad back from rugby.", True),
        ("I don't drive, I never learned.", True),
        ("Bad news from the sports doc: stress fracture in my left tibia.", True),
        ("MRI says I tore the meniscus.", True),
        ("I ruptured the achilles last spring.", True),
        ("Since my herniated disc I can't carry the flour sacks anymore.", True),
        ("I can't lift anything heavy since the op.", True),
        ("I broke my phone again.", False),
        ("He fractured his right wrist.", False),  # his, not theirs
        ("Piotr will drive us there.", False),
        ("My sister Marta is pregnant, the baby comes in March!", False),  # hers, not theirs
        ("My mum had a stroke and uses a wheelchair now.", True),  # the household's plans
        ("The kids get carsick on anything windy.", True),
        ("My husband is terrified of flying.", True),
        ("My friend Tom is scared of dogs.", False),
        ("That's exactly what I was afraid of.", False),
        ("I went back to the shop.", False),
    ],
)
def test_a_limit_any_plan_must_heed(sentence: str, limits: bool) -> None:
    assert limits_plans(sentence) is limits
    # the upgrade to schema 18 reads only the statements holding one of these
    assert not limits or any(word in sentence.lower() for word in LIMIT_WORDS)


@pytest.mark.parametrize(
    ("message", "plans"),
    [
        ("Can you plan the whole day for us in Singapore?", True),
        ("How should I travel from Milan to Venice?", True),
        ("Any fun activities for a rainy Saturday?", True),
        ("Can you give me a home workout plan for the next 4 weeks?", True),
        ("Four days in Mexico City in November: where to stay and what to see?", True),
        ("What should I cook tonight?", False),
        ("Can you check my cover letter?", False),
    ],
)
def test_a_message_planning_outings_or_travel(message: str, plans: bool) -> None:
    assert needs_limits(message) is plans


@pytest.mark.parametrize(
    ("sentence", "marked"),
    [
        ("Small thing: can you always give me the cheapest option first?", True),
        ("Always give me recipes like that please", True),
        ("Please always give me 2 or 3 options, the most natural first.", True),
        ("oh and btw for any code from now on just assume TypeScript with strict mode", True),
        ("From now on, when you give me health stuff, can you add where it comes from?", True),
        ("Please always reply in Spanish.", False),  # a subject of its own: manner-language
        ("I'm always here for you!", False),
        ("Thank you, you always give me good ideas.", False),
        ("From now on I will assume nothing.", False),
        ("I always use oat milk in my coffee.", False),
    ],
)
def test_a_standing_request_on_no_named_subject_is_marked(sentence: str, marked: bool) -> None:
    reading = self_statement(sentence)
    assert (reading is not None and STANDING_MARK in reading.topics) is marked


@pytest.mark.parametrize(
    "sentence",
    [
        "Never suggest hikes longer than 10 miles.",  # a distance in passing
        "Never suggest long hikes.",  # long, but not the answers
        "Never recommend Chinese food.",  # a language's word, not the answers' language
        "Don't suggest casual restaurants.",  # casual, but not the tone
    ],
)
def test_a_word_of_an_instructions_subject_in_passing_sets_none(sentence: str) -> None:
    assert not any(topic.startswith("manner-") for topic in manner_subjects(sentence))


@pytest.mark.parametrize(
    ("sentence", "instruction"),
    [
        ("I prefer bullet points.", True),
        ("I want short answers.", True),
        ("I like answers in bullet points.", True),
        ("I need tables for my new kitchen.", False),  # furniture, not the answers' form
        ("I like prose poetry.", False),
        ("I want a long holiday.", False),
    ],
)
def test_a_form_preferred_for_the_answers_is_an_instruction(
    sentence: str, instruction: bool
) -> None:
    assert ("manner" in kinds_in(sentence)) is instruction


def test_only_the_users_own_statements_join_the_profile() -> None:
    extractor = RuleExtractor()
    [said] = extractor.extract("I live in Porto.", speaker="Ana", source="message", role="user")
    assert said.profile is not None and said.topics == ("home",)
    [echo] = extractor.extract(
        "I live in Porto.", speaker="Assistant", source="message", role="assistant"
    )
    assert echo.profile is None
    assert extractor.extract("Hi! Thanks.", speaker="Ana", source="message", role="user") == []


async def test_a_newer_statement_ends_the_older_one(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I live in Porto.", created_at=T0)])
    moved = T0 + timedelta(days=30)
    await ana.add_messages("t2", [Message("user", "I moved to Lisbon.", created_at=moved)])
    await ana.add_messages("now", [Message("user", "Where should I eat tonight?")])
    lines = profile_of(await ana.get_context("now"))
    assert "Lisbon" in lines[0] and lines[0].endswith("- present)")
    assert "Porto" in lines[1] and lines[1].endswith("- 2025-03-31 09:00:00)")
    facts = await ana.search(SearchRequest("Porto", user_id="ana"))
    assert facts.edges[0].invalid_at == moved


async def _told_then(
    ana: LocalBackend, first: str, then: str, query: str
) -> tuple[dict[str, datetime | None], datetime]:
    """`first` told, then `then` 30 days later (in another thread): when each fact a search
    for `query` finds was ended (None: current), and when `then` was said."""
    await ana.add_messages("t1", [Message("user", first, created_at=T0)])
    later = T0 + timedelta(days=30)
    await ana.add_messages("t2", [Message("user", then, created_at=later)])
    found = await ana.search(SearchRequest(query, user_id="ana", limit=5))
    return {f.fact: f.invalid_at for f in found.edges}, later


async def test_saying_a_thing_no_longer_holds_ends_it(ana: LocalBackend) -> None:
    by_text, later = await _told_then(ana, "I'm vegan.", "I'm not vegan anymore.", "vegan")
    assert by_text["user: I'm vegan."] == later
    assert by_text["user: I'm not vegan anymore."] is None


async def test_what_no_longer_holds_ends_only_that(ana: LocalBackend) -> None:
    """Leaving Hackney, said after buying a flat elsewhere, does not end the flat; no longer
    working at Tesco does not end being a nurse."""
    said = ["We bought a flat in Walthamstow!", "I'm a nurse."]
    news = ["I no longer live in Hackney.", "I don't work at Tesco anymore."]
    for n, text in enumerate([*said, *news]):
        when = T0 + timedelta(days=10 * n)
        await ana.add_messages("t1", [Message("user", text, created_at=when)])
    found = await ana.search(SearchRequest("Hackney Walthamstow Tesco nurse", user_id="ana"))
    ended = {f.fact.removeprefix("user: "): f.invalid_at for f in found.edges}
    assert ended[said[0]] is None
    assert ended[said[1]] is None


@pytest.mark.parametrize(
    ("topic", "text", "value"),
    [
        ("home", "I no longer live in Hackney.", "hackney"),
        ("diet", "I'm not vegetarian anymore, I eat fish now.", "vegetarian"),
        ("work", "I don't work at Tesco anymore.", "tesco"),
        ("home", "I don't live in London, I live in Kent.", None),  # a value said plainly
        ("home", "I live in Kent.", None),
    ],
)
def test_the_value_no_longer_so(topic: str, text: str, value: str | None) -> None:
    assert negated_value(topic, text) == value


async def test_a_state_noted_without_i_is_ended_by_news_on_its_subject(ana: LocalBackend) -> None:
    by_text, moved = await _told_then(ana, "Based in Leeds.", "I moved to York.", "Leeds York")
    assert by_text["user: Based in Leeds."] == moved
    assert by_text["user: I moved to York."] is None


async def test_the_speakers_own_said_with_the_is_ended_by_news_on_its_subject(
    ana: LocalBackend,
) -> None:
    job = "The new job at the pharmacy is intense."
    by_text, quit = await _told_then(ana, job, "I quit my job at the pharmacy.", "pharmacy job")
    assert by_text[f"user: {job}"] == quit


async def test_an_older_statement_stored_late_is_ended_at_once(ana: LocalBackend) -> None:
    await ana.add_messages("t2", [Message("user", "I moved to Lisbon.", created_at=T0)])
    earlier = T0 - timedelta(days=400)
    await ana.add_messages("t1", [Message("user", "I live in Porto.", created_at=earlier)])
    facts = await ana.search(SearchRequest("Porto", user_id="ana"))
    assert facts.edges[0].invalid_at == T0
    lisbon = await ana.search(SearchRequest("Lisbon", user_id="ana"))
    assert lisbon.edges[0].invalid_at is None


@pytest.mark.parametrize(
    ("said", "current", "ended"),
    [
        ("We've moved! We've relocated up to Aberdeen.", "Aberdeen", "We've moved!"),
        ("I live in Leeds. Well, I moved to York.", "York", "Leeds"),
    ],
)
async def test_in_one_message_the_sentence_said_later_is_the_newer(
    ana: LocalBackend, said: str, current: str, ended: str
) -> None:
    """Sentences of one message share its time; the one said after the other is the news, and
    the earlier one never ends it."""
    await ana.add_messages("t1", [Message("user", said, created_at=T0)])
    found = await ana.search(SearchRequest(f"{current} {ended}", user_id="ana", limit=10))
    by_text = {f.fact.removeprefix("user: "): f.invalid_at for f in found.edges}
    [newer] = [text for text in by_text if current in text]
    [older] = [text for text in by_text if ended in text and text != newer]
    assert by_text[newer] is None
    assert by_text[older] == T0


async def _homes(ana: LocalBackend) -> dict[str, datetime | None]:
    found = await ana.search(SearchRequest("live", user_id="ana", limit=20))
    return {f.fact.removeprefix("user: I live in ").rstrip("."): f.invalid_at for f in found.edges}


async def test_news_reads_only_what_it_may_end_or_be_ended_by(
    ana: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """News on a subject compares itself with the current statements on it and with those not
    older than itself; one ended before its time changes nothing and is not read. Told out of
    order, an ended statement newer than the news still ends it."""
    days = [0, 10, 20]
    for city, day in zip(("Leeds", "York", "Hull"), days, strict=True):
        said = Message("user", f"I live in {city}.", created_at=T0 + timedelta(days=day))
        await ana.add_messages("t1", [said])
    compared: list[str] = []
    exact = supersede.timestamp

    def timestamp(value: str) -> float:
        compared.append(value)
        return exact(value)

    monkeypatch.setattr(supersede, "timestamp", timestamp)
    # Ely, told late (day 15): Leeds (day 0) and York (day 10) were ended before its time
    await ana.add_messages("t2", [Message("user", "I live in Ely.", created_at=T0 + timedelta(15))])
    assert len(compared) == 2  # Ely's own time and Hull's (current), not Leeds' nor York's
    # Bath, told later still (day 12): Ely (day 15) is ended but newer, and ends Bath first
    await ana.add_messages(
        "t2", [Message("user", "I live in Bath.", created_at=T0 + timedelta(12))]
    )
    homes = await _homes(ana)
    assert homes == {
        "Leeds": T0 + timedelta(10),
        "York": T0 + timedelta(20),
        "Hull": None,
        "Ely": T0 + timedelta(20),
        "Bath": T0 + timedelta(15),
    }


async def test_news_compares_times_as_instants_whatever_their_offsets(ana: LocalBackend) -> None:
    """Which stored statements news reads is decided on instants: a time written with a later
    clock in another zone may be the earlier one, and the other way round."""
    india, chicago = timezone(timedelta(hours=5, minutes=30)), timezone(timedelta(hours=-5))
    at = datetime(2025, 3, 31, 9, 0, tzinfo=UTC)
    older = datetime(2025, 3, 31, 12, 0, tzinfo=india)  # 06:30 UTC
    newer = datetime(2025, 3, 31, 8, 0, tzinfo=chicago)  # 13:00 UTC
    latest = at + timedelta(days=30)
    told = [("Leeds", T0), ("York", older), ("Hull", newer), ("Wells", latest)]
    for city, when in told:
        await ana.add_messages("t1", [Message("user", f"I live in {city}.", created_at=when)])
    await ana.add_messages("t2", [Message("user", "I live in Ely.", created_at=at)])
    homes = await _homes(ana)
    # Hull was ended (by Wells) and its clock reads earlier than Ely's, yet it is the newer:
    # it ends Ely, not Wells
    assert homes["Ely"] == newer
    assert homes == {"Leeds": older, "York": newer, "Hull": latest, "Ely": newer, "Wells": None}


async def test_deleting_the_newer_statement_brings_the_older_back(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I work as a nurse.", created_at=T0)])
    later = T0 + timedelta(days=5)
    await ana.add_messages("t2", [Message("user", "I work as a pilot now.", created_at=later)])
    await ana.delete_thread("t2")
    facts = await ana.search(SearchRequest("nurse", user_id="ana"))
    assert facts.edges[0].invalid_at is None


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        ("Rex", "My dog Rex loves the beach at Foz.", "My dog Rex died last week."),
        ("Lea", "My girlfriend Lea loves hiking.", "Lea and I broke up."),
        ("Pepper", "My dog Pepper is a beagle.", "We lost Pepper to cancer last month."),
        # said without "my": it ends the user's statements about that someone
        ("Mochi", "My cat Mochi sleeps all day.", "Mochi passed away this morning."),
        ("Biscuit", "I have a dog named Biscuit.", "Biscuit ran away last night."),
        ("Joe", "My grandpa Joe lives with us.", "Joe passed away peacefully last night."),
    ],
)
async def test_an_ending_ends_what_was_said_of_the_name(
    ana: LocalBackend, name: str, before: str, after: str
) -> None:
    await ana.add_messages("t1", [Message("user", before, created_at=T0)])
    later = T0 + timedelta(days=60)
    await ana.add_messages("t2", [Message("user", after, created_at=later)])
    found = await ana.search(SearchRequest(name, user_id="ana", limit=5))
    by_text = {f.fact: f.invalid_at for f in found.edges}
    assert by_text[f"user: {before}"] == later
    assert by_text[f"user: {after}"] is None


async def test_a_second_ending_reads_only_what_is_still_current(
    ana: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an earlier ending ended is not read again by the next one (a name mentioned for
    years would be read in full on every later ending), and stays ended when it was."""
    before = "My dog Pepper is a beagle."
    first = "We lost Pepper to cancer last month."
    await ana.add_messages("t1", [Message("user", before, created_at=T0)])
    ended = T0 + timedelta(days=60)
    await ana.add_messages("t2", [Message("user", first, created_at=ended)])
    read: list[str] = []
    mentioning = supersede._mentioning_same_entities

    def reading(conn: Any, change: supersede.Change) -> dict[int, Any]:
        found = mentioning(conn, change)
        read.extend(text for text, _, _ in found.values())
        return found

    monkeypatch.setattr(supersede, "_mentioning_same_entities", reading)
    later = T0 + timedelta(days=90)
    second = "My dog Pepper died in March."
    await ana.add_messages("t3", [Message("user", second, created_at=later)])
    assert read == [f"user: {first}"]  # the one still current, not the beagle
    found = await ana.search(SearchRequest("Pepper", user_id="ana", limit=5))
    by_text = {f.fact: f.invalid_at for f in found.edges}
    assert by_text[f"user: {before}"] == ended
    assert by_text[f"user: {first}"] == later
    assert by_text[f"user: {second}"] is None


_KEPT = [
    # news that names no one of the user's
    ("I work at Google.", "I lost my wallet today."),
    ("I rent a flat in Leith.", "We're renting a car in Spain for the holiday."),
    ("My favourite food is sushi.", "My favourite band is Muse."),  # another favourite
    ("I live in Porto with my partner.", "My old laptop died yesterday."),
    ("My dog Rex loves the beach at Foz.", "I lost my temper with Rex this morning."),
    ("My dog Rex loves the beach at Foz.", "I lost Rex's lead at the park."),
    ("My husband Harold is retired.", "Harold's phone died in the middle of the game."),
    ("My friend Sam lives in Leeds.", "Sam's mum passed away last week."),
    ("I love Michael Jackson's music.", "Michael Jackson died in 2009."),  # a taste
    # news of one of two things a statement names, which cannot end in part
    ("I have a cat called Pixel and a dragon called Spike.", "Spike died, I'm gutted."),
    ("We have two dogs, Rex and Bella.", "Rex died last night."),
    # a denial of another claim than the statement's
    ("I'm gluten intolerant.", "I'm not lactose intolerant, it turns out."),
    # the same value of a single-valued subject again
    ("I'm married to Tom.", "We got married in Goa in 2015."),
    ("I'm married to Tom.", "I'm married with two kids."),
    ("I'm vegetarian.", "I'm vegetarian but I still eat eggs."),
    ("I live in Ottawa.", "I've been living in Ottawa for a decade."),
    ("I work at Shopify.", "I've been working at Shopify for six years."),
    ("I work as a chef.", "I've been working as a chef since I was 19."),
    # something left that is not the home or the employer named
    ("I work at Google as a designer.", "I left Sarah a voicemail."),
    ("I work at Google as a designer.", "I left London in 2019."),
    ("I live in Leeds.", "I left Google last month."),
    ("I work at a bakery in Leeds.", "I left the bakery at 5 today."),  # for the day
    ("I work at a bakery in Leeds.", "My sister quit the bakery."),
    ("I work at Meta.", "I left Google in 2019 to join Meta."),
    ("I work at Google as a designer.", "My last day at Google is Friday."),  # ahead
    ("I work at Google as a designer.", "I joined Strava as a member."),
    ("My laptop is a ThinkPad.", "I got a MacBook for my daughter."),
    ("My colleague Tom is retiring in May.", "Say goodbye to Tom for me."),
    ("My colleague Tom is retiring in May.", "Tom went to my brother for advice."),
    # a name that ends: what a home or job statement says of it is not the home or the job
    ("I'm an accountant at Deloitte, married to Tom.", "Tom and I have separated."),
    ("I live in Leeds with my dog Rex.", "Rex died last night."),
    # notice handed in: the job goes on through the notice, and a job got since stays
    ("got the job at Monzo, starting in March", "handed in my notice today"),
    # another's phone or pet, a relative of someone else, a supposition
    ("I have a Samsung Galaxy S21.", "My wife switched to a Pixel."),
    ("I have an iPhone 12.", "I got an iPhone for my son."),
    ("I have an iPhone 12.", "I got a new phone for my son."),
    ("I have a dog called Max.", "My neighbour had to have her cat put down."),
    ("My dad has dementia.", "My friend's dad passed away."),
    ("My husband Tom and I live in Leeds.", "Hypothetically, if Tom and I separated, who moves?"),
    ("I'm doing a masters in psychology.", "If I dropped out of the masters, do I pay the fees?"),
    # someone else's child born, or another child of the user's
    ("I'm pregnant with our first!", "My sister gave birth to a baby boy!"),
    ("Our son Leo was born in May.", "Our daughter Mia was born last week."),
    # driving, not the car driven
    ("I drive a VW Golf.", "I drive a lot for work."),
    # someone else's outcome; an age among other things told
    ("I'm looking for a job in marketing.", "My sister got a new job."),
    ("I'm studying law at UCL.", "My brother graduated last summer."),
    ("I'm 34, married, two kids.", "I just turned 35!"),
    ("I'm looking for a job in marketing.", "Got the job done at last."),  # a task, not a job
    # something sold that is not what was named
    ("I run an Etsy shop.", "I sold 20 candles on Etsy this week."),
    # a step on the way, not the outcome
    ("I'm learning to drive.", "Passed my first driving lesson with flying colours."),
    ("I'm learning to drive.", "I failed my driving test again, gutted."),
    ("I'm training for the London marathon.", "Did a 20 mile training run today."),
    ("I'm revising for my exams.", "Finished my first exam today."),
    ("I'm doing my A levels.", "Passed my A level mocks!"),
    ("I'm training for a marathon.", "Ran the Parkrun on Saturday, PB!"),
    ("I'm waiting for my visa.", "I had my interview at the embassy."),
    ("I'm on maternity leave.", "I'm going back to work in March."),
    ("I'm on maternity leave.", "I'm back at work next week."),
    # someone else's outcome
    ("I'm waiting for my visa.", "My sister's visa got approved today."),
    ("I'm recovering from knee surgery.", "My dad has fully recovered from his stroke."),
    ("We're house hunting.", "My brother bought a house in Leeds."),
    ("We're house hunting.", "My son moved out last week."),
    ("I'm on maternity leave.", "My husband went back to work today."),
    ("I'm single.", "My sister started dating someone."),
    ("We're trying for a baby.", "My best friend is pregnant!"),
    ("I'm recovering from a broken leg.", "The dog has healed nicely after her op."),
    # an outcome of something else
    ("I'm applying for jobs.", "Got an offer on the house!"),
    ("I'm on crutches.", "My phone is back to normal."),
    ("I'm waiting on a new kidney.", "My parcel arrived."),
    ("I'm training for a triathlon.", "Did the school run and then a swim."),
    ("I'm studying for the bar exam.", "I sat in the bar for hours last night."),
    ("I'm on sertraline.", "I came off my bike yesterday, ouch."),
    ("I'm a smoker.", "The restaurant was smoke-free, annoyingly."),
    ("We rent a flat in Leith.", "We bought a house in Spain for holidays."),
    ("I'm single.", "Single malt is my favourite whisky."),
    ("I still live with my parents.", "We moved the sofa out of the living room."),
    ("I'm writing a novel.", "Finished the first draft of my novel!"),
    ("I'm renovating the house.", "The house is a mess, we're done for today."),
    ("I'm trying to lose weight.", "Hit a new low weight this week, 2 more pounds to go!"),
    ("I'm in the middle of a divorce.", "My sister's divorce is final."),
    ("I'm paying off my credit card.", "Paid off half of my credit card!"),
    ("I'm building a shed.", "The shed is over the fence line, oops."),
    ("I'm in hospital with a chest infection.", "My mum was discharged yesterday."),
    ("I'm saving for a wedding.", "We bought a cake stand for the wedding."),
    ("We're selling our house.", "We finally finished painting the house before the sale."),
    ("I'm waiting for my visa.", "The visa wasn't approved, we'll appeal."),
    ("I'm waiting for a kidney transplant.", "Another patient got the kidney, not me."),
    ("I'm renovating an old farmhouse.", "Sold the old farmhouse table at auction."),
    (
        "I'm off work on maternity leave.",
        "Back in the office for a keeping in touch day next week.",
    ),
    ("I'm recovering from a bad back.", "Back in the garden today, pulling weeds carefully."),
    ("I'm building a treehouse for the kids.", "The kids finished their homework early."),
    # working somewhere for a while, or moving in with one's parents
    ("I'm unemployed.", "I'm working at the weekend now."),
    ("I'm unemployed.", "I'm working at home now, on my CV."),
    ("We're house hunting.", "We moved in with my parents for now."),
    ("We have a dog called Rex.", "We might rehome Rex."),
    ("We have a dog called Rex.", "We separated Rex from the cat at night."),
    ("I have a dog called Max.", "My friend's dog Max died."),  # a namesake, someone else's
    ("My cat Mochi sleeps all day.", "Sam's cat Mochi passed away."),
    ("I'm writing a novel.", "I finished a great novel last night."),  # one read, not written
    ("I'm married.", "I'm engaged in a big project at work."),  # busy, not to be married
    ("I drive a Golf.", "I bought a new car seat for the baby."),  # a seat, not a car
    ("I go running every morning.", "I quit running club."),  # the club, not running
    ("I'm looking for a job.", "I got the job of organising the party."),  # a task
    ("My husband is called Mark.", "My brother Mark separated from his wife."),
    # a purchase that is no home to live in; a course of medicine
    ("I rent a flat in Leeds.", "I bought a house plant."),
    ("I rent a flat in Leeds.", "I bought a flat white at the café."),
    ("I rent a flat in Leeds.", "We bought a place in Spain for the summers."),
    ("I rent a flat.", "We bought the flat upstairs to let out."),
    ("I'm a student.", "I finished my course of antibiotics."),
    ("I'm unemployed.", "I'm working in the garden now."),
    ("I'm studying law.", "I'm a qualified first aider now!"),
    # instructions on other subjects
    ("Always reply in Spanish.", "Please keep your answers short."),
    ("Don't use emojis.", "Always use metric units."),
    ("Always give weights in kg.", "Always give distances in miles."),
    ("Always reply in Spanish.", "I'm learning French."),
    ("My favourite food is sushi.", "Muse is my favourite band."),
]
_ENDED = [
    # the place or employer named left
    ("I work at Google as a designer.", "I left Google last month."),
    ("I work at Google as a designer.", "Today was my last day at Google."),
    ("I live in London with my partner.", "We moved away from London in the spring."),
    ("I work for Deloitte.", "I quit Deloitte in May."),
    ("I'm a nurse at St Mary's.", "I've just resigned from St Mary's."),
    ("I work at Google as a product manager.", "Not at Google anymore, joined Loom."),
    ("I'm a cashier at a bank.", "Finally quit the bank, I'm a full-time baker now!"),
    ("I work as a nurse.", "Also I quit nursing, I'm retraining as a teacher."),
    # a diet or a relationship changed
    ("I'm on the keto diet.", "Gave up keto, it wasn't for me."),
    ("I'm single.", "I've got a girlfriend now, her name's Leah."),
    ("I've been divorced six years now.", "Ngozi and I got engaged last Saturday!!"),
    # a pregnancy ended by the birth, a car by its sale
    ("I'm pregnant with our first!", "Our baby girl Ada was born on Monday!"),
    ("We're expecting twins in March.", "We had the babies last night, two boys!"),
    ("I drive a VW Golf.", "I sold my car, I take the bus now."),
    # a search ended by the job got, studies by the degree, an age by the next
    ("I'm looking for a job in marketing.", "I got the job at Ogilvy, starting Monday!"),
    ("I'm studying law at UCL.", "I graduated last summer!"),
    ("I'm 34.", "I just turned 35!"),
    ("i work at wendys 2 nights a week", "i quit wendys. manager was insane."),  # lower case
    ("I'm a dental hygienist at Desert Smiles.", "Final day at Desert Smiles was Friday."),
    ("I'm a developer at Infosys.", "Joined PayNest today as backend engineer."),
    ("i work at chipotle on weekends", "got hired at target, i start monday"),
    # a phone or a car replaced, a pet put down in other words
    ("I have a Samsung Galaxy S21.", "I switched to a Pixel last week."),
    ("My phone is an iPhone 12.", "I got a new phone, a Pixel 8."),
    ("Our car is a Seat Ibiza.", "We bought a new car, an electric Kia."),
    ("I drive a 2016 Toyota Camry.", "Traded the Camry in for a Subaru Outback."),
    ("We live in a condo in Liberty Village.", "We've been in the new house in Hamilton a week."),
    ("My laptop is an old Dell.", "Gave my old Dell to my cousin, I use a MacBook now."),
    ("My laptop is an old Dell.", "I switched to a MacBook Air last month."),
    ("Our car is a Seat Ibiza.", "We bought a Renault Zoe, goodbye Seat!"),
    ("My dog Max is 14 and deaf.", "RIP Max, best dog ever."),
    ("Our dog Bran is thirteen and still loves the beach.", "We had to let Bran go on Friday."),
    ("My Ford Focus is on its last legs.", "The Focus went to my nephew in Tuam."),
    ("My phone is a Samsung S21.", "My phone was snatched in traffic yesterday."),
    ("I have an iPhone 11.", "I got a Pixel 8 for my birthday."),
    ("I have an iPhone 11.", "switched to a Samsung Galaxy S23 last month, loving Android"),
    ("I have an iPhone 11.", "I gave up on apple and got a pixel 8"),
    ("I live in a flat in Croydon.", "We sold the flat and moved to Bristol in May."),
    ("I'm vegetarian.", "I finally caved and went vegan."),
    ("I live in Leeds and my flat is freezing.", "finally settled into the new flat in Bristol!"),
    ("I live in Leeds.", "moved up to aberdeen for the job in january, don't know anyone"),
    ("I have a dog called Max.", "We had to have Max put down."),
    # a relative's life by their death, a habit by its things or a doctor's word
    ("My dad has dementia.", "My dad passed away last month."),
    ("I smoke about ten a day.", "3 months without cigarettes now!"),
    ("I sing in a choir.", "Quit the choir, too much drama."),
    ("I have type 2 diabetes and take metformin.", "The GP switched me from metformin to Ozempic."),
    # the same told without "I", as the sentence opens
    ("I'm unemployed at the moment.", "Got the job! Starting Monday."),
    ("I'm studying law at UCL.", "Graduated today!"),
    ("im a junior at ohio state, mech e.", "officially done with college 🎓"),
    ("Job hunting at the moment, it's grim.", "Landed a job at the council, start Monday!"),
    # the household's home, told with "we"
    ("We live in a flat in Croydon.", "Moved to a house in Reigate last month."),
    # a new role at the same employer changes the job too
    ("I'm a nurse at St Mary's.", "I'm now a doctor at St Mary's."),
    # a belonging sold, named shorter than before
    ("I drive a Ford Fiesta.", "Sold the Fiesta, I cycle everywhere now."),
    ("I drive a 2012 Skoda Octavia.", "Sold the Skoda, bought a van."),  # the make alone
    ("My dog Rex and I run every morning.", "Rex died last night."),  # the speaker and one
    ("My dog Molly is old and loves St Clair beach.", "Molly died on Thursday."),  # a place
    # a denial of what the statement says before an aside, whatever follows the denial
    ("I'm gluten intolerant, which is ironic.", "I'm not gluten intolerant after all, it was IBS."),
    ("We have an old Volvo.", "I finally got rid of the Volvo."),
    # a state ended by its outcome
    ("We're trying for a baby, fingers crossed.", "I'm pregnant! Eight weeks today."),
    ("I'm learning to drive, my test is in May.", "Passed my driving test first time!"),
    ("I'm revising for my finals, so stressed.", "Just finished my finals, free at last!"),
    ("We're house hunting in Leeds at the moment.", "We got the keys to our new house!"),
    ("I still live with my parents.", "Finally moved out, got my own flat in Hove."),
    ("I'm training for the London marathon.", "Ran the marathon on Sunday, 4 hours 10!"),
    ("I'm off work with stress at the moment.", "Back at work this week, a phased return."),
    ("I'm a stay-at-home dad.", "I've gone back to work full time as an engineer."),
    ("I'm waiting for my visa to come through.", "Visa approved, I fly to Toronto in March!"),
    ("I'm applying for a mortgage, fingers crossed.", "Our mortgage has been approved!"),
    ("I'm applying to universities to study medicine.", "Got an offer to study medicine!"),
    ("I'm on crutches after breaking my ankle.", "The crutches are gone, I'm walking again."),
    ("I'm recovering from knee surgery.", "My knee is fully healed, I'm back to running."),
    ("I'm on the waiting list for knee surgery.", "Had the knee operation on Tuesday."),
    ("I'm job hunting, applying everywhere.", "I start at Tesco head office on Monday!"),
    ("I'm a trainee solicitor at a firm in Leeds.", "I qualified as a solicitor this week!"),
    ("I'm in hospital with a chest infection.", "Discharged today, so glad to be home."),
    ("I'm pregnant with twins.", "The twins arrived on Friday, both healthy!"),
    ("I'm interviewing for a head of marketing role.", "Got the head of marketing job!"),
    ("I'm doing a PhD in chemistry.", "I passed my viva, I'm Dr Jones now!"),
    ("I'm on a career break, travelling around Asia.", "Back at my desk in London at last."),
    ("I'm on the list for a council house.", "We've been given a council house in Leyton!"),
    ("I'm waiting to hear about my promotion.", "Got the promotion! Team leader from May."),
    # a thing under way, ended by its own outcome
    ("We're in the middle of renovating the kitchen.", "The kitchen is finally finished!"),
    ("I'm writing my dissertation.", "Handed in my dissertation yesterday!"),
    ("We're in the process of adopting a little girl.", "The adoption went through!"),
    ("We're trying to sell our caravan.", "Sold the caravan to a lovely couple from Wales."),
    ("I'm on a course of antibiotics.", "Finished my antibiotics yesterday."),
    ("I'm paying off my student loan.", "Student loan paid off at last!"),
    # a habit given up in other words
    ("I'm on sertraline for my anxiety.", "I've come off the sertraline now, doing well."),
    ("I'm a smoker, about ten a day.", "I've been smoke-free for six weeks!"),
    ("I smoke like 10 cigarettes per day.", "2 weeks without smoke, I am angry all day."),
    # the home and the relationship in more forms
    ("We rent a flat in Leith.", "We've bought our first home, a cottage in Fife!"),
    (
        "We rent a one bed in Partick, tiny but we love it.",
        "Got the keys to a wee flat in Dennistoun!",
    ),
    ("I'm renting a flat in Hackney.", "We bought a house in Walthamstow!"),
    ("I'm a nurse at the Royal Infirmary.", "I retired last month."),
    ("I work at Tesco.", "Started at Aldi today."),
    ("I work at Tesco.", "First day at Infineon. So many acronyms."),
    ("I live in a WG in Neustadt with two flatmates.", "First night in my own flat. Bliss."),
    ("I'm 29.", "It was my 30th birthday yesterday!"),
    ("I'm 25.", "Celebrated my 26th birthday on Saturday!"),
    ("I'm vegetarian.", "I've started eating fish again."),
    ("i'm vegan myself", "i've been eating fish again, doctor said my iron is low"),
    # a workplace left, named by what it is
    ("i'm a graphic designer at a small branding agency in toronto.", "quit the agency."),
    ("I'm a chef at a little restaurant in Soho.", "I quit the restaurant last week."),
    ("I'm single.", "My boyfriend and I moved in together."),
    ("My favourite band is Muse.", "My favourite band is Radiohead now."),
    ("I'm dating Tom.", "We broke up last week."),
    ("I'm in a relationship.", "We split up."),
    ("I have a boyfriend called Sam.", "Sam and I aren't together anymore."),
    ("I'm engaged.", "We've just got married!"),
    ("I'm single at the moment.", "I've started seeing someone, his name is Tom."),
    ("I'm single and not looking.", "I've started dating a guy called Ryan."),
    ("We're engaged.", "We tied the knot in Vegas last weekend!"),
    ("Single at the moment.", "Met a lovely guy, we started dating in May."),
    # a pet put to sleep; an ending told before a comma
    ("We have a dog called Max.", "We had to put Max to sleep last week."),
    ("Our cat Biscuit is 6.", "Biscuit had to be put to sleep on Tuesday."),
    ("Our cat Biscuit is 6.", "We had Biscuit put down."),
    ("We have a hamster called Nibbles.", "Nibbles died last night, the kids are gutted."),
    ("My husband is called Mark.", "Mark and I separated in March."),
    ("We have a dog called Rex.", "We had to rehome Rex."),
    ("My friend's dog Max is 12.", "My friend's dog Max died."),  # the same owner's
    # a job got in present words; a home of one's own with a partner
    ("I'm unemployed.", "I'm working at a bakery now."),
    ("I'm looking for work.", "I'm employed at a school now!"),
    ("I still live with my parents.", "I moved in with my girlfriend."),
    # renting ends with a home bought; working from home with the office
    ("I rent a flat.", "We bought a house!"),
    ("I work from home.", "I'm back in the office full time now."),
    ("I'm at uni studying law.", "I finished my law degree!"),
    ("I'm a student.", "I dropped out of uni."),
    ("I'm studying nursing.", "I'm a qualified nurse now!"),
    # a standing instruction given again on its subject; a favourite named after it
    ("Always reply in Spanish.", "You can reply in English from now on."),
    ("Please keep your answers short.", "Actually, longer answers are fine now."),
    ("Don't use emojis.", "Emojis are fine now."),
    ("Please use metric units.", "Use imperial units from now on, please."),
    ("Call me Sam.", "Please call me Samantha from now on."),
    ("I prefer bullet points.", "I prefer full paragraphs now."),
    ("My favourite food is sushi.", "Pizza is my favourite food these days."),
]


@pytest.mark.parametrize(
    ("before", "after", "ends"),
    [(before, after, False) for before, after in _KEPT]
    + [(before, after, True) for before, after in _ENDED],
)
async def test_news_ends_the_older_statement_only_when_it_changes_it(
    ana: LocalBackend, before: str, after: str, ends: bool
) -> None:
    by_text, later = await _told_then(ana, before, after, before)
    assert by_text[f"user: {before}"] == (later if ends else None)


async def test_news_on_a_subject_keeps_what_its_sentence_said_besides(ana: LocalBackend) -> None:
    """The relationship's clause is ended by news on it; the daughter told beside it is not."""
    told = "I'm divorced, I have a daughter, Ellie, she's 10."
    by_text, later = await _told_then(ana, told, "I started seeing someone.", "divorced Ellie")
    assert by_text["user: I'm divorced."] == later
    assert by_text["user: I have a daughter, Ellie, she's 10."] is None


async def test_a_move_ahead_keeps_the_home_until_it_happens(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I live in Porto.", created_at=T0)])
    plan = T0 + timedelta(days=3)
    said = "I'm moving to Berlin next month."
    await ana.add_messages("t2", [Message("user", said, created_at=plan)])
    lines = profile_of(await ana.add_messages("now", [Message("user", "Hi!")], return_context=True))
    assert any("Porto" in line and line.endswith("present)") for line in lines)
    assert any("Berlin" in line for line in lines)
    moved = plan + timedelta(days=40)
    await ana.add_messages("t3", [Message("user", "I just moved to Berlin.", created_at=moved)])
    porto = await ana.search(SearchRequest("Porto", user_id="ana"))
    assert porto.edges[0].invalid_at == moved


@pytest.mark.parametrize(
    ("sentence", "apart"),
    [
        (
            "I live in Austin and work as a nurse at St David's.",
            ("I live in Austin.", "I work as a nurse at St David's."),
        ),
        ("I'm married and live in Boston.", ("I'm married.", "I live in Boston.")),
        ("I work at Google and I live in Zurich.", ("I work at Google.", "I live in Zurich.")),
        ("I am vegan, and I live in Lisbon.", ("I am vegan.", "I live in Lisbon.")),
        ("i live in austin and work as a nurse", ("i live in austin.", "i work as a nurse")),
        ("I'm divorced and living in Leeds now.", ("I'm divorced.", "I'm living in Leeds now.")),
        ("I live in Austin and am a nurse.", ("I live in Austin.", "I am a nurse.")),
        ("I'm vegetarian and just moved to Oslo.", ("I'm vegetarian.", "I just moved to Oslo.")),
        (
            "I live in Austin and work remotely for Stripe.",
            ("I live in Austin.", "I work remotely for Stripe."),
        ),
        (
            "I got married in June and moved to Bristol.",
            ("I got married in June.", "I moved to Bristol."),
        ),
        # one subject, or another person's: kept whole
        ("I live and work in Austin.", None),
        ("I live in Austin and love it.", None),
        ("I live in Austin and my wife works as a nurse.", None),
        ("I live in Austin with my husband and our two kids.", None),
        ("I work as a nurse and I love my job.", None),
        ("I live in Austin and now my wife works there.", None),
        ("I'm single and so happy about it.", None),
        # a comma before "I": a subject and a clause that says something of its own
        (
            "I'm divorced, I have a daughter, Ellie, she's 10.",
            ("I'm divorced.", "I have a daughter, Ellie, she's 10."),
        ),
        ("I'm vegan, I have a cat.", ("I'm vegan.", "I have a cat.")),
        ("I live in Leeds, I love it here.", None),  # a remark on the subject's clause
        ("I'm a nurse, I love my job.", None),
        ("I moved to Leeds last year, I have two kids at school there.", None),
        # "living in" a place after what the speaker is
        ("I'm a nurse living in Leeds.", ("I'm a nurse.", "I'm living in Leeds.")),
        # "and I" with an "I" before it: two clauses; without one, one subject
        (
            "I'm an accountant at Deloitte and I'm off to Rome with my husband Tom.",
            ("I'm an accountant at Deloitte.", "I'm off to Rome with my husband Tom."),
        ),
        ("I live in Leeds and I have two cats.", ("I live in Leeds.", "I have two cats.")),
        ("My husband Tom and I live in Leeds.", None),
        ("I'm sick of living in London.", None),
    ],
)
def test_two_single_valued_subjects_joined_by_and_are_two_statements(
    sentence: str, apart: tuple[str, str] | None
) -> None:
    assert subjects_apart(sentence) == apart
    said = RuleExtractor().extract(sentence, speaker="Ana", source="message", role="user")
    texts = [f"Ana: {part}" for part in apart] if apart else [f"Ana: {sentence}"]
    assert [statement.text for statement in said] == texts


async def test_news_on_one_of_two_subjects_keeps_the_other(ana: LocalBackend) -> None:
    said = "I live in Austin and work as a nurse at St David's."
    by_text, moved = await _told_then(ana, said, "I moved to Denver.", "Austin nurse")
    assert by_text["user: I live in Austin."] == moved
    assert by_text["user: I work as a nurse at St David's."] is None


async def test_the_same_fact_twice_is_one_fact(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I keep bees.", created_at=T0)])
    later = T0 + timedelta(days=2)
    await ana.add_messages("t2", [Message("user", "I keep bees!", created_at=later)])
    found = await ana.search(SearchRequest("bees", user_id="ana"))
    assert [(f.fact, f.valid_at) for f in found.edges] == [("user: I keep bees!", later)]
    await ana.add_messages("now", [Message("user", "Hello.")])
    assert len([line for line in profile_of(await ana.get_context("now")) if "bees" in line]) == 1


async def test_the_block_never_repeats_the_current_thread(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I'm allergic to peanuts.")])
    await ana.add_messages("now", [Message("user", "I'm allergic to peanuts.")])
    await ana.add_messages("now", [Message("user", f"Note {n} about nothing.") for n in range(5)])
    context = await ana.get_context("now")
    assert context is None or "peanuts" not in context


async def test_the_profile_ranks_salient_facts_first_and_is_bounded(ana: LocalBackend) -> None:
    small_talk = [Message("user", f"I watched episode {n} of a show.") for n in range(30)]
    await ana.add_messages("t1", [Message("user", "I'm allergic to shellfish."), *small_talk])
    await ana.add_messages("now", [Message("user", "Hello.")])
    lines = profile_of(await ana.get_context("now"))
    assert "shellfish" in lines[0]
    assert len(lines) <= 12


async def test_entity_summaries_are_clean(ana: LocalBackend) -> None:
    await ana.add_messages(
        "t1",
        [
            Message("user", "My dog Biscuit is a border collie."),
            Message("assistant", "Noted: Biscuit sounds lovely."),
            Message("assistant", "Biscuit would enjoy the beach."),
        ],
    )
    found = await ana.search(SearchRequest("Biscuit", user_id="ana", scope="nodes"))
    names = [node.name for node in found.nodes]
    assert "Noted" not in names
    biscuit = next(node for node in found.nodes if node.name == "Biscuit")
    assert biscuit.summary == "My dog Biscuit is a border collie. Biscuit would enjoy the beach."


def section_of(context: str, tag: str) -> list[str]:
    """The entry lines of a block's `tag` section (none when it has no such section)."""
    if f"<{tag}>" not in context:
        return []
    return context.split(f"<{tag}>\n")[1].split(f"\n</{tag}>")[0].splitlines()


async def test_a_fact_said_in_a_question_reaches_a_new_conversation(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "Since I'm diabetic, what dessert can I have?")])
    await ana.add_messages("now", [Message("user", "Plan a birthday party menu for me.")])
    assert any("diabetic" in line for line in profile_of(await ana.get_context("now")))


async def test_a_short_history_carries_all_the_user_said_about_themselves(
    ana: LocalBackend,
) -> None:
    said = [
        "I'm allergic to peanuts.",
        "My sister Ingrid lives in Copenhagen.",
        "I work as an architect.",
        "My cat is called Pepper.",
        "I run about 30 km a week.",
        "I'm colour blind.",
        "I hate coriander.",
        "I can't drive, I don't have a licence.",
        "I play chess online every evening.",
        "My partner Sam and I are getting married in June.",
    ]
    for n, sentence in enumerate(said):
        when = T0 + timedelta(hours=n)
        await ana.add_messages(f"t{n % 3 + 1}", [Message("user", sentence, created_at=when)])
    await ana.add_messages("t1", [Message("user", "I live in Porto.", created_at=T0)])
    moved = T0 + timedelta(days=3)
    await ana.add_messages("t2", [Message("user", "I moved to Lisbon.", created_at=moved)])
    await ana.add_messages("now", [Message("user", "Which shoes do I need?")])
    context = await ana.get_context("now")
    assert context is not None
    for sentence in [*said, "I moved to Lisbon."]:
        assert context.count(sentence) == 1, sentence  # each once, wherever it stands
    more = section_of(context, "MORE_USER_PROFILE")
    assert more and len(profile_of(context)) == 6  # the rest follows, never before the lead
    assert context.rstrip().endswith("</MORE_USER_PROFILE>")  # last: a budget drops it first
    assert not any("Porto" in line for line in more)  # only current facts are added


def joined_names(extractor: RuleExtractor, said: str) -> tuple[str, ...]:
    [statement] = extractor.extract(said, speaker="Kim", source="message", role="user")
    return statement.entities + statement.maybe_entities


def test_a_sentence_going_on_about_someone_joins_their_profile_statement() -> None:
    extractor = RuleExtractor()
    for said in (
        "I have a dog. His name is Rex and he hates baths.",
        # a note without a subject keeps its reading when the sentence after it is joined
        "new puppy!!! her name's biscuit and she's chewing everything",
        # the name said first, then the pronoun
        "We brought home a rescue cat! Dumpling, she's 2 and very shy.",
        # after a phrase that only leads in
        "My girlfriend Bia is moving in next month!! One thing tho, she hates sauces.",
        "Our son Zayan is 6 and autistic. At the moment he only eats plain rice and nuggets.",
        # what the someone is, before the pronoun
        "I adopted a dog. A retired racing greyhound, his name is Pilot.",
        # the someone of the statement named alone after it
        "Bit of news – I've started seeing someone. Theo.",
        "We adopted a rescue dog! Biscuit.",
    ):
        [joined] = extractor.extract(said, speaker="Kim", source="message", role="user")
        assert joined.text == f"Kim: {said}" and joined.profile is not None
    assert "Rex" in joined_names(extractor, "I have a dog. His name is Rex and he hates baths.")
    # "she" is the one named just before, though no one of the user's: the name stays with her
    said = "It's for Marisol's role. She's our events coordinator and she's leaving in May."
    [told] = extractor.extract(said, speaker="Kim", source="message", role="user")
    assert told.text == f"Kim: {said}" and "Marisol" in told.entities
    # not after a statement about someone, nor after one that is not the user's profile
    home = extractor.extract(
        "I live in Porto. It is close to the river.", speaker="Kim", source="message", role="user"
    )
    assert [s.text for s in home] == ["Kim: I live in Porto.", "Kim: It is close to the river."]
    # a name alone joins only a statement about someone, and only a name does
    for said in ("I love hiking. Theo.", "My sister is visiting. Anyway."):
        assert len(extractor.extract(said, speaker="Kim", source="message", role="user")) == 2
    told = extractor.extract(
        "The film was long. She hated it.", speaker="Kim", source="message", role="user"
    )
    assert len(told) == 2 and all(s.profile is None for s in told)
    # an assistant's sentences are never joined (they make no profile)
    said = extractor.extract(
        "My cat Tom. He purrs.", speaker="bot", source="message", role="assistant"
    )
    assert len(said) == 2


@pytest.mark.parametrize(
    "said",
    [
        "my daughter kayla is 14 and has epilepsy. seizures mostly controlled on keppra but "
        "flashing lights set her off sometimes.",
        "husband had a stroke in january. left side is weak, he's using a walker now.",
        "My cat Miso has chronic kidney disease. The vet's put her on a renal diet.",
    ],
)
def test_their_health_told_on_with_a_later_pronoun_joins_the_statement(said: str) -> None:
    """The second sentence tells of the same person's health with "he" or "she" further on:
    alone it names no one of the user's and would stay out of the profile."""
    [joined] = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert joined.text == f"Kim: {said}" and joined.profile is not None


@pytest.mark.parametrize(
    "said",
    [
        # someone else named before the pronoun: their own statement
        "My sister is getting married. Dad had his knee replacement last week.",
        # the speaker's own health, or the household's
        "My son has asthma. I gave him his inhaler and my chest feels tight too.",
        "My son has asthma. We keep his inhaler by the door and check it for allergies.",
        # no health or diet of theirs
        "My son is 8. The teacher says she loves his drawings.",
    ],
)
def test_what_is_not_their_health_told_on(said: str) -> None:
    found = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert len(found) == 2


@pytest.mark.parametrize(
    ("said", "told"),
    [
        (
            "Is soy sauce safe with coeliac disease?? I'm 3 weeks into the diagnosis and it's "
            "doing my head in",
            "coeliac",
        ),
        ("How far can my Nissan Leaf really go in winter? The display says 210 km.", "Leaf"),
        (
            "what veg grows on a north-facing balcony in Glasgow?? tried tomatoes last year",
            "Glasgow",
        ),
        (
            "how do i make £40 a week last as a student in leeds. i'm living on beans on toast",
            "£40",
        ),
    ],
)
def test_a_question_before_what_the_user_tells_of_it_is_kept_with_that(
    said: str, told: str
) -> None:
    [kept] = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert told in kept.text and kept.text == f"Kim: {said}"


@pytest.mark.parametrize(
    ("said", "dated"),
    [
        ("My company is moving me to the Fukuoka office. Moving day is April 28.", "April 28"),
        ("I need to pass the Polish B1 exam. Exam is 14 June in Kraków.", "14 June"),
        ("surgeon rang. rotator cuff repair on the 14th, right shoulder.", "the 14th"),
    ],
)
def test_a_date_said_after_a_statement_is_kept_with_it(said: str, dated: str) -> None:
    [kept] = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert dated in kept.text and kept.profile is not None


@pytest.mark.parametrize(
    "said",
    [
        "Any tips for Rome? The food there is amazing, I hear.",  # hearsay, not their situation
        "How was your weekend? I finally finished the shed.",  # asked of the listener
    ],
)
def test_a_question_before_what_is_not_the_users_situation_stays_out(said: str) -> None:
    found = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert all("?" not in s.text for s in found)


def test_a_question_the_user_says_is_about_them_is_kept_with_that() -> None:
    extractor = RuleExtractor()
    asked = "What's a good hobby for someone who works from home? Asking for me lol"
    [kept] = extractor.extract(asked, speaker="Kim", source="message", role="user")
    assert kept.text == f"Kim: {asked}" and kept.profile is not None
    alone = "What's a good hobby for someone who works from home?"
    assert extractor.extract(alone, speaker="Kim", source="message", role="user") == []
    said = "who takes up the cello at 52, right? me apparently, first lesson was Tuesday"
    [kept] = extractor.extract(said, speaker="Kim", source="message", role="user")
    assert "cello" in kept.text and kept.profile is not None
    said = extractor.extract(asked, speaker="bot", source="message", role="assistant")
    assert not any("hobby" in s.text for s in said)  # only the user's questions
    thanks = extractor.extract("Thanks! That's me.", speaker="Kim", source="message", role="user")
    assert not any("Thanks" in s.text for s in thanks)  # only a question is joined


@pytest.mark.parametrize(
    "said",
    [
        "Can you recommend a good dentist near Clapham? I just moved there.",
        "What's the weather like in Oslo in March? I live there now.",
        "My sister lives in Lisbon. I'm visiting there in May.",
        "The new café on Elm Street is great. I work there.",
        "What's the weather like in Rome in May? I'm going there for my honeymoon.",
        "Any tips for Kyoto? I've been there twice but want something new.",
    ],
)
def test_a_short_sentence_with_there_is_kept_with_the_place_it_stands_for(said: str) -> None:
    [kept] = RuleExtractor().extract(said, speaker="Kim", source="message", role="user")
    assert kept.text == f"Kim: {said}" and kept.profile is not None


def test_there_joins_nothing_it_does_not_end_on() -> None:
    extractor = RuleExtractor()
    said = "I live in Porto. There are lots of hills."
    assert len(extractor.extract(said, speaker="Kim", source="message", role="user")) == 2
    asked = "Any tips for Rome? The food there is amazing, I hear."
    [kept] = extractor.extract(asked, speaker="Kim", source="message", role="user")
    assert "Any tips" not in kept.text  # not the speaker's, so the question stays out
    asked = "Any tips for Rome? I think there's a lot of history."
    [kept] = extractor.extract(asked, speaker="Kim", source="message", role="user")
    assert "Any tips" not in kept.text  # "there is": no place pointed back to
    [alone] = extractor.extract("I work there.", speaker="Kim", source="message", role="user")
    assert alone.text == "Kim: I work there."  # nothing before it to stand for


def test_a_message_going_on_about_someone_joins_the_users_previous_statement() -> None:
    extractor = RuleExtractor()
    [dog] = extractor.extract_reply(
        "Thanks! His name is Rex and he hates baths.", speaker="Kim", before="I have a dog."
    )
    assert dog.text == "Kim: I have a dog. His name is Rex and he hates baths."
    assert dog.profile is not None and "Rex" in dog.entities + dog.maybe_entities
    # the last profile statement of the previous message is the one continued
    [sister, job] = extractor.extract_reply(
        "She is a midwife. I work in a bakery.",
        speaker="Kim",
        before="Hi there. My sister Lea just moved to Oslo.",
    )
    assert sister.text == "Kim: My sister Lea just moved to Oslo. She is a midwife."
    assert job.text == "Kim: I work in a bakery."
    # a long previous message: its last statement still counts
    [dog] = extractor.extract_reply(
        "His name is Rex.", speaker="Kim", before="The report is long. " * 500 + "I have a dog."
    )
    assert dog.text == "Kim: I have a dog. His name is Rex."
    # not after a statement that is not about someone of the user's, nor a later sentence
    for before, text in [
        ("I watched a film.", "She was great in it."),
        ("What do you think?", "He said no."),
        ("I have a dog.", "The weather is nice. He loves it."),
    ]:
        found = extractor.extract_reply(text, speaker="Kim", before=before)
        assert not any(before in s.text for s in found), (before, text)


async def test_a_fact_told_over_two_messages_is_one_profile_statement(ana: LocalBackend) -> None:
    await ana.add_messages(
        "t1",
        [
            Message("user", "I have a dog.", name="Ana"),
            Message("assistant", "Lovely! Dogs are great company."),
        ],
    )
    await ana.add_messages(
        "t1", [Message("user", "His name is Rex and he is scared of storms.", name="Ana")]
    )
    # in one write too, and only within its thread
    await ana.add_messages(
        "t2",
        [
            Message("user", "My mum lives with us now.", name="Ana"),
            Message("assistant", "That must be a change."),
            Message("user", "She loves gardening.", name="Ana"),
        ],
    )
    await ana.add_messages("t3", [Message("user", "He is a beagle.", name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "Any tips for a quiet evening?", name="Ana")], return_context=True
    )
    lines = profile_of(block)
    joined = "Ana: I have a dog. His name is Rex and he is scared of storms."
    assert sum(joined in line for line in lines) == 1
    assert any("Ana: My mum lives with us now. She loves gardening." in line for line in lines)
    # the statement the longer one opens with is not shown again beside it
    assert not any("Ana: I have a dog. (" in line for line in lines)
    assert not any("beagle" in line for line in lines)  # another thread: nothing to go on


async def test_a_standing_instruction_reaches_every_new_conversation(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "Please always reply in Spanish.", name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "What's the capital of Peru?", name="Ana")], return_context=True
    )
    [line] = profile_of(block)
    assert "Ana: Please always reply in Spanish." in line


async def test_a_move_told_without_i_ends_the_older_home(ana: LocalBackend) -> None:
    await ana.add_messages("t1", [Message("user", "I live in London.", created_at=T0)])
    moved = T0 + timedelta(days=30)
    await ana.add_messages("t2", [Message("user", "Just moved to Leeds!", created_at=moved)])
    block = await ana.add_messages(
        "now", [Message("user", "Find me a good cafe.", name="Ana")], return_context=True
    )
    assert block is not None
    [leeds] = [line for line in block.splitlines() if "Leeds" in line]
    assert leeds.endswith("present)")
    assert not any("London" in line and line.endswith("present)") for line in block.splitlines())


@pytest.mark.parametrize(
    ("told", "asked", "kept", "left_out"),
    [
        (  # what the household owns, a question asked as a nurse; not a group's meeting
            (
                "Our car is an old Prius.",
                "As a nurse on night shifts, how do I sleep during the day?",
                "We have a meeting at 3.",
            ),
            "Where should I go this summer?",
            ["Ana: Our car is an old Prius.", "As a nurse on night shifts"],
            "meeting",
        ),
        (  # a faith, money put by, a form asked as a question; not a request for a joke
            (
                "We're Jehovah's Witnesses so we don't do birthdays.",
                "Saving hard for a house deposit, so every penny counts right now.",
                "Can you make your answers bullet points from now on?",
                "Can you tell me a joke?",
            ),
            "Where should we go for dinner?",
            ["Jehovah's Witnesses", "house deposit", "bullet points from now on"],
            "joke",
        ),
        (  # the household's money and its grandmother; not a team's budget
            (
                "Our marketing budget for Q3 is 2M.",
                "Our budget for the kitchen is 15k, not a penny more.",
                "Gran is 95 and lives with us.",
            ),
            "What should we prioritise this year?",
            ["kitchen is 15k", "Gran is 95"],
            "marketing",
        ),
        (  # asked as what the user is; circumstances given for context; a text to shorten
            (
                "As a left-hander, what's the trick to writing with a fountain pen?",
                "As a type 1 diabetic, what's a good snack for hiking?",
                "For context it's 38 square meters, one main room plus a tiny kitchen.",
                "Can you shorten this? 'I wanted to follow up on the invoice I sent.'",
            ),
            "Any tips for this weekend?",
            ["As a left-hander", "type 1 diabetic", "38 square meters"],
            "invoice",
        ),
        (  # a child by name alone, twins named between commas, a hob put in; not a how-to
            (
                "quick one — anika is allergic to sesame. is tahini made from that?",
                "the twins, Matteo and Giulia, turn five on March 14th — how did that happen",
                "just had an induction hob put in with the new kitchen!",
                "How do I make iced coffee at home?",
                "How do I write a toast for a friend's birthday?",
                "Everyone is allergic to something.",
            ),
            "Any tips for this weekend?",
            ["anika is allergic to sesame", "Matteo and Giulia", "induction hob"],
            "?",
        ),
        (  # the health, diet, age of someone named alone or "he", "she"; not a thing's
            (
                "sounds nice but Dev can't do parmesan, he's lactose intolerant.",
                "yeah she's used a wheelchair since her stroke so somewhere flat would be good",
                "he was diagnosed with ADHD last year, Lego is one of the few things he loves",
                "sofia turns five in three weeks and all she talks about is dinosaurs",
                "The meeting turns 5 minutes late.",
                "It's 8 and in year 3 terms.",
                "He was diagnosed with cancer in the movie.",
            ),
            "Any tips for this weekend?",
            ["lactose intolerant", "wheelchair", "ADHD", "sofia turns five"],
            "movie",
        ),
        (  # a horse of hers, a course begun; not what a listener would do, nor childhood
            (
                "My mare Juniper threw a shoe again, how long can she go without the farrier?",
                "Started a UX design bootcamp on Monday.",
                "As a parent, what would you do about screen time?",
                "As a kid, what games did people play?",
            ),
            "Any tips for this weekend?",
            ["Juniper", "UX design bootcamp"],
            "As a",
        ),
    ],
)
async def test_what_is_told_in_passing_reaches_a_new_conversation(
    ana: LocalBackend, told: tuple[str, ...], asked: str, kept: list[str], left_out: str
) -> None:
    lines = await profile_after(ana, told, asked)
    for said in kept:
        assert any(said in line for line in lines), said
    assert not any(left_out in line for line in lines)


async def test_chat_typed_without_capitals_or_marks_keeps_facts_and_leaves_questions(
    ana: LocalBackend,
) -> None:
    for said in ("how do i clean a cast iron pan", "i'm 72 years old", "how long do i boil an egg"):
        await ana.add_messages("t1", [Message("user", said, name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "what exercise is good for me", name="Ana")], return_context=True
    )
    lines = profile_of(block)
    assert any("i'm 72 years old" in line for line in lines)
    assert not any("cast iron" in line or "boil" in line for line in lines)


async def test_asking_what_was_said_keeps_the_answer_first(ana: LocalBackend) -> None:
    # A user checking the memory asks about what they told; the questions tell nothing new
    # and must not stand in the profile beside (or before) what they did tell.
    await ana.add_messages("t1", [Message("user", "Shellfish allergy, so be careful.", name="Ana")])
    for said in ("What are my allergies?", "Do you remember my dog's name?", "How old is my son?"):
        await ana.add_messages("t2", [Message("user", said, name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "Plan a dinner for Friday.", name="Ana")], return_context=True
    )
    lines = profile_of(block)
    assert any("Ana: Shellfish allergy, so be careful." in line for line in lines)
    assert not any("?" in line for line in lines)


async def test_news_without_i_reaches_a_new_conversation(ana: LocalBackend) -> None:
    for said in ("Just got engaged!!", "Recently diagnosed with celiac.", "Love that!"):
        await ana.add_messages("t1", [Message("user", said, name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "Where should we go for dinner?", name="Ana")], return_context=True
    )
    lines = profile_of(block)
    for said in ("Ana: Just got engaged!!", "Ana: Recently diagnosed with celiac."):
        assert any(said in line for line in lines), said
    assert not any("Love that" in line for line in lines)


@pytest.mark.parametrize("said", ["Please call me Alex.", "You can call me Alex."])
async def test_how_the_user_wants_to_be_called_reaches_every_new_conversation(
    ana: LocalBackend, said: str
) -> None:
    await ana.add_messages("t1", [Message("user", said, name="Ana")])
    for n in range(12):  # a crowded profile: the name still leads
        await ana.add_messages("t2", [Message("user", f"I have visited {n + 3} countries.")])
    block = await ana.add_messages(
        "now", [Message("user", "Write me a short bio.", name="Ana")], return_context=True
    )
    assert any(f"Ana: {said}" in line for line in profile_of(block))


def test_a_name_the_user_goes_by_is_about_who_they_are() -> None:
    for said in ("I go by Liz.", "Everyone calls me Bex.", "My nickname is Bo."):
        reading = self_statement(said)
        assert reading is not None and reading.salience > 1.0, said
    assert (
        RuleExtractor().extract(
            "Please call me back tomorrow.", speaker="Ana", source="message", role="user"
        )
        == []
    )  # a request, not a name


async def test_what_the_user_asks_to_be_remembered_is_remembered(ana: LocalBackend) -> None:
    said = "Please remember that my son is allergic to eggs."
    await ana.add_messages("t1", [Message("user", said, name="Ana")])
    block = await ana.add_messages(
        "now", [Message("user", "Ideas for a birthday cake?", name="Ana")], return_context=True
    )
    [line] = profile_of(block)
    assert f"Ana: {said}" in line


async def test_a_statement_read_on_into_the_next_message_shows_once(ana: LocalBackend) -> None:
    first = (
        "my boyfriend andrés is a motorcycle mechanic and wants his own workshop, how do we start"
    )
    lines = await profile_after(ana, (first, "he's very good but bad with papers"), "Any ideas?")
    told = [line for line in lines if "motorcycle mechanic" in line]
    assert len(told) == 1 and "bad with papers" in told[0], lines
