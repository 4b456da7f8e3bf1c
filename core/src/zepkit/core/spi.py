"""What adapter and backend authors build on; apps need only `zepkit.core`.

Adapters import from here and from `zepkit.core`, nothing else of zepkit's (a test holds them to
it): the identity kit (`IdentityResolver`), the option checks, `as_memory` (a loop, or a Zep
client made one) and the fail-soft hook guard keep every adapter deciding these the same way.
Backends implement `Backend` and declare what they can do in `Capabilities`.
"""

from zepkit.core._backend import Backend, Capabilities, SearchRequest, UserProfile
from zepkit.core._coerce import as_memory
from zepkit.core._extras import missing_framework
from zepkit.core._failsoft import fail_soft, fail_soft_sync
from zepkit.core._identity import (
    IdentityFunction,
    IdentityResolver,
    IdentitySource,
    fixed_identity,
)
from zepkit.core._options import check_memory, search_tool_option
from zepkit.core._rendering import compose_context, is_rendered_block, strip_rendered_block
from zepkit.core._search_params import check_search_options
from zepkit.core._search_tool import NO_RESULTS, format_results
from zepkit.core._search_tool import PARAMETERS as SEARCH_PARAMETERS
from zepkit.core._unicode import well_formed
from zepkit.core._validation import check_id

__all__ = [
    "NO_RESULTS",
    "SEARCH_PARAMETERS",
    "Backend",
    "Capabilities",
    "IdentityFunction",
    "IdentityResolver",
    "IdentitySource",
    "SearchRequest",
    "UserProfile",
    "as_memory",
    "check_id",
    "check_memory",
    "check_search_options",
    "compose_context",
    "fail_soft",
    "fail_soft_sync",
    "fixed_identity",
    "format_results",
    "is_rendered_block",
    "missing_framework",
    "search_tool_option",
    "strip_rendered_block",
    "well_formed",
]

for _name in __all__:
    _value = globals()[_name]
    if getattr(_value, "__module__", "").startswith("zepkit.core._"):
        _value.__module__ = __name__  # reprs and docs show the import path, not the private module
