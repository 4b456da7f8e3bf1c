"""Pydantic AI tests run offline: scripted `FunctionModel`s only, real model requests refused."""

from __future__ import annotations

import pydantic_ai.models

# Any model other than the scripted FunctionModel would need the network: make that an error.
pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
