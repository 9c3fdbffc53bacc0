"""The twenty-third round's mechanisms (each positive case failed on the code before):

- a speaker's announcement frame around the fact they tell ("I would like to inform you
  that ...", "Me gustaría informarle que ...", "Хочу сообщить, что ...", "FYI", "...とお知らせ
  します") is no part of the fact: its words read as a wish ("would like to", "vorrei") or as
  a subject ("хочу"), so the rule reads the fact after it, behind the speaker's label; the
  extractor's unlabelled voice ("Dear assistant, the user would like to inform you that their
  ...") is read behind the user's label where the words before the frame name the user;
- a frame told after a relative ("Mi hermana quería contarte que ...") announces that person's
  news, and a frame around an additive fact ("I also adopted a cat") adds it: neither
  replaces the user's older fact;
- a clause saying the older's value still holds, naming every name the older holds ("Ellers
  bor vi stadig i Odense"), tells it again beside other news: the attribute both name does
  not make the news a new value of it;
- a relative time ("geçen ay", "last month", from the CLDR through Babel in every language)
  joined to a value by a coordinator ("Emre ile geçen ay nişanlandık": with Emre, last month,
  we got engaged) is no second value held beside the older's;
- a first day at work ("first day at KPMG tomorrow", "mein erster Tag bei Bosch", "初出社")
  names the employer, as working somewhere does: a lexicon row in every language;
- a statement opening as a condition ("if I moved to Berlin I'd ...", "Wenn ich nach Berlin
  ziehen würde", "如果我搬到北京") supposes a state: a lexicon row of condition openers in
  every language, read only where the statement opens, and not before a comma ("Sí, ...");
- one thing the older names ("a dog named Rex") is that one, not a count: "we got a second
  dog, Luna!" adds a dog;
- dictated speech parts its clauses by "and then" ("und dann", "et puis", "a potem": a
  `sequence_joiners` row in twenty lexicons) where it has no punctuation, so a long
  unpunctuated memory's last clause may say a quantity moved;
- a clause of a long memory saying the older's own thing was moved ("Festen er rykket til
  søndag ...", its compound head naming "fødselsdagsfest") changes it, as in a short fact.
"""

from __future__ import annotations

from typing import Any

import pytest
from memorist.engine.supersession_clauses import clause_readings
from memorist.engine.supersession_reports import told
from memorist.language.calendar import relative_time_phrases

from tests.supersession_pairs import current_adds, replaces_as_told


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # As the English extractor stores "Dear assistant, I would like to inform you that my
        # dental appointment has been rescheduled ...".
        (
            "The user's dentist appointment is on 12 March at 9:30.",
            "Dear assistant, the user would like to inform you that their dental appointment has been "
            "rescheduled by the practice to 19 March at 14:00.",
        ),
        (
            "The user's manager is Tom Baker.",
            "The user would like to let you know that their manager is now Angela Kim.",
        ),
        ("The user works at Google.", "The user would like to inform you that they now work at Spotify."),
        ("The user: Vivo en Sevilla.", "The user: Me gustaría informarle que me he mudado a Valencia."),
        ("The user: Abito a Torino.", "The user: Vorrei informarla che mi sono trasferita a Bologna."),
        ("The user: Moro em Lisboa.", "The user: Gostaria de informar que me mudei para o Porto."),
        ("The user: Jag bor i Uppsala.", "The user: Jag skulle vilja informera er om att jag har flyttat till Malmö."),
        (
            "The user: Μένω στην Αθήνα.",
            "The user: Θα ήθελα να σας ενημερώσω ότι μετακόμισα στη Θεσσαλονίκη.",
        ),
        (
            "The user: Saya tinggal di Bandung.",
            "The user: Saya ingin memberitahu bahwa saya sekarang tinggal di Surabaya.",
        ),
        (
            "The user: Tôi làm việc ở FPT.",
            "The user: Tôi muốn báo cho bạn biết là bây giờ tôi làm việc ở Viettel.",
        ),
    ],
)
def test_a_fact_told_inside_an_announcement_replaces_the_older(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # The frame wraps one more pet, not another.
        ("The user has a dog.", "The user wanted to tell you that they also adopted a cat."),
        ("The user: Ich habe einen Hund.", "The user: Ich wollte dir sagen, dass ich auch eine Katze adoptiert habe."),
        # The frame wraps another person's move.
        ("The user lives in Milan.", "The user: Just so you know, my sister moved to Rome."),
        ("The user: Я живу в Москве.", "The user: Хочу сообщить, что моя сестра переехала в Казань."),
        # The frame follows a relative: her news, told by the user.
        ("The user: Vivo en Sevilla.", "The user: Mi hermana quería contarte que vive en Valencia."),
    ],
)
def test_an_announced_addition_or_anothers_change_replaces_nothing(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "The user: Хочу сообщить, что с 1 февраля я перешла в Сбер аналитиком.",
            "The user: с 1 февраля я перешла в Сбер аналитиком.",
        ),
        ("The user: Sana haber vermek istedim: Emre ile nişanlandık!", "The user: Emre ile nişanlandık!"),
        ("The user: Je tenais à vous informer que je vis à Nantes.", "The user: je vis à Nantes."),
        ("The user: Ich wollte Ihnen mitteilen, dass ich umgezogen bin.", "The user: ich umgezogen bin."),
        ("The user: Hi! Just so you know, I moved to Porto.", "The user: I moved to Porto."),
        ("Quick update: the user's rent went up to 1,650 euros.", "the user's rent went up to 1,650 euros."),
        ("The user: FYI I switched to a Pixel 8.", "The user: I switched to a Pixel 8."),
        ("The user: Please note that my number changed.", "The user: my number changed."),
        # The frame after the fact, in a language that puts the verb last.
        ("The user: 大阪に引っ越したことをお知らせします。", "The user: 大阪に引っ越した"),
        ("The user: 부산으로 이사했다고 알려드려요.", "The user: 부산으로 이사했다"),
        ("The user: İzmir'e taşındım, bilgin olsun.", "The user: İzmir'e taşındım"),
        # Inside a run written without spaces, past the speaker's pronoun.
        ("The user: 我想告诉你我搬到上海了。", "The user: 我搬到上海了。"),
        # The extractor's voice: the words before the frame name the user.
        ("The user is writing to let you know that they moved to Berlin.", "The user: they moved to Berlin."),
    ],
)
def test_the_announcement_frame_is_dropped(text: str, fact: str) -> None:
    assert told(text) == fact


@pytest.mark.parametrize(
    "text",
    [
        # Words before the frame that name someone else: left as told.
        "My sister wants you to know that she moved.",
        "The user: Mi hermana quería contarte que vive en Valencia.",
        # An opener counts only where a clause opens: "heads up" is a verb here.
        "The user: My team heads up the new project.",
        # A frame with nothing after it wraps no fact.
        "The user: Just so you know.",
    ],
)
def test_what_is_no_announcement_of_the_users_fact_stays(text: str) -> None:
    assert told(text) == text


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (
            [
                "My dentist appointment is on 12 March at 9:30.",
                "Dear assistant, I would like to inform you that my dental appointment has been rescheduled "
                "by the practice to 19 March at 14:00.",
            ],
            [1],
        ),
        (["I work at Google.", "I would like to inform you that I now work at Spotify."], [1]),
        (["I have a dog.", "I wanted to tell you that I also adopted a cat."], [0, 1]),
        (["I live in Milan.", "Just so you know, my sister moved to Rome."], [0, 1]),
    ],
)
def test_an_announced_change_is_current_through_the_engine(engine: Any, adds: list[str], current: list[int]) -> None:
    # One user per case: the first add's last word ("9:30.", "Google.", "dog.", "Milan.").
    user = "r23-" + adds[0].split()[-1]
    assert current_adds(engine, user, adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "The user: Jeg bor i Odense.",
            "The user: Vores sommerhus ligger i Marielyst, og vi er der det meste af juli. "
            "Ellers bor vi stadig i Odense.",
        ),
        (
            "The user: Jag jobbar som sjuksköterska på Karolinska.",
            "The user: Min sambo Johan har fått jobb på Ericsson i Kista, han börjar i april. Själv blir jag kvar "
            "på Karolinska, jag trivs för bra.",
        ),
        (
            "The user lives in Leeds.",
            "The user's parents bought a flat in Spain, and the user still lives in Leeds.",
        ),
    ],
)
def test_a_value_told_as_still_held_beside_news_replaces_nothing(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # The same attribute with another value, or the older's name with a new state, still replaces.
        ("The user: Jeg bor i Odense.", "The user: Vi bor i Aarhus nu, og sommerhuset ligger i Marielyst."),
        ("The user is a junior lawyer at Baker McKenzie.", "The user was promoted to associate at Baker McKenzie."),
    ],
)
def test_a_new_value_beside_the_older_name_still_replaces(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "The user: Jeg holder fødselsdagsfest lørdag den 12. april.",
            "The user: Festen er rykket til søndag den 13. april kl. 14, fordi salen var optaget. Min søster "
            "kommer fra Aarhus til festen.",
        ),
        (
            "The user: La boda de mi prima Lucía es el 14 de junio en Sevilla.",
            "The user: ojo, la boda se ha pasado al 20 de septiembre por la reforma de la finca.",
        ),
        ("The user: Pago 950 euros de renda.", "The user: a partir de 1 de julho a renda passa a ser 1.020 euros."),
    ],
)
def test_a_moved_thing_or_a_value_become_replaces_the_older(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user: Sevgilim Emre ile iki yıldır birlikteyiz.", "The user: Emre ile geçen ay nişanlandık!"),
        (
            "The user: Je suis en couple avec Julien.",
            "The user: Petit bilan de l'été : Julien et moi, c'est fini depuis juillet, on s'est quittés en bons "
            "termes. J'ai repris la natation et j'ai adopté une chatte qui s'appelle Figue. Côté boulot, rien de neuf.",
        ),
    ],
)
def test_a_relationship_changed_with_the_named_partner_replaces_the_older(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


def test_relative_times_come_from_the_cldr_in_every_language() -> None:
    assert {"geçen ay", "bugün"} <= relative_time_phrases("tr")
    assert "last month" in relative_time_phrases("en")
    assert "先月" in relative_time_phrases("ja")
    assert relative_time_phrases("xx-not-a-locale") == frozenset()


def test_a_value_coordinated_with_another_value_is_still_kept() -> None:
    # The relative time is no value, but a second value beside the older's still is.
    assert not replaces_as_told("The user: Gitar çalıyorum.", "The user: Şimdi gitar ile piyano çalıyorum.")


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        (["I work as an accountant at Deloitte.", "first day at KPMG tomorrow, so nervous"], [1]),
        (["Ich arbeite bei Siemens.", "morgen ist mein erster Tag bei Bosch 😅"], [1]),
        (["Je bosse chez Orange.", "premier jour chez Free demain, j'ai hâte"], [1]),
        (["Trabajo en Zara.", "mañana es mi primer día de curro en Mango"], [1]),
        (["Pracuję w Allegro.", "jutro mój pierwszy dzień w mBanku"], [1]),
        (["Я работаю в Яндексе.", "завтра мой первый рабочий день в Озоне"], [1]),
        (["私はトヨタで働いています。", "来月からソニーで働きます"], [1]),
        # A relative's first day, or a first day told beside the job, replaces nothing.
        (["I work at Google.", "my sister's first day at Google was great"], [0, 1]),
    ],
)
def test_a_first_day_at_work_names_the_new_employer(engine: Any, adds: list[str], current: list[int]) -> None:
    user = "r23-first-" + adds[0].split()[-1]
    assert current_adds(engine, user, adds, every_add_stored=True) == current


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user lives in Leeds.", "if the user moved to Berlin they would learn German"),
        # The German and Polish conditions held before this round too ("würde", "-bym" read as wishes).
        ("The user: Ich wohne in Köln.", "The user: Wenn ich nach Berlin ziehen würde, würde ich Deutsch lernen."),
        ("The user: Je travaille chez Orange.", "The user: Si je travaillais chez Free, je gagnerais plus."),
        ("The user: Vivo en Madrid.", "The user: Si me mudara a Valencia, compraría un piso."),
        ("The user: Mieszkam w Krakowie.", "The user: Gdybym przeprowadził się do Gdańska, miałbym bliżej do morza."),
        ("The user: Я живу в Казани.", "The user: Если бы я переехал в Москву, я бы купил машину."),
        ("The user: 我住在上海。", "The user: 如果我搬到北京，我会学开车。"),
        ("The user: Saya tinggal di Bandung.", "The user: Seandainya saya pindah ke Bali, saya akan buka kafe."),
        ("The user has a dog named Rex.", "The user: we got a second dog, Luna!"),
    ],
)
def test_a_supposed_state_or_one_more_named_thing_replaces_nothing(older: str, newer: str) -> None:
    assert not replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # A reply's "Sí," or "Si," is no "if", and a count told without a name still moves.
        ("The user: Vivo en Madrid.", "The user: Sí, ahora vivo en Valencia."),
        ("The user: J'habite à Lyon.", "The user: Si, j'habite à Nantes."),
        ("The user has two kids.", "The user had their third child."),
        ("The user: I live in Leeds.", "The user: not sure if I told you, but I moved to York."),
    ],
)
def test_a_reply_or_a_new_count_still_replaces(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # Rows of English chat: "eating fish" ends a diet, "gf"/"bf" name a relationship.
        ("The user is vegetarian.", "The user: started eating fish again tbh"),
        ("The user is single.", "The user: got a gf now!! her name is mia"),
    ],
)
def test_chat_words_for_a_diet_or_a_partner_replace_the_older(older: str, newer: str) -> None:
    assert replaces_as_told(older, newer)


@pytest.mark.parametrize(
    ("adds", "current"),
    [
        # Rows of chat for a job ended or begun: "laid off", "licenciée", "меня взяли".
        (["I work at Acme.", "got laid off 😭"], [1]),
        (["I work at Acme.", "started my own business last month"], [1]),
        (["Je bosse chez Orange.", "je me suis fait licencier, enfin licenciée quoi"], [1]),
        (["Я работаю в Яндексе.", "меня взяли в Сбер"], [1]),
        (["I work at Acme.", "thinking about applying to google tbh"], [0, 1]),
    ],
)
def test_a_job_ended_or_begun_in_chat_words_replaces_the_older(
    engine: Any, adds: list[str], current: list[int]
) -> None:
    user = "r23-job-" + adds[1].split()[-1]
    assert current_adds(engine, user, adds, every_add_stored=True) == current


def test_dictated_speech_parts_its_clauses_by_and_then() -> None:
    text = "The user: so i went to the doctor this morning and then i'm down to 76 kg now"
    assert [clause for clause, _, _ in clause_readings(text)] == [
        "The user: i went to the doctor this morning",
        "The user: i'm down to 76 kg now",
    ]
    # "and" alone joins two values of one clause, as before.
    assert clause_readings("The user: i play guitar and piano") == ()
    assert len(clause_readings("The user: wir haben gepackt und dann sind wir nach Bonn umgezogen")) == 2


def test_a_quantity_moved_in_a_dictated_later_clause_replaces_the_older(engine: Any) -> None:
    adds = [
        "I weigh 80 kg.",
        "so i went to the doctor this morning for my yearly checkup with doctor smith and then i'm down to 76 kg now",
    ]
    assert current_adds(engine, "r23-dictated", adds, every_add_stored=True) == [1]
