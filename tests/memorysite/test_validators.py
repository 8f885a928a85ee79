"""Names shown on one line refuse what the prompt-text rule calls unsafe (memorysite.text.is_unsafe)."""

import pytest
from django.core.exceptions import ValidationError

from memorysite.validators import NAME_CONTROL_CHARACTERS, validate_one_line_name


@pytest.mark.parametrize("name", ["laptop runner", "Ümit's box ✓", "rocket 🚀", "heart ❤️"])
def test_ordinary_names_pass(name):
    validate_one_line_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "two\nlines",
        "bell\x07",
        "rtl\u202eoverride",
        "zero\u200bwidth",
        "private\ue000use",
        "tag\U000e0041hidden",
        "supplement\U000e0100selector",  # a variation selector of the supplement: refused since issue 17
        "unassigned\U000e0002tag",  # an unassigned tag-block code point: likewise
    ],
)
def test_unsafe_characters_are_refused(name):
    with pytest.raises(ValidationError) as refused:
        validate_one_line_name(name)
    assert refused.value.messages == [NAME_CONTROL_CHARACTERS]
