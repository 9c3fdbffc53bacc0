"""Word lists for the rule-based entity extractor (English)."""

from __future__ import annotations

FUNCTION_WORDS = frozenset(
    """a an the and or but nor so yet for of in on at to from by with about into onto over under
    after before during since until while as than then that this these those there here what which
    who whom whose when where why how i me my mine myself you your yours yourself he him his she
    her hers it its we us our ours they them their theirs is are was were be been being am do does
    did have has had having will would shall should can could may might must not no yes all any
    some each every both either neither more most much many few such only own same other another
    just very too also really quite pretty even still already ever never always often sometimes
    again once up down out off away back ok okay oh hey hi hello wow yeah yep nope lol haha um uh
    if because though although unless whether like one ones thing things something anything
    everything nothing someone anyone everyone lot lots bit kind sort way i'm i've i'd i'll it's
    that's there's what's you're you've you'd you'll he's she's we're we've they're they've don't
    didn't can't won't isn't wasn't yesterday today tomorrow tonight week weeks weekend month
    months year years day days morning evening night afternoon last next ago time times""".split()
)
#: Words that are capitalised only because they start a sentence.
COMMON_CAPITALISED = frozenset(
    """Thanks Thank Sure Sounds Glad Great Good Nice Cool Awesome Amazing Wow Yes No Yeah Well So
    Oh Hey Hi Hello Just Really Maybe Definitely Absolutely Totally Honestly Actually Anyway Btw
    Congrats Congratulations Love Loved Hope Wish Gonna Wanna Let Lets Let's Made Make Went Got
    Had Been Being Doing Done Going Looking Thinking Feeling Working Trying Last Next Today
    Yesterday Tomorrow Tonight Yep Nope Haha Lol Ok Okay Right Wait Look See Take Keep Check Try
    Tell Remember Guess Seems Sorry Please Bye Cheers Aww Ah Oops Plus Also Then Now Still""".split()
)
#: Common verbs and adjectives that should not end a compound noun phrase.
VERBISH = frozenset(
    """get gets got make makes made take takes took go goes went come comes came see saw seen know
    knew known think thought want wanted need needed feel felt try tried say said tell told give
    gave given find found keep kept let put seem seemed look looks show showed love loved like
    liked hope hoped wish start started help helped enjoy enjoyed use used work works play plays
    keen great good nice cool awesome amazing happy sad glad new old big small little best better
    lovely super fun exciting excited powerful inspiring beautiful wonderful hard tough proud sure
    able amazing special important different real whole free full long short high low""".split()
)
