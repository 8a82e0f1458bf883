"""Prompt size in tokens: an offline estimate, or an exact count from the Anthropic API.

``anthropic`` is imported only when an exact count is asked for (it costs over
a second at start-up). The API key is read from the environment by the
caller and is never written anywhere.
"""

from __future__ import annotations

DEFAULT_MODEL = "claude-sonnet-5-5"


def estimate_tokens(text: str) -> int:
    """About four characters a token for English prose and Markdown."""
    return (len(text) + 3) // 4


class TokenCountError(Exception):
    """The exact count could not be had; the message says why in plain words."""


def count_tokens(text: str, api_key: str, model: str = DEFAULT_MODEL, base_url: str | None = None, timeout: float = 10.0) -> int:
    """Exact input tokens for ``text`` as one user message (Anthropic's count_tokens endpoint)."""
    if not text:
        return 0
    import anthropic

    client = anthropic.Anthropic(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=1)
    try:
        result = client.messages.count_tokens(model=model, messages=[{"role": "user", "content": text}])
    except anthropic.AuthenticationError:
        raise TokenCountError("the API key was refused") from None
    except anthropic.RateLimitError:
        raise TokenCountError("rate limited; try again shortly") from None
    except anthropic.APITimeoutError:
        raise TokenCountError("the API did not answer in time") from None
    except anthropic.APIConnectionError:
        raise TokenCountError("cannot reach the API") from None
    except anthropic.APIStatusError as exc:
        raise TokenCountError(f"the API answered {exc.status_code}") from None
    return int(result.input_tokens)
