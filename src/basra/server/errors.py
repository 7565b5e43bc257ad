"""The server's errors, and the one table that says how each is answered.

Every refusal, over HTTP or on a table's WebSocket, is answered from :data:`ERRORS`: the
exception's type gives the HTTP status, the WebSocket close code and the error ``code``
(the pages translate by it); the body is always

    {"code": "unknown_table", "message": "no table has the code 'x'", "params": {...}}

with ``params`` the values a translation needs (a table's code, a number of seconds;
``{}`` when none) and ``message`` one line of English.

This module imports no other module of the server: every other one may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from basra.players.accounts import AccountError, WeakPasswordError
from basra.players.ratings import UnknownPoolError
from basra.record import RecordError
from basra.store import StorageError

from .ratelimit import RateLimited

__all__ = [
    "ERRORS",
    "AccountClosedError",
    "BadRecordError",
    "BadRequestError",
    "BadSeekError",
    "BotError",
    "ChallengeError",
    "ConfigError",
    "DisplayNameTakenError",
    "ElsewhereError",
    "ErrorKind",
    "ExpiredTableError",
    "FollowError",
    "IntentError",
    "JoinError",
    "LeaveError",
    "LimitReachedError",
    "LoginRequiredError",
    "ModerationError",
    "MutedError",
    "NoPageError",
    "PlaybanError",
    "QueueFullError",
    "RateLimited",
    "RatedBanError",
    "Refusal",
    "RefusedConnection",
    "ServerBusyError",
    "TableMovedError",
    "TokenError",
    "TooManyConnectionsError",
    "TournamentError",
    "UnknownLessonError",
    "UnknownSessionError",
    "UnknownTableError",
    "UnknownTokenError",
    "UnknownTournamentError",
    "UnrestoredTableError",
    "WrongPasswordError",
    "error_body",
    "error_response",
    "http_error_response",
    "kind_of",
    "record_params",
    "refusal_of",
]

# -- errors of tables and sockets --------------------------------------------------------

class ConfigError(ValueError):
    """A table configuration that cannot be played; the message names the bad value."""


class JoinError(ValueError):
    """A seat that cannot be taken; ``code`` names why (``seat_taken``, ``no_free_seat``,
    ``computer_seat``, ``bad_seat``, ``bad_name``)."""

    def __init__(self, message: str, code: str = "seat_taken") -> None:
        super().__init__(message)
        self.code = code


class IntentError(ValueError):
    """An intent the table refuses; ``code`` is one of the protocol's error codes. It is
    answered on the socket (``{"type": "error", ...}``) and the socket stays open."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# leaving a table: resign and abort (answered on the socket, which stays open)

class LeaveError(IntentError):
    """A resign or an abort the table refuses: ``abort_too_late`` (the seat has made a
    play of its own in this match: resign instead), ``resigned`` (the seat resigned this
    match already, and the computer plays it to its end)."""


class TableMovedError(IntentError):
    """The table left this server (handed or taken over) before an intent was made."""

    def __init__(self) -> None:
        super().__init__("server_error", "this table moved to another server before the "
                                         "play was made: send it again")


class UnknownTableError(KeyError):
    """No table has this code (``args[0]``)."""


class ExpiredTableError(KeyError):
    """The table (``args[0]``) expired: nobody ever connected to it."""


class ElsewhereError(RuntimeError):
    """Another server owns the table; ``args[1]`` is its id."""


class UnrestoredTableError(RuntimeError):
    """A stored table that could not be rebuilt; ``args[1]`` is the reason."""


class ServerBusyError(RuntimeError):
    """The server cannot take this now (storage failing, too many tables); the message
    says why."""


class RefusedConnection(Exception):
    """A socket the server will not open; ``code`` is the protocol's error code."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)


class UnknownTokenError(RefusedConnection):
    """The token holds no seat at the table."""

    code = "unknown_token"

    def __init__(self, message: str = "this token holds no seat at this table; "
                                      "join again") -> None:
        super().__init__(message)


class TooManyConnectionsError(RefusedConnection):
    """The client's address has its most sockets open."""

    code = "too_many_connections"


# -- refusals of the HTTP API ------------------------------------------------------------

class Refusal(Exception):
    """A request refused with a ``code`` of its own (the table gives its status); the
    message is the text to show, ``params`` what a translation of it needs."""

    code = "refused"

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__(message)
        self.params = params


class BadRequestError(Refusal):
    """A request body or query that is not what the route takes."""

    code = "bad_request"


class BadRecordError(Refusal):
    """An uploaded record that is not UTF-8 text (``params``: ``problem`` is
    ``not_text``), or is too big (``too_big``, with ``size`` and ``most`` in bytes)."""

    code = "bad_record"


class NoPageError(Refusal):
    """A page the server's front end does not have."""

    code = "no_page"


class UnknownRecordError(Refusal):
    """No record has the id."""

    code = "unknown_record"


class UnknownPuzzleError(Refusal):
    """No puzzle has the id."""

    code = "unknown_puzzle"


class UnknownUserError(Refusal):
    """No player has the name."""

    code = "unknown_user"


class UnknownLessonError(Refusal):
    """No lesson (or no step of a lesson) has the id."""

    code = "unknown_lesson"


class IllegalAnswerError(Refusal):
    """A puzzle's answer that is no legal move of its position."""

    code = "illegal_move"


class BadSeekError(Refusal):
    """A seek for no variant, player count or name the server pairs."""

    code = "bad_seek"


class LimitReachedError(RateLimited):
    """A client's limit of analyses or hints (``code``: ``analysis_limit``,
    ``hint_limit``); ``retry_after`` is in whole seconds."""

    def __init__(self, code: str, message: str, retry_after: int) -> None:
        super().__init__(message, retry_after)
        self.code = code


class QueueFullError(Refusal):
    """The analysis queue is full: try again in ``retry_after`` seconds."""

    code = "analysis_queue_full"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message, seconds=retry_after)
        self.retry_after = retry_after


class LoginRequiredError(Refusal):
    """A rated seek of a guest."""

    code = "login_required"


class PlaybanError(Refusal):
    """A rated seek of an account that abandoned rated matches too often lately (the
    playban, :mod:`basra.players.conduct`): it may seek a rated game again in
    ``retry_after`` seconds (``params``: ``seconds``, ``n`` the minutes rounded up, and
    ``abandons`` within the day)."""

    code = "playban"

    def __init__(self, message: str, seconds: int, abandons: int) -> None:
        super().__init__(message, seconds=seconds, n=-(-seconds // 60), abandons=abandons)
        self.retry_after = seconds


class HintRefusedError(Refusal):
    """A hint asked for by someone not seated, at a rated table, at a table with other
    people, or out of turn (``code`` says which)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class CrossSiteError(Refusal):
    """An account request another site made."""

    code = "cross_site"


class NameTakenError(Refusal):
    """An account name in use already."""

    code = "name_taken"


class WrongLoginError(Refusal):
    """A wrong name or password; ``retry_after`` is the seconds its name is locked for."""

    code = "wrong_login"

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        params = {} if retry_after is None else {"seconds": retry_after}
        super().__init__(message, **params)
        self.retry_after = retry_after


class LoginLockedError(WrongLoginError):
    """Too many wrong passwords for a name: its log-ins wait ``retry_after`` seconds."""

    code = "login_locked"


# -- moderation --------------------------------------------------------------------------

class MutedError(IntentError):
    """A chat message of a muted account (answered on the socket, which stays open);
    ``params`` say until when (Unix milliseconds, None for good) and why."""

    def __init__(self, until: int | None, reason: str) -> None:
        when = "for good" if until is None else f"until {until} (Unix ms)"
        super().__init__("muted", f"a moderator muted you {when}: {reason}")
        self.params = {"until": until, "reason": reason}


class ModerationError(Refusal):
    """A moderation request refused; ``code`` says why (``moderators_only``, ``bad_report``,
    ``report_open``, ``bad_block``, ``bad_action``, ``nothing_to_act_on``)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


class RatedBanError(Refusal):
    """A rated seek of an account a moderator banned from rated play: ``params`` say
    until when (Unix milliseconds, None for good) and why."""

    code = "rated_banned"


class AccountClosedError(Refusal):
    """A log-in to an account a moderator closed: ``params`` say why."""

    code = "account_closed"


# -- tournaments -------------------------------------------------------------------------

class TournamentError(Refusal):
    """A tournament request refused; ``code`` says why: ``bad_tournament`` (a bad field,
    ``params.field`` names it), ``tournament_closed`` (over, or a Swiss event already
    started), ``not_entered`` (withdraw or pause without having joined),
    ``tournament_limit`` (an account's most new tournaments a day, ``params.most``)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


class UnknownTournamentError(Refusal):
    """No tournament has the id."""

    code = "unknown_tournament"


# -- friends ---------------------------------------------------------------------------

class FollowError(Refusal):
    """A follow refused; ``code`` says why: ``blocked`` (403: one of the two accounts
    blocked the other), ``bad_follow`` (400: following oneself), ``follow_limit`` (409:
    the account follows the most it may, ``params.most``)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


FOLLOW_STATUS = {"blocked": 403, "bad_follow": 400, "follow_limit": 409}
"""The HTTP status of each code of :class:`FollowError`."""


# -- API tokens --------------------------------------------------------------------------

class TokenError(Refusal):
    """A request with a personal access token refused; ``code`` says why: ``bad_token``
    (401: none, malformed, unknown or revoked), ``missing_scope`` (403, ``params.scope``
    the scope it needs), ``bad_token_request`` (422: a new token's bad field,
    ``params.field``), ``unknown_token_id`` (404: no token of yours has the id)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


# -- bot accounts ------------------------------------------------------------------------

class BotError(Refusal):
    """A Bot API request refused; ``code`` says why: ``has_games`` (409: an account that
    has played cannot become a bot), ``not_a_bot`` (403: the route is for bot accounts),
    ``not_your_game`` (404: the account holds no seat at the table),
    ``bots_not_allowed`` (403: a seek, or a tournament that does not allow bots)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


class ChallengeError(Refusal):
    """A challenge refused; ``code`` says why: ``bad_challenge`` (422, ``params.field``),
    ``unknown_challenge`` (404), ``challenge_closed`` (409: accepted, declined, cancelled
    or expired, ``params.status``), ``not_yours`` (403), ``blocked`` (403: one of the two
    blocked the other), ``challenge_limit`` (429, ``params.most``)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


BOT_STATUS = {"has_games": 409, "not_a_bot": 403, "not_your_game": 404,
              "bots_not_allowed": 403}
"""The HTTP status of each code of :class:`BotError`."""

CHALLENGE_STATUS = {"bad_challenge": 422, "unknown_challenge": 404, "challenge_closed": 409,
                    "not_yours": 403, "blocked": 403, "challenge_limit": 429}
"""The HTTP status of each code of :class:`ChallengeError`."""

TOKEN_STATUS = {"bad_token": 401, "missing_scope": 403, "bad_token_request": 422,
                "unknown_token_id": 404}
"""The HTTP status of each code of :class:`TokenError`."""

TOURNAMENT_STATUS = {"bad_tournament": 422, "tournament_closed": 409, "not_entered": 409,
                     "tournament_limit": 429}
"""The HTTP status of each code of :class:`TournamentError`."""

MODERATION_STATUS = {"moderators_only": 403, "bad_report": 400, "report_open": 409,
                     "bad_block": 400, "bad_action": 400, "nothing_to_act_on": 404}
"""The HTTP status of each code of :class:`ModerationError`."""
# account security: passwords, sessions, names that pass for others

class WrongPasswordError(Refusal):
    """A change of password whose current password is wrong."""

    code = "wrong_password"


class UnknownSessionError(Refusal):
    """No session of the account has the id (it ended, or never was)."""

    code = "unknown_session"


class DisplayNameTakenError(Refusal):
    """A guest's display name (at a table, in a seek) that is an account's name or a
    computer player's, or passes for one."""

    code = "display_name_taken"


# -- the table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ErrorKind:
    """How one type of error is answered."""

    code: str
    """The error code (an instance's own ``code`` attribute wins, where it has one)."""
    status: int
    """The HTTP status."""
    close: int
    """The WebSocket close code, when a socket is refused with it."""


ERRORS: dict[type[Exception], ErrorKind] = {
    ConfigError: ErrorKind("bad_config", 400, 4400),
    RequestValidationError: ErrorKind("bad_request", 400, 4400),
    BadRequestError: ErrorKind("bad_request", 400, 4400),
    RecordError: ErrorKind("bad_record", 400, 4400),
    BadRecordError: ErrorKind("bad_record", 400, 4400),
    AccountError: ErrorKind("account", 400, 4400),
    IllegalAnswerError: ErrorKind("illegal_move", 400, 4400),
    UnknownPoolError: ErrorKind("unknown_pool", 400, 4400),
    WrongLoginError: ErrorKind("wrong_login", 401, 4401),
    UnknownTokenError: ErrorKind("unknown_token", 403, 4401),
    LoginRequiredError: ErrorKind("login_required", 401, 4401),
    BadSeekError: ErrorKind("bad_seek", 400, 4400),
    CrossSiteError: ErrorKind("cross_site", 403, 4403),
    ModerationError: ErrorKind("moderators_only", 403, 4403),
    RatedBanError: ErrorKind("rated_banned", 403, 4403),
    AccountClosedError: ErrorKind("account_closed", 403, 4403),
    HintRefusedError: ErrorKind("not_seated", 403, 4403),
    UnknownTableError: ErrorKind("unknown_table", 404, 4404),
    UnknownRecordError: ErrorKind("unknown_record", 404, 4404),
    UnknownPuzzleError: ErrorKind("unknown_puzzle", 404, 4404),
    UnknownUserError: ErrorKind("unknown_user", 404, 4404),
    NoPageError: ErrorKind("no_page", 404, 4404),
    UnknownLessonError: ErrorKind("unknown_lesson", 404, 4404),
    UnknownTournamentError: ErrorKind("unknown_tournament", 404, 4404),
    TournamentError: ErrorKind("bad_tournament", 422, 4400),
    TokenError: ErrorKind("bad_token", 401, 4401),
    BotError: ErrorKind("not_a_bot", 403, 4403),
    ChallengeError: ErrorKind("bad_challenge", 422, 4400),
    FollowError: ErrorKind("bad_follow", 400, 4400),
    JoinError: ErrorKind("seat_taken", 409, 4409),
    NameTakenError: ErrorKind("name_taken", 409, 4409),
    ExpiredTableError: ErrorKind("expired", 410, 4410),
    RateLimited: ErrorKind("rate_limited", 429, 4429),
    LimitReachedError: ErrorKind("rate_limited", 429, 4429),
    QueueFullError: ErrorKind("analysis_queue_full", 503, 4503),
    LoginLockedError: ErrorKind("login_locked", 429, 4429),
    PlaybanError: ErrorKind("playban", 429, 4429),
    WrongPasswordError: ErrorKind("wrong_password", 403, 4403),
    UnknownSessionError: ErrorKind("unknown_session", 404, 4404),
    DisplayNameTakenError: ErrorKind("display_name_taken", 409, 4409),
    TooManyConnectionsError: ErrorKind("too_many_connections", 429, 4429),
    UnrestoredTableError: ErrorKind("unrestored", 503, 4500),
    StorageError: ErrorKind("storage_down", 503, 4503),
    ServerBusyError: ErrorKind("server_busy", 503, 4503),
    RefusedConnection: ErrorKind("refused", 403, 4403),
    Refusal: ErrorKind("refused", 400, 4400),
}
"""Each error type's code, HTTP status and WebSocket close code (a subclass not listed
is answered as its nearest listed base)."""

STATUS_OF_CODE = {"bad_seat": 400, "bad_name": 400, "not_your_turn": 409,
                  **MODERATION_STATUS, **TOURNAMENT_STATUS, **TOKEN_STATUS,
                  **CHALLENGE_STATUS, **FOLLOW_STATUS, **BOT_STATUS}
"""The codes of an error type (one with its own ``code``) whose HTTP status is not the
type's: a seat or name that is not one (400, where a seat taken is 409), a hint out of
turn (409, where other hint refusals are 403), the codes of moderation."""


def kind_of(error: BaseException) -> ErrorKind | None:
    """The table's entry for an error (its nearest listed type), or None."""
    for cls in type(error).__mro__:
        found = ERRORS.get(cls)
        if found is not None:
            return found
    return None


def _message(error: BaseException) -> str:
    if isinstance(error, UnknownTableError):
        return f"no table has the code {str(error.args[0])[:40]!r}"
    if isinstance(error, ExpiredTableError):
        return f"table {error.args[0]!r} expired: nobody came to it"
    if isinstance(error, UnrestoredTableError):
        return (f"table {error.args[0]!r} could not be restored from storage "
                f"({error.args[1]}); the server's operator is told")
    if isinstance(error, StorageError):
        return f"storage is failing: {error}"
    if isinstance(error, RateLimited):
        return f"{error}; try again in {error.retry_after} s"
    if isinstance(error, RequestValidationError):
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'][1:])}: {problem['msg']}"
            for problem in error.errors())
        return problems or "bad request"
    return str(error)


def _params(error: BaseException) -> dict[str, Any]:
    if isinstance(error, UnknownTableError | ExpiredTableError):
        return {"table": str(error.args[0])[:40]}
    if isinstance(error, UnrestoredTableError):
        return {"table": str(error.args[0]), "reason": str(error.args[1])}
    if isinstance(error, RateLimited):
        return {"seconds": error.retry_after}
    if isinstance(error, Refusal):
        return dict(error.params)
    if isinstance(error, WeakPasswordError):
        return {"hint": error.hint}
    if isinstance(error, RecordError):
        return record_params(error)
    return {}


def record_params(error: RecordError) -> dict[str, Any]:
    """What a page needs to word a bad record in its language: the ``problem``
    (``not_json``, ``not_record``, ``version``, ``invalid``), and where known the
    ``deal`` and ``play`` it is in or the ``version`` (format) the record gave.

    >>> record_params(RecordError("format must be ...", "version", version="basra-record/2"))
    {'problem': 'version', 'version': 'basra-record/2'}
    """
    where = {"version": error.version, "deal": error.deal, "play": error.play}
    return {"problem": error.problem, **{k: v for k, v in where.items() if v is not None}}


@dataclass(frozen=True)
class Answer:
    """An error as answered: status, close code and body."""

    status: int
    close: int
    code: str
    message: str
    params: dict[str, Any]
    retry_after: int | None = None

    def body(self) -> dict[str, Any]:
        """The JSON body of an HTTP answer."""
        return error_body(self.code, self.message, self.params)

    def frame(self) -> dict[str, Any]:
        """The ``error`` message of a socket refused with it (and ``retry_after``, the
        seconds to wait, where there are some)."""
        sent = {"type": "error", **self.body()}
        if self.retry_after is not None:
            sent["retry_after"] = self.retry_after
        return sent


def refusal_of(error: BaseException) -> Answer | None:
    """How the table answers an error; None for one it does not list (a bug: 500)."""
    kind = kind_of(error)
    if kind is None:
        return None
    own = getattr(error, "code", None)
    code = own if isinstance(own, str) else kind.code
    status = STATUS_OF_CODE.get(code, kind.status)
    retry = getattr(error, "retry_after", None)
    return Answer(status, kind.close, code, _message(error), _params(error),
                  retry if isinstance(retry, int) else None)


def error_body(code: str, message: str, params: dict[str, Any] | None = None
               ) -> dict[str, Any]:
    """``{"code", "message", "params"}``.

    >>> error_body("unknown_table", "no table has the code 'x'", {"table": "x"})["code"]
    'unknown_table'
    """
    return {"code": code, "message": message, "params": params or {}}


def error_response(error: BaseException, headers: dict[str, str] | None = None
                   ) -> JSONResponse:
    """The HTTP answer to an error the table lists (with ``Retry-After`` where it
    says when to try again)."""
    answer = refusal_of(error)
    assert answer is not None, f"{type(error).__name__} is not in the table of errors"
    extra = dict(headers or {})
    if answer.retry_after is not None:
        extra["Retry-After"] = str(answer.retry_after)
    return JSONResponse(answer.body(), status_code=answer.status, headers=extra)


def http_error_response(status: int, detail: str,
                        headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The answer to one of the framework's own HTTP errors (an unknown path, a method
    the path does not take)."""
    code = HTTP_CODES.get(status, f"http_{status}")
    return JSONResponse(error_body(code, detail), status_code=status,
                        headers=dict(headers or {}))


HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}
"""The codes of the framework's own HTTP errors."""
