"""A fake WordPress site: core's REST API for posts and media, application passwords, the
``operation_key`` must-use plugins and Rank Math's meta endpoint, with ground truth.

``WordPressFake(clock)`` is a gate ``Service``; see ``_service`` for the front door and
``specs/wordpress-rest.md`` for the behaviour it copies.
"""

from fakes.wordpress._errors import WPError
from fakes.wordpress._service import WordPressFake

__all__ = ["WPError", "WordPressFake"]
