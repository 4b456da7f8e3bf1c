"""Chatter makes no statement: questions, requests, politeness and acknowledgements."""

from __future__ import annotations

import pytest

from zepkit.core._backend import SearchRequest
from zepkit.core._models import Message
from zepkit.local import LocalBackend
from zepkit.local.chatter import is_chatter


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("Hi!", "user"),
        ("Cool, thanks.", "user"),
        ("Huh, good to know.", "user"),
        ("I'll consider it.", "user"),
        ("How do I clean a cast iron pan?", "user"),
        ("What else?", "user"),
        ("Tell me something surprising about octopuses.", "user"),
        ("Can you plan a relaxed Saturday for me?", "user"),
        ("Please summarise this article.", "user"),
        ("Welcome to Lisbon, Maya!", "assistant"),
        # a name called out in praise, not news of them
        ("Nice job, Maria!", "user"),
        ("Wow, John, awesome job!", "user"),
        ("That's so moving!", "user"),
        ("Congratulations on the new job.", "assistant"),
        ("Noted: no peanuts in anything I suggest.", "assistant"),
        ("Thank you, I'll keep that in mind.", "assistant"),
        ("Glad it helped.", "assistant"),
        ("Here are a few more ideas.", "assistant"),
        ("I guess that works.", "user"),
        ("What do you think, should I go?", "user"),  # a question first: nothing said
        ("Paris is lovely, should I go?", "user"),  # a name first, but no health or diet
        ("By the way, how are you?", "user"),
        ("I was wondering, could you recommend a book?", "user"),  # only leads into asking
        ("Can you help me, I'm stuck?", "user"),
        ("Since I'm diabetic, what dessert can I have?", "assistant"),  # echoed, not said
        ("Please summarise my notes.", "user"),  # "my", but only what to do
        ("Help me tidy my house.", "user"),  # a home, but no place named
        ("Can you come to my place on Monday?", "user"),  # a day, not a place
        ("Write a poem about your cat.", "user"),  # the listener's
        ("Please write it again, I didn't like it.", "user"),  # a taste in passing
        ("Please note the meeting is at 3.", "user"),  # nothing of the user's to remember
        ("Please don't recommend it to anyone.", "user"),  # a request about one thing
        ("Your pup is so cute, remind me what's their name?", "user"),  # the listener's pet
        ("How do I fix my bike's chain?", "user"),  # "my", but nothing of health, diet, people
        ("Is a vegan diet healthy?", "user"),  # diet, but not the user's
        ("Please fix my code, it crashes.", "user"),  # "it": no one of the user's
        ("Summarise this article, they say it is good.", "user"),
        ("As a beginner, what should I learn first?", "user"),  # nothing of the user's kinds
        ("As a parent, what would you do?", "user"),  # then asks about the listener
        ("As a kid, what games were popular?", "user"),  # what the user was once
        ("Sounds fiddly", "user"),  # a reaction
        ("sounds like a plan", "user"),
        ("Ha, classic", "user"),
        ("Nice trick", "user"),
        ("gotta run, thanks", "user"),  # a farewell
        ("brb", "user"),
        ("As a nurse on night shifts, how do I sleep?", "assistant"),  # echoed, not said
        ("how do i clean a cast iron pan", "user"),  # a question without its mark
        ("whats the capital of peru", "user"),
        ("how long do i boil an egg", "user"),
        ("which laptop should i buy for college", "user"),
        ("should i bring an umbrella", "user"),
        ("any tips for a first date", "user"),
        # a question typed with a full stop: its verb comes before its subject
        ("Where do I even start.", "user"),
        ("What columns should I use.", "user"),
        ("how long should we leave it.", "user"),
        # asking to be reminded of what the user said tells nothing new
        ("What's my dog's name?", "user"),
        ("What are my allergies?", "user"),
        ("Remind me what I said about my allergies?", "user"),
        ("Do you remember my wife's name?", "user"),
        ("What do you know about my family?", "user"),
        ("Did I mention my diet to you?", "user"),
        ("How old is my son?", "user"),
        ("what's my husband's name again", "user"),
        ("Can you plan my trip to the beach?", "user"),  # no place named
        ("can you plan my trip to the beach", "user"),
        ("What should I do now that it's raining?", "user"),  # nothing of the user's
        ("How should I cook kidney beans for my chilli?", "user"),  # food, not health
        ("Can you check your answers?", "user"),  # the answers, not how to give them
        ("Do you always answer in English?", "user"),  # asks about the assistant's ways
        ("Could you always be this helpful?", "user"),
        ("Could you make the answers rhyme this time?", "user"),  # these answers, this once
        ("Can you keep the answers coming?", "user"),
        # acknowledgements without a word of news
        ("Makes sense.", "user"),
        ("Got it, thanks a lot.", "user"),
        ("Fair enough.", "user"),
        ("Gotcha.", "user"),
        ("Good point.", "user"),
        ("Right, that's useful.", "user"),
        ("I'll check it out.", "user"),
        ("Thanks for the tip.", "user"),
        ("Hmm, maybe.", "user"),
        ("See you later.", "user"),
        ("That's everything, thanks.", "user"),
        ("Hey Sam, good to hear from you.", "user"),  # a name and a "from" of no home
        ("Legend, thanks.", "user"),
        ("ty!", "user"),
        # a short request closed by "please"
        ("Random fact please.", "user"),
        ("Another one pls", "user"),
        ("surprise me with a fact", "user"),  # a request without its question mark
        ("how to remove a red wine stain", "user"),
        ("how many tbsp in a cup", "user"),
        ("kk", "user"),
        # stepping away, signing off, picking one of the answer's options
        ("brb, coffee", "user"),
        ("gtg, dinner's ready", "user"),
        ("ok I'm done for today lol", "user"),
        ("signing off now", "user"),
        ("first one works, ty", "user"),
        # a request after a word of transition
        ("anyway can you help me rewrite this bio for the company website", "user"),
        ("ok so can you list three ideas", "user"),
        # the user taking the assistant's advice, asking for help with a task
        ("ok I'll try that tomorrow morning", "user"),
        ("Thanks, that helps me get started.", "user"),
        ("I'll fill it in and send it round.", "user"),
        ("I need to write a job ad for a part-time admin assistant.", "user"),
        ("I need a project idea for a machine learning coursework module, ideally short.", "user"),
        ("Help me write a cold email to a potential partner company.", "user"),
        ("Thanks again, I owe you a coffee.", "user"),
        ("how do i get a toddler to brush their teeth without a fight", "user"),  # any toddler
        ("Can you do one for chasing a colleague who promised me numbers yesterday?", "user"),
        ("Is Messi, who's 37, still playing?", "user"),  # a grown-up's age: anyone's
        ("Okay, I'll give those a go tomorrow after work.", "user"),  # work as a time of day
        ("What do you think: 'Ping | 20ms | ok | fine'", "user"),  # values, no bio
    ],
)
def test_chatter(sentence: str, role: str) -> None:
    assert is_chatter(sentence, role=role)


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("I'm Maya.", "user"),
        # the same words beside news are kept
        ("Sounds like my dad.", "user"),
        ("Looks like I need 3 more shifts.", "user"),
        ("Gotta run, my son is home.", "user"),
        ("Wild camping is my thing.", "user"),
        ("I love classic cars.", "user"),
        ("I travel a lot for work.", "user"),
        ("I go to the gym before work.", "user"),
        ("My best friend is Tom.", "user"),
        ("Maybe I'll move to Spain.", "user"),
        ("I won't give up on it.", "user"),
        ("Not bad, my knee still hurts though.", "user"),
        ("I'm allergic to bee stings and I carry an EpiPen.", "user"),
        ("I follow a vegan diet.", "user"),
        ("My hamster Nugget loves sunflower seeds.", "user"),
        ("Thanks, I'm vegan though.", "user"),
        ("Sounds fun, I'm going to the lake next week.", "assistant"),
        ("Filter coffee often has more caffeine per cup.", "assistant"),
        ("Refunds take 5 business days.", None),
        ("Caroline: I went to a support group yesterday!", "user"),
        ("Kids are resilient in tough situations!", "assistant"),
        ("Since I'm diabetic, what dessert can I have?", "user"),  # said before asking
        ("My son is 5, what books would he like?", "user"),
        ("Linda's on warfarin for her AFib, does that make it pricier?", "user"),  # her health
        (
            "Please remind them to park in the street — Graciela's wheelchair needs the space.",
            "user",
        ),
        ("I'm allergic to nuts — is this cake safe?", "user"),
        ("So I just moved to Lisbon, where should I live?", "user"),
        ("Please remember that I'm vegan.", "user"),  # what to remember is a fact
        ("Please note: my son is allergic to eggs.", "user"),
        ("Can you remember that my wife is pregnant?", "user"),
        ("Please help me, I'm diabetic and need a menu.", "user"),  # told while asking
        ("Please don't expect quick answers on Fridays — I keep Shabbat, no phone.", "user"),
        ("Find me a hotel in Rome, my budget is 100 a night.", "user"),
        ("Is it safe for me to eat sushi while pregnant?", "user"),  # gives the user away
        ("How do I stop my new puppy from chewing shoes?", "user"),
        ("Please always reply in Spanish.", "user"),  # a request that stands for every turn
        # how to speak, asked as a question or a request to stop
        ("Can you not use emojis with me?", "user"),
        ("please don't call me dear or sweetie, it's weird coming from an AI.", "user"),
        ("Can you drop the follow-up questions at the end?", "user"),
        ("please don't sugarcoat, be brutally honest.", "user"),
        ("please don't moralize, I'm a crime reporter, I know it's bad.", "user"),
        ("From now on, keep your answers short.", "user"),
        ("Please don't suggest anything with mushrooms.", "user"),  # what never to offer
        ("Please use metric units.", "user"),  # units for every answer
        ("No onions please.", "user"),  # what the user will not have
        ("Metric only please.", "user"),
        ("Vegan options please.", "user"),  # a diet told in the request
        ("My usual please.", "user"),
        ("how long i have lived here: 10 years", "user"),
        ("Half Japanese, half Scottish.", "user"),  # a heritage, not names said in passing
        ("It is an HP LaserJet Pro M15w.", "user"),  # what a thing is, by its make
        # asked as what the speaker is, by a role or "X here"
        (
            "Speaking as a sub-3 marathoner (2:57 in Berlin last year), are carbon shoes worth "
            "it for training?",
            "user",
        ),
        ("first-time buyer here, what does a 'mortgage in principle' mean?", "user"),
        ("Yours truly is 7 months pregnant, what are the absolute essentials?", "user"),
        # a statement typed with a question mark of doubt or wonder, asking nothing
        ("callum's dragged me bouldering 3 times this month n i actually kinda love it??", "user"),
        ("i think i'm lactose intolerant?", "user"),
        ("Mine's a Pixel 7.", "user"),
        ("A Toyota Corolla.", "user"),  # a belonging named
        ("Promoted to head chef!", "user"),  # the user's news, not a cheer
        ("help me plan a party for my son, he is turning 6 and loves dinosaurs", "user"),
        ("Write a poem for my wife, she loves roses.", "user"),  # going on about someone
        ("Just got engaged!!", "user"),  # news without "I", not a cheer
        ("Finally settled in Kitsilano!!", "user"),  # a home, not a cheer
        # doubt typed as "??" after a "have" that is no question's ("I don't have that many")
        ("it's a Pixel 7a with 128GB and I don't have that many photos??", "user"),
        ("Turning 30 next week!", "user"),  # a number is news, not a cheer
        ("New puppy!!!", "user"),  # so is a headline of the speaker's own
        ("Three months smoke-free now!", "user"),  # and a span counted: a milestone
        ("The adoption went through!", "user"),  # news of an outcome, not a cheer
        ("Kitchen refit done, finally!", "user"),
        # short news of a thing and what was done to it
        ("Boiler fixed!", "user"),
        ("Tax return filed!", "user"),
        ("Passport renewed at last!", "user"),
        ("Garage cleared out!", "user"),
        ("Mortgage paid off!", "user"),
        ("Flight cancelled!", "user"),
        ("Bike stolen!", "user"),
        ("The vet appointment booked!", "user"),
        ("Coffee lover here!", "user"),  # what the speaker is, not a cheer
        ("Hate cooking!", "user"),
        ("Teaching English in Seoul.", "user"),  # capitalised words, but not only names
        ("As a nurse on night shifts, how do I sleep during the day?", "user"),  # asked as one
        ("As someone who works nights, how should I plan my meals?", "user"),
        ("What's a good stretch for my bad knee?", "user"),  # gives the user's health away
        ("any ideas for a gift for my wife", "user"),  # unmarked, and gives the user away
        ("What is important to me is family.", "user"),  # a full stop: not a question
        ("What I need is a quiet flat near work.", "user"),  # no verb before its subject
        ("When we moved to Leeds we had nothing.", "user"),  # "we", but no verb before it
        ("Please don't use abbreviations or tech jargon with me.", "user"),  # every answer's form
        ("Please answer in simple English, I am still learning.", "user"),
        ("it's twins!!", "user"),  # a baby's news, not a cheer
        ("It's a girl!", "user"),
        ("when i was a kid i lived in spain", "user"),  # "when", but no question's verb
        ("when my son was little he loved trains", "user"),
        ("what a great day it was at the lake with my kids", "user"),
        ("how do i clean a pan", None),  # data is not chat: read as written
        ("Do you know any good vets for my cat?", "user"),  # asks, but gives the cat away
        ("What should I feed my diabetic cat?", "user"),
        # a request that gives away the user's people, home by its place or business
        ("Write a poem for my wife.", "user"),
        ("Draft an email to my landlord about the damp in my flat in Glasgow.", "user"),
        ("Can you suggest a name for my new bakery?", "user"),
        # ... a trip they are making, the job they do, their health by a medicine or procedure
        ("Should I get travel insurance for my trip to Peru in April?", "user"),
        ("should i get travel insurance for my trip to peru in april", "user"),  # no capitals
        ("How do I set up a budget on my part-time barista wage?", "user"),
        ("Is it safe to take ibuprofen if I'm on warfarin?", "user"),
        ("how long should i rest after my c-section before driving", "user"),
        ("How much water should I drink now that I'm breastfeeding?", "user"),  # told as it asks
        # a standing instruction put as a question
        ("Can you make your answers bullet points from now on?", "user"),
        ("Could you always answer in bullet points?", "user"),
        # ... or asked with "from now on" and the reason after it
        (
            "Please give me answers in bullet points from now on - I skim everything on my phone.",
            "user",
        ),
        ("Keep answers short from now on, since I read them between meetings.", "user"),
        # away or asking, with something of the user's
        ("brb my dog is barking", "user"),
        ("gotta run, my son's school called", "user"),
        (
            "anyway can you help me write to my landlord about the damp in my flat in Glasgow",
            "user",
        ),
        ("so plan b failed", "user"),  # no request after the transition
        ("First day at Infineon.", "user"),
        ("ok I'll ask my doctor about the rash", "user"),
        ("I'll try the new gym on Monday", "user"),
        ("ok, I'll start at Lidl on Monday then", "user"),
        ("I need help, I was diagnosed with diabetes.", "user"),
        ("I need to write to my landlord about the damp in my flat in Glasgow.", "user"),
        ("I need ideas for my daughter's 5th birthday party", "user"),
        ("I need to lose weight.", "user"),
        ("how do i get my toddler to sleep", "user"),
        ("the car's a 2014 skoda octavia estate, worth a service before winter?", "user"),
        # children named with their ages inside a request
        ("Can you suggest a dinner that Cillian, who's 6, and Nora, who's 3, will eat?", "user"),
        ("ok I'll ask at work about the night shifts", "user"),  # the work itself is told
        # a bio of the user's, quoted for an opinion
        ("What do you think: 'Sofía | 27 | in London | allergy = peanut, EpiPen always'", "user"),
        # news of someone by their name, exclaimed
        ("Efua is pregnant!", "user"),
        ("Tom got the job!", "user"),
    ],
)
def test_facts(sentence: str, role: str | None) -> None:
    assert not is_chatter(sentence, role=role)


@pytest.mark.parametrize(
    "sentence",
    [
        "Thanks, Melanie!",
        "Caroline: Cool!",
        "so I just add water?",  # a check, of no kind of the user's
        "I need a visa for Japan?",  # asked, with "need"
        "Any tips for keeping my sourdough starter alive while I'm traveling for 2 weeks?",
        "Hey Mel, long time no chat!",
        "That's great news about your friend!",
        "Your garden looks amazing!",
        "Well done!",
        "Push through it and you'll make it!",  # an outcome, but the listener's
        "New record!",  # a headline of nothing of the speaker's
        "What a day!",  # no number: no span counted
        "Asking for a friend.",  # the question before was someone else's
        "Asking for a friend lol",
        # a stock phrase of praise or assent has the shape of short news
        "Nicely done!",
        "Job done!",  # "done" and "accepted" tell outcomes, but not in these two words
        "Challenge accepted!",
        "Mission accomplished!",
        "Point taken!",
        "Problem solved!",
        "Crisis averted!",
        "Much appreciated!",
        "Hugs sent!",
        "Mood lifted!",
    ],
)
def test_greetings_names_and_cheers_are_chatter(sentence: str) -> None:
    assert is_chatter(sentence, role="user")


@pytest.mark.parametrize("sentence", ["Boiler fixed!", "Tickets booked!", "Table booked!"])
def test_short_news_is_the_users_only(sentence: str) -> None:
    """The same words from the assistant report its own errand, as before: chatter."""
    assert not is_chatter(sentence, role="user")
    assert is_chatter(sentence, role="assistant")


async def test_short_news_is_remembered(alice: LocalBackend) -> None:
    """Said without a subject, it is still the user's fact: a later search finds it."""
    await alice.add_messages("a1", [Message("user", "Boiler fixed!"), Message("user", "Nice!")])
    found = await alice.search(SearchRequest("boiler", user_id="alice", scope="edges"))
    assert [edge.fact for edge in found.edges] == ["user: Boiler fixed!"]


@pytest.mark.parametrize(
    "sentence",
    [
        "soy celíaca so no wheat at all, is it hard to eat out there?",
        "mia figlia è allergica alle noci, what cake can I make?",
        "meri beti has asthma, is the smoke from fireworks bad for her?",
        # told in numbers alone before the question
        "I'm 6'2, 130 kg, what chair actually holds up?",
        "I'm 72, what exercise is safe for me?",
        # a view of one's own, asked in disbelief
        "ok hot take: raw tomatoes are my nemesis, but raw slices??",
    ],
)
def test_a_question_that_first_tells_of_the_user_is_kept(sentence: str) -> None:
    assert not is_chatter(sentence, role="user")


def test_a_bare_count_before_a_question_tells_nothing() -> None:
    assert is_chatter("I have 2, which one should I keep?", role="user")
