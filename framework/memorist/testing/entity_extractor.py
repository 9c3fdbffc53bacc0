"""The contract every ``EntityExtractor`` must meet, as a pytest suite a plugin's tests subclass.

Why: the engine links memories through the entities found in their text and weights a
search's entities by how rare they are. So it relies on mentions that are text of the input
(a linked name must be findable), each once (in the extractor's own order of priority, which
a cap on their number keeps), of the kinds the graph knows, the same for the same text, and
on any language being accepted. A subclass provides one fixture, ``entity_extractor`` (a
built provider), and gets every check below::

    from memorist.testing.entity_extractor import EntityExtractorContract

    class TestMyExtractor(EntityExtractorContract):
        @pytest.fixture
        def entity_extractor(self, tmp_path):
            return MyExtractor(MyExtractor.Options(), ProviderContext(data_dir=tmp_path))
"""

from __future__ import annotations

from typing import Any, get_args

import pydantic
import pytest

from ..plugin.contracts import EntityExtractor
from ..records import EntityMention

#: Texts with names, quoted titles and plain words, in several languages and scripts.
TEXTS = [
    "Alice moved to Berlin in 2019 and joined the Berlin Philharmonic.",
    'We watched "The Grand Budapest Hotel" with Bob at the Rex cinema.',
    "Jürgen wohnt in München und arbeitet bei Siemens.",
    "María vive en Sevilla con su perro Toby.",
    "私の名前はアダです。リスボンに住んでいます。",
    "ok",
    "went to the support group again, then a charity race 🏃",
]
#: (text, a name any extractor finds in it).
OBVIOUS = [("Alice moved to Berlin in 2019.", "Berlin"), ("Yesterday I met Alice at the station.", "Alice")]
KINDS = set(get_args(EntityMention.model_fields["kind"].annotation))


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


class EntityExtractorContract:
    """Subclass it in a test module and provide the ``entity_extractor`` fixture."""

    @pytest.fixture
    def entity_extractor(self) -> EntityExtractor[Any]:
        raise NotImplementedError("provide an `entity_extractor` fixture returning a built EntityExtractor")

    def test_is_an_entity_extractor_with_a_name(self, entity_extractor: EntityExtractor[Any]) -> None:
        assert isinstance(entity_extractor, EntityExtractor)
        name = type(entity_extractor).name
        assert isinstance(name, str) and name and name in entity_extractor.describe()

    def test_options_refuse_unknown_keys(self, entity_extractor: EntityExtractor[Any]) -> None:
        with pytest.raises(pydantic.ValidationError):
            type(entity_extractor).Options.model_validate({"no_such_option_anywhere": 1})

    @pytest.mark.parametrize("text", TEXTS)
    def test_mentions_are_text_of_the_input_each_once(self, entity_extractor: EntityExtractor[Any], text: str) -> None:
        mentions = entity_extractor.extract(text)
        assert isinstance(mentions, list) and all(isinstance(m, EntityMention) for m in mentions)
        for mention in mentions:
            assert mention.text.strip() and mention.kind in KINDS, mention
            assert _fold(mention.text) in _fold(text), (mention, text)
        assert len({_fold(m.text) for m in mentions}) == len(mentions), mentions

    @pytest.mark.parametrize(("text", "name"), OBVIOUS)
    def test_an_obvious_name_is_found(self, entity_extractor: EntityExtractor[Any], text: str, name: str) -> None:
        assert any(name in mention.text for mention in entity_extractor.extract(text)), text

    def test_the_same_text_gives_the_same_mentions(self, entity_extractor: EntityExtractor[Any]) -> None:
        for text in TEXTS:
            assert entity_extractor.extract(text) == entity_extractor.extract(text)

    @pytest.mark.parametrize("text", ["", "   ", "\n\t"])
    def test_blank_text_has_no_entities(self, entity_extractor: EntityExtractor[Any], text: str) -> None:
        assert entity_extractor.extract(text) == []

    def test_a_long_text_is_handled(self, entity_extractor: EntityExtractor[Any]) -> None:
        mentions = entity_extractor.extract(" ".join(TEXTS) * 200)
        assert isinstance(mentions, list)
        assert len({_fold(m.text) for m in mentions}) == len(mentions)
