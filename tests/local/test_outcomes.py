"""States that end with their outcome: which news closes which of the user's statements."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from zepkit.core._backend import SearchRequest
from zepkit.core._models import Message
from zepkit.local import LocalBackend, supersede
from zepkit.local.outcomes import (
    closes,
    in_states_column,
    outcomes_told,
    shared_with,
    states_column,
)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
Told = Callable[..., Awaitable[dict[str, datetime | None]]]


@pytest.mark.parametrize(
    ("news", "kind"),
    [
        ("college is over finally, convocation is in May", "studies"),
        ("I'm pregnant! Eight weeks today.", "trying for a baby"),
        ("Passed my driving test first time!", "exams"),
        ("We got the keys to our new house!", "home search"),
        ("Back at work this week.", "time off work"),
        ("First day back at work today.", "time off work"),
        ("My first day back today, so tired!", "time off work"),
        ("My knee is fully healed.", "recovery"),
        ("Visa approved!", "waiting"),
        ("Ran the marathon on Sunday!", "training"),
        ("I start at Tesco head office on Monday!", "job search"),
        ("I qualified as a solicitor this week!", "qualification"),
        ("Discharged today, so glad to be home.", "hospital stay"),
        ("The extension is finally finished!", "a thing under way"),
        ("Baby number two is here!", "pregnancy"),
        ("Got the job, not bad for a Monday!", "job search"),
        ("The car is fixed now, the garage replaced the clutch.", "a breakdown"),
        ("Boiler fixed!", "a breakdown"),
        ("My laptop is working again.", "a breakdown"),
        ("Got a new phone!", "a breakdown"),
        ("Car back from the garage.", "a breakdown"),
        ("Back from Tokyo, jet lag is brutal!", "a trip"),
        ("Just got back from our honeymoon in Bali.", "a trip"),
        ("I had my hip replacement last week.", "waiting"),
        ("My knee is fine now.", "recovery"),
        ("My knee doesn't hurt anymore.", "recovery"),
        ("Feeling much better now, the cold is gone.", "illness"),
        ("All better now!", "illness"),
        ("I'm over the flu at last.", "illness"),
        ("Tested negative this morning!", "illness"),
        ("The migraine has finally cleared up.", "illness"),
        ("I feel like myself again.", "illness"),
        ("I'm fine again, thanks.", "illness"),
        ("Feeling like my old self again.", "illness"),
        ("Back home in Leeds now.", "away from home"),
        ("We got home last night, what a trip!", "away from home"),
        ("Just back from our honeymoon.", "away from home"),
        ("Landed back in London this morning.", "away from home"),
        ("I finished my law degree!", "studies"),
        ("Got my nursing degree at last.", "studies"),
        ("We bought a house!", "renting"),
        ("We just got the keys to our own place!", "renting"),
        ("We're finally homeowners!", "renting"),
        ("I'm back in the office full time now.", "working from home"),
        ("We have to go into the office five days a week now.", "working from home"),
        ("I no longer work from home.", "working from home"),
        ("I don't work from home anymore.", "working from home"),
        ("The interview at Google went really well!", "an event ahead"),
        ("Had my knee surgery yesterday.", "an event ahead"),
        ("The hen party was a success!", "an event ahead"),
        ("The meeting got cancelled.", "an event ahead"),
        ("We got married last weekend!", "an event ahead"),
        ("Just got married!!", "an event ahead"),
        ("I found a new job!", "job search"),
        ("Got my cast off today!", "recovery"),
        ("officially done with college 🎓", "studies"),
        ("My knee is much better now.", "recovery"),
        ("Finally found a job at the council.", "job search"),
        # steps on the way, plans, other people's news, news denied
        ("Passed my first driving lesson.", None),
        ("I'm going back to work in March.", None),
        ("My best friend is pregnant!", None),
        ("My son moved out last week.", None),
        ("My mum was discharged yesterday.", None),
        ("Did a 20 mile training run today.", None),
        ("The visa wasn't approved.", None),
        ("The sale is not through yet.", None),
        ("Another patient got the kidney, not me.", None),
        # a repair wanted, booked or denied is no repair
        ("Need it fixed by Friday.", None),
        ("Getting the boiler fixed tomorrow.", None),
        ("The car still isn't fixed.", None),
        ("The mechanic says it can't be fixed.", None),
        # better at, than or about something, or someone else better, is no recovery
        ("I'm better at chess than my brother.", None),
        ("I'm feeling a lot better about the move.", None),
        ("Much better than the old one!", None),
        ("My son is feeling much better.", None),
        ("I'm not feeling any better.", None),
        ("I'm so over it.", None),
        # a return ahead, or not yet made, is no return
        ("Back home tomorrow!", None),
        ("My first day back is on Monday.", None),
        ("Flying back to London tomorrow.", None),
        ("My sister got back to Leeds.", None),
        ("First day back tomorrow!", None),
        ("My sister is back home.", None),
        ("I'm not back home yet.", None),
        ("I'll be back from Tokyo on Monday.", None),
        ("Back from Tokyo tomorrow!", None),
        ("I'm not back from Tokyo yet.", None),
    ],
)
def test_the_outcomes_a_sentence_tells(news: str, kind: str | None) -> None:
    told = outcomes_told(news)
    assert kind in told if kind else told == ()


@pytest.mark.parametrize(
    ("news", "kind"),
    [
        # a home bought by someone else, or ahead, or something else bought
        ("My parents bought a house.", "renting"),
        ("We're buying a house next year.", "renting"),
        ("We bought a new sofa.", "renting"),
        ("We bought a house in Spain for holidays.", "renting"),
        ("I bought a flat to let out.", "renting"),
        ("We bought a house for my mum.", "renting"),
        # an office day ahead, or one day a week
        ("Back in the office tomorrow.", "working from home"),
        ("I'm back in the office on Monday.", "working from home"),
        # an event still ahead
        ("I hope the interview goes well tomorrow.", "an event ahead"),
        ("The interview is going to be great.", "an event ahead"),
        ("The wedding dress fitting went well.", "an event ahead"),  # a step on the way
        ("I don't work from home on Fridays.", "working from home"),
        # someone else's wedding, or a job named in passing
        ("My sister got married last weekend!", "an event ahead"),
        ("I found a job ad for a nurse.", "job search"),
        ("I found my old job contract in a drawer.", "job search"),
        ("Done with college for the summer!", "studies"),  # a break
        ("I'm done with college applications.", "studies"),
        # supposed, not told
        ("if i dropped out of the masters would i have to pay back the fees", "studies"),
        # a relative's death: another's relative, something of theirs, or nearly
        ("My friend's dad died.", "someone close"),
        ("My dad's dog died.", "someone close"),
        ("My mum nearly died last year.", "someone close"),
        ("Dad passed his driving test.", "someone close"),
        ("I lost my mum in the supermarket.", "someone close"),
        # a breakup: someone else's, or something else split
        ("My sister and her boyfriend broke up.", "someone close"),
        ("We split the bill.", "someone close"),
        ("We are done with the kitchen.", "someone close"),
        ("I'm not with the company any more.", "someone close"),
    ],
)
def test_news_that_is_not_the_outcome(news: str, kind: str) -> None:
    assert kind not in outcomes_told(news)


def test_a_return_ahead_is_no_return() -> None:
    ahead = "Back in the office for a keeping in touch day next week."
    assert "time off work" not in outcomes_told(ahead)
    assert "time off work" in outcomes_told("Back in the office today, it's strange.")


@pytest.mark.parametrize(
    ("state", "statement", "news", "closed"),
    [
        ("waiting", "user: I'm waiting for my visa.", "user: Visa approved!", True),
        # a general outcome closes only the state it shares a word with
        ("waiting", "user: I'm waiting for my results.", "user: Visa approved!", False),
        ("recovery", "user: I'm recovering from knee surgery.", "user: Knee healed!", True),
        ("recovery", "user: I'm recovering from knee surgery.", "user: I've recovered.", False),
        # the shared word must be the user's: someone else's outcome closes nothing
        ("waiting", "user: I'm waiting for my visa.", "user: Sam's visa came through.", False),
        (
            "recovery",
            "user: I'm recovering from knee surgery.",
            "user: My dad's knee healed.",
            False,
        ),
        # kinds of their own need no shared word
        ("illness", "user: I have a bad cold.", "user: Feeling much better now!", True),
        ("illness", "user: Came down with a stomach bug.", "user: All better!", True),
        ("illness", "user: I have type 1 diabetes.", "user: Feeling much better now!", False),
        ("illness", "user: I'm sick of my job.", "user: Feeling much better now!", False),
        ("away from home", "user: I'm on holiday in Crete.", "user: Back home!", True),
        ("away from home", "user: I'm going to Tokyo in November.", "user: Back home!", False),
        ("trying for a baby", "user: We're trying for a baby.", "user: I'm pregnant!", True),
        ("time off work", "user: I'm on maternity leave.", "user: Back at work today.", True),
        ("time off work", "user: I work at the bank.", "user: Back at work today.", False),
        # a thing under way ends with its own outcome, named next to it
        ("a thing under way", "user: We're selling our caravan.", "user: Sold the caravan!", True),
        (
            "a thing under way",
            "user: I'm renovating an old farmhouse.",
            "user: Sold the old farmhouse table at auction.",
            False,
        ),
        (
            "a thing under way",
            "user: I'm saving for a wedding.",
            "user: We bought a cake stand for the wedding.",
            False,
        ),
        # a thing broken ends with its own repair, named next to it, and no one else's
        ("a breakdown", "user: My car broke down on the M6.", "user: The car is fixed now.", True),
        ("a breakdown", "user: My laptop stopped working.", "user: Got a new laptop!", True),
        ("a breakdown", "user: My car broke down on the M6.", "user: Boiler fixed!", False),
        # a trip ends with the return from its place, not from another
        ("a trip", "user: My flight to Tokyo is on the 3rd.", "user: Back from Tokyo!", True),
        ("a trip", "user: I'm in Lisbon for the week.", "user: Home from Lisbon at last.", True),
        ("a trip", "user: My flight to Tokyo is on the 3rd.", "user: Back from Lisbon!", False),
        ("a trip", "user: I'm planning a trip to Japan.", "user: Just got back from Japan!", True),
        # a wedding ahead ends with the user's own, not driving with the driving test passed
        (
            "an event ahead",
            "user: We're getting married in June.",
            "user: We got married last weekend!",
            True,
        ),
        (
            "an event ahead",
            "user: We're getting married in June.",
            "user: My sister got married last weekend!",
            False,
        ),
        # an injury told without "I", or of the part, ends when the part is well
        (
            "recovery",
            "user: Broke my wrist climbing, in a cast for 6 weeks.",
            "user: Got my cast off today!",
            True,
        ),
        (
            "recovery",
            "user: My shoulder is recovering slowly.",
            "user: My shoulder is fully healed!",
            True,
        ),
        (
            "recovery",
            "user: My knee has been sore for days.",
            "user: Knee is much better now.",
            True,
        ),
        ("exams", "user: I don't drive.", "user: I passed my driving test!", True),
        ("exams", "user: Never learned to drive.", "user: Passed my driving test!", True),
        ("exams", "user: I don't drive.", "user: I passed my maths exam.", False),
        # a pain ends when the same part is fine, not another
        ("recovery", "user: My knee hurts when I run.", "user: My knee is fine now.", True),
        ("recovery", "user: My back hurts.", "user: My knee doesn't hurt anymore.", False),
        (
            "waiting",
            "user: I'm on a waiting list for a hip replacement.",
            "user: I had my hip replacement last week.",
            True,
        ),
        (
            "a breakdown",
            "user: Our boiler is broken, it needs to be fixed.",
            "user: Got the car fixed!",
            False,
        ),
        (
            "a breakdown",
            "user: My car broke down on the M6.",
            "user: My sister fixed her car.",
            False,
        ),
    ],
)
def test_what_news_closes(state: str, statement: str, news: str, closed: bool) -> None:
    assert closes(state, statement, shared_with(state, news)) is closed


async def test_the_block_shows_the_state_as_ended_after_its_outcome(
    alice: LocalBackend,
) -> None:
    learning = "I'm learning to drive, my test is in May."
    passed = "Passed my driving test first time!"
    await alice.add_messages("a1", [Message("user", learning, created_at=T0)])
    later = T0 + timedelta(days=40)
    await alice.add_messages("a1", [Message("user", passed, created_at=later)])
    block = await alice.add_messages(
        "a2", [Message("user", "Should I buy a car?")], return_context=True
    )
    assert block is not None
    lines = {line.split(" (Date range")[0].strip(): line for line in block.splitlines()}
    assert lines[f"- user: {passed}"].endswith("present)")
    assert lines[f"- user: {learning}"].endswith(f"{later:%Y-%m-%d %H:%M:%S})")


@pytest.mark.parametrize(
    ("state", "statement", "expected"),
    [
        ("illness", "I have a bad cold.", True),
        ("illness", "I've got the flu.", True),
        ("illness", "Caught a cold, ugh.", True),
        ("illness", "I'm really poorly today.", True),
        ("illness", "I'm home sick with a fever.", True),
        ("illness", "Tested positive this morning.", True),
        ("illness", "I have a migraine coming on.", True),
        # not ill, someone else ill, or something that lasts
        ("illness", "I'm sick of waiting.", False),
        ("illness", "I'm sick and tired of the rain.", False),
        ("illness", "I have a cold drink in my hand.", False),
        ("illness", "I have the flu jab tomorrow.", False),
        ("illness", "I have a bug in my code.", False),
        ("illness", "My daughter has the flu.", False),
        ("illness", "I get migraines.", False),
        ("illness", "I have asthma.", False),
        ("away from home", "I'm in Lisbon for a week.", True),
        ("away from home", "We're staying in Rome until Sunday.", True),
        ("away from home", "I'm on holiday in Crete.", True),
        ("away from home", "We're travelling around Vietnam.", True),
        ("away from home", "I'm away until Sunday.", True),
        ("away from home", "I'm in Tokyo for work this week.", True),
        # a trip ahead, a place without a stay, or no place at all
        ("away from home", "I'm going to Tokyo in November.", False),
        ("away from home", "I'm on holiday next week.", False),
        ("away from home", "I'm in Leeds.", False),
        ("away from home", "I'm in love.", False),
        ("studies", "I'm at uni studying law.", True),
        ("studies", "I'm doing a law degree.", True),
        ("studies", "I'm at med school in Leeds.", True),
        ("renting", "I rent a flat in Hackney.", True),
        ("renting", "We're renting a two-bed near the park.", True),
        ("renting", "Our landlord raised the rent again.", True),
        ("renting", "I'm a tenant in a shared house.", True),
        ("working from home", "I work from home.", True),
        ("working from home", "We both work remotely.", True),
        ("working from home", "My job is fully remote.", True),
        # renting something else, or out; someone else's home or work
        ("renting", "I rent out our spare room.", False),
        ("renting", "I rent a car when I travel.", False),
        ("renting", "My sister rents a flat.", False),
        ("working from home", "My wife works from home.", False),
        ("working from home", "I work at home depot.", False),
        ("an event ahead", "I have a job interview at Google on Friday.", True),
        ("an event ahead", "My surgery is next month.", True),
        ("an event ahead", "I'm organising my sister's hen party.", True),
        ("an event ahead", "I'm going to a party on Saturday.", True),
        # no time ahead, a time that repeats, or no event
        ("an event ahead", "I have a meeting.", False),
        ("an event ahead", "We have a meeting every Monday at 9.", False),
        ("an event ahead", "I had a great party last night.", False),
        ("an event ahead", "I'm going to the gym on Monday.", False),
    ],
)
def test_the_user_ill_or_away_now(state: str, statement: str, expected: bool) -> None:
    column = states_column(f"user: {statement}")
    assert (column is not None and in_states_column(column, state)) is expected


async def test_being_well_again_ends_the_illness_not_what_lasts(alice: LocalBackend) -> None:
    """News of being well again ends what the user said of an illness that passes; a condition
    that lasts stays current, and someone else's recovery ends nothing."""
    cold = "I have a bad cold, so no gym this week."
    asthma = "I have asthma."
    await _say(alice, cold, asthma)
    await _say(alice, "My son is feeling better.", at=T0 + timedelta(days=3))
    assert (await _ends(alice, "cold asthma gym"))[f"user: {cold}"] is None
    later = T0 + timedelta(days=6)
    await _say(alice, "Feeling much better now, the cold is gone.", at=later)
    ended = await _ends(alice, "cold asthma gym")
    assert ended[f"user: {cold}"] == later
    assert ended[f"user: {asthma}"] is None


async def test_a_home_bought_ends_the_renting_and_the_office_the_working_from_home(
    alice: LocalBackend,
) -> None:
    """Buying one's own home ends what the user said of renting (and of the landlord); going
    back to the office ends working from home; a purchase or an office day that is someone
    else's, or ahead, ends nothing."""
    rent = "We rent a flat in Hackney."
    landlord = "Our landlord raised the rent again."
    remote = "I work from home, so lunch is whatever is in the fridge."
    await _say(alice, rent, landlord, remote)
    later = T0 + timedelta(days=10)
    await _say(alice, "My parents bought a house.", "Back in the office tomorrow.", at=later)
    query = "flat Hackney landlord rent lunch fridge"
    assert set((await _ends(alice, query)).values()) == {None}
    last = T0 + timedelta(days=20)
    await _say(alice, "We bought a house!", "I'm back in the office full time now.", at=last)
    ended = await _ends(alice, query)
    assert ended[f"user: {rent}"] == last
    assert ended[f"user: {landlord}"] == last
    assert ended[f"user: {remote}"] == last + timedelta(days=1)


async def test_news_of_an_event_closes_the_one_it_names(alice: LocalBackend) -> None:
    """Of two interviews ahead, news that does not say which closes neither; news naming one
    closes that one; someone else's news closes nothing."""
    google = "I have a job interview at Google on Friday."
    meta = "I have an interview at Meta next week."
    await _say(alice, google, meta)
    later = T0 + timedelta(days=5)
    await _say(alice, "My friend's interview went well.", "The interview went well!", at=later)
    assert set((await _ends(alice, "interview Google Meta")).values()) == {None}
    last = T0 + timedelta(days=6)
    await _say(alice, "The interview at Google went really well!", at=last)
    ended = await _ends(alice, "interview Google Meta")
    assert ended[f"user: {google}"] == last
    assert ended[f"user: {meta}"] is None
    after = T0 + timedelta(days=12)
    await _say(alice, "The interview went well, fingers crossed.", at=after)  # one left now
    assert (await _ends(alice, "interview Google Meta"))[f"user: {meta}"] == after


async def test_home_again_ends_the_stay_away_not_the_trip_ahead(alice: LocalBackend) -> None:
    """Being home again, in words that name no place, ends where the user said they were
    staying; a trip still ahead stays current."""
    lisbon = "I'm in Lisbon for a week, the food is amazing."
    tokyo = "I'm going to Tokyo in November."
    await _say(alice, lisbon, tokyo)
    later = T0 + timedelta(days=8)
    await _say(alice, "Back home in Leeds now.", at=later)
    ended = await _ends(alice, "Lisbon Tokyo food")
    assert ended[f"user: {lisbon}"] == later
    assert ended[f"user: {tokyo}"] is None


async def _say(alice: LocalBackend, *said: str, at: datetime = T0) -> None:
    """Each of `said` in thread "a1", a day apart from `at`."""
    for n, text in enumerate(said):
        await alice.add_messages("a1", [Message("user", text, created_at=at + timedelta(n))])


async def _ends(alice: LocalBackend, query: str) -> dict[str, datetime | None]:
    """The facts a search for `query` finds, each with when it ended (None: current)."""
    found = await alice.search(SearchRequest(query, user_id="alice", limit=10))
    return {edge.fact: edge.invalid_at for edge in found.edges}


async def test_a_repair_ends_the_breakdown_and_nothing_else_broken(alice: LocalBackend) -> None:
    """News of a repair ends the breakdown of the thing it names; another thing still broken
    stays current."""
    car = "My car broke down on the way to work."
    laptop = "My laptop stopped working."
    fixed = "The car is fixed now, the garage replaced the clutch."
    await _say(alice, car, laptop)
    later = T0 + timedelta(days=5)
    await _say(alice, fixed, at=later)
    ended = await _ends(alice, "car laptop")
    assert ended[f"user: {car}"] == later
    assert ended[f"user: {laptop}"] is None


async def test_news_reads_only_the_statements_in_a_state_however_old(
    alice: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """News of an outcome reads the statements kept as being in a state (their `states`), so
    a state told long ago is closed too, and no other statement is read."""
    monkeypatch.setattr(supersede, "RECENT_PROFILE", 3)  # the bound of the other checks
    told = [
        "I'm learning to drive.",
        "I live in Leeds.",
        "I work at the bank.",
        "I have a cat called Tom.",
        "I'm waiting for my visa.",
    ]
    for n, said in enumerate(told):
        await alice.add_messages("a1", [Message("user", said, created_at=T0 + timedelta(n))])
    later = T0 + timedelta(days=30)
    said_sql: list[str] = []
    alice._engine.run(lambda conn: conn.set_trace_callback(said_sql.append))
    for news in ("Passed my driving test!", "Visa approved!"):
        await alice.add_messages("a1", [Message("user", news, created_at=later)])
    alice._engine.run(lambda conn: conn.set_trace_callback(None))
    ended = {
        f.fact: f.invalid_at
        for f in (await alice.search(SearchRequest("driving visa", user_id="alice"))).edges
    }
    assert ended["user: I'm learning to drive."] == later  # fifth newest, closed all the same
    assert ended["user: I'm waiting for my visa."] == later
    read = [sql for sql in said_sql if "s.states IN" in sql]
    assert len(read) == 2  # one read per piece of news, values bound in its text
    plans = alice._engine.read(
        lambda conn: [conn.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall() for sql in read]
    )
    for plan in plans:  # sought by its state's value, and the few in several states apart
        steps = [row[-1] for row in plan]
        assert any("statements_states (graph=? AND states=?)" in step for step in steps), steps
        assert any("statements_states_many (graph=?)" in step for step in steps), steps


async def test_a_statement_in_two_states_ends_by_the_news_of_either(alice: LocalBackend) -> None:
    """A statement in several states ("|exams|training|") is read apart from those in one, and
    news of one of them ends it."""
    both = "I'm revising for my exams and training for the Leeds half marathon."
    await alice.add_messages("a1", [Message("user", both, created_at=T0)])
    states = alice._engine.read(
        lambda conn: conn.execute(
            "SELECT states FROM statements WHERE states IS NOT NULL"
        ).fetchall()
    )
    assert [row[0].count("|") for row in states] == [3]  # two states
    later = T0 + timedelta(days=30)
    await alice.add_messages(
        "a1", [Message("user", "Ran the Leeds half marathon!", created_at=later)]
    )
    found = await alice.search(SearchRequest("marathon exams", user_id="alice"))
    assert {edge.fact: edge.invalid_at for edge in found.edges}[f"user: {both}"] == later


async def test_news_that_closes_nothing_reads_no_statements(alice: LocalBackend) -> None:
    """Someone else's news of a kind that needs a shared word is not checked against each of
    the user's statements: it could close none of them."""
    await alice.add_messages("a1", [Message("user", "I'm waiting for my visa.", created_at=T0)])
    said: list[str] = []
    alice._engine.run(lambda conn: conn.set_trace_callback(said.append))
    later = T0 + timedelta(days=30)
    await alice.add_messages(
        "a1", [Message("user", "My sister's visa got approved!", created_at=later)]
    )
    alice._engine.run(lambda conn: conn.set_trace_callback(None))
    assert not [sql for sql in said if "ORDER BY id DESC LIMIT" in sql and "profile" in sql]
    await alice.add_messages("a1", [Message("user", "Visa approved!", created_at=later)])
    found = await alice.search(SearchRequest("visa", user_id="alice"))
    ended = {edge.fact: edge.invalid_at for edge in found.edges}
    assert ended["user: I'm waiting for my visa."] == later


@pytest.mark.parametrize(
    ("news", "relatives"),
    [
        ("My dad passed away last month.", {"father"}),
        ("Mum died on Tuesday.", {"mother"}),
        ("We lost Grandma in March.", {"grandma"}),
        ("my nan passed yesterday", {"grandma"}),
        ("My father-in-law passed away.", {"father-in-law"}),
        ("cian and i broke up.", {"partner"}),
        ("me and kayla are done.", {"partner"}),
        ("not with maya anymore. she ended it over text", {"partner"}),
        ("I'm not with Tom anymore.", {"partner"}),
        ("My husband left me.", {"partner"}),
    ],
)
def test_news_that_someone_close_is_gone_names_them(news: str, relatives: set[str]) -> None:
    assert outcomes_told(news) == ("someone close",)
    assert shared_with("someone close", f"user: {news}") == relatives


@pytest.mark.parametrize(
    ("statement", "closed"),
    [
        ("My dad has dementia.", True),
        ("Dad's in a care home in Ayr.", True),
        ("I'm my dad's full-time carer.", True),
        ("My mum lives in Leeds.", False),  # another relative
        ("My dad taught me to fish.", False),  # told of the past
        ("My friend's dad has dementia.", False),
    ],
)
def test_what_a_fathers_death_closes(statement: str, closed: bool) -> None:
    state = "someone close"
    shared = shared_with(state, "user: My dad passed away on Sunday.")
    assert closes(state, f"user: {statement}", shared) is closed


async def test_a_relatives_death_ends_what_was_said_of_their_life(told_monthly: Told) -> None:
    """ "My dad passed away" ends his dementia and the care home, not the mother's home nor
    what he did in the past."""
    said = ["My dad has dementia.", "My mum lives in Leeds.", "My dad taught me to fish."]
    ended = await told_monthly("dad mum", *said, "My dad passed away last week.")
    assert ended[said[0]] == T0 + timedelta(days=90)
    assert ended[said[1]] is None
    assert ended[said[2]] is None


async def test_a_breakup_ends_what_was_said_of_the_partner_now(told_monthly: Told) -> None:
    """A partner named in lower case is no entity: the breakup ends what was said of "my
    boyfriend" now, not the user's own job nor a friend's boyfriend."""
    said = [
        "my boyfriend cian is turning 25 next week",
        "I work at a cafe in rathmines.",
        "My friend's boyfriend is a chef.",
    ]
    ended = await told_monthly("boyfriend cafe", *said, "cian and i broke up.")
    assert ended[said[0]] == T0 + timedelta(days=90)
    assert ended[said[1]] is None
    assert ended[said[2]] is None
