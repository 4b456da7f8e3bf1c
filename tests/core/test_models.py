from __future__ import annotations

import pytest
from pydantic import ValidationError

from zepkit.core import Identity, Message


def test_message_positional_and_keyword_forms_are_equal() -> None:
    assert Message("user", "hi", name="A") == Message(role="user", content="hi", name="A")


@pytest.mark.parametrize("role", ["norole", "bot", "", "USER"])
def test_unknown_role_is_rejected_naming_the_field(role: str) -> None:
    with pytest.raises(ValidationError, match="role"):
        Message(role, "hi")  # type: ignore[arg-type]


@pytest.mark.parametrize("content", [None, 42, b"bytes", ["a list"]])
def test_non_text_content_is_rejected(content: object) -> None:
    with pytest.raises(ValidationError, match="content"):
        Message("user", content)  # type: ignore[arg-type]


def test_metadata_is_limited_to_ten_keys() -> None:
    Message("user", "ok", metadata={str(i): i for i in range(10)})
    with pytest.raises(ValidationError, match="at most 10"):
        Message("user", "too many", metadata={str(i): i for i in range(11)})


@pytest.mark.parametrize("field", ["user_id", "thread_id"])
@pytest.mark.parametrize("value", ["", "   "])
def test_identity_rejects_blank_ids(field: str, value: str) -> None:
    ids = {"user_id": "u", "thread_id": "t", field: value}
    with pytest.raises(ValidationError, match=field):
        Identity(**ids)


def test_identity_display_name() -> None:
    assert Identity(user_id="u", thread_id="t").display_name is None
    assert Identity(user_id="u", thread_id="t", first_name="Ada").display_name == "Ada"
    full = Identity(user_id="u", thread_id="t", first_name="Ada", last_name="Lovelace")
    assert full.display_name == "Ada Lovelace"


def test_missing_framework_names_the_module_and_the_extra() -> None:
    from zepkit.core.spi import missing_framework

    error = missing_framework("pydantic-ai", "Pydantic AI")
    assert isinstance(error, ImportError)
    assert str(error) == 'zepkit.pydantic_ai needs Pydantic AI: pip install "zepkit[pydantic-ai]"'
