"""Accounts without the web (``basra.players.accounts``): the rules for names and passwords, the
name keys that make names unique, password hashing, session tokens and the pace of
wrong passwords."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from argon2 import PasswordHasher, profiles

from basra.bots import BOT_LEVELS
from basra.players.accounts import (
    NAME_LENGTH,
    PASSWORD_LENGTH,
    SESSION_SECONDS,
    BadNameError,
    BadPasswordError,
    LoginPace,
    Passwords,
    WeakPasswordError,
    address_group,
    check_name,
    check_password,
    look_alike_keys,
    name_key,
    new_token,
    reserved_as,
    token_hash,
)
from basra.players.names import COMPUTER_NAMES

CHEAP = Passwords(profiles.CHEAPEST)
"""Hashes in microseconds: the rules, not the cost, are under test."""


# Names


@pytest.mark.parametrize("name", [
    "Amira", "omar_77", "Zoë", "Straße", "x-y", "abc", "a" * 20, "عمر", "ليلى_المصرية",
    "عمر_٣", "Mehdi۱۲", "Karim_Ali", "guesthouse", "ضيف_الله", "Samira", "Masterson2",
    "Omar-عمر",
])
def test_good_names_are_kept_as_written(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", [
    "Γιώργος", "ΓΙΩΡΓΟΣ", "Ελένη_7", "Αλέξανδρος", "Χαρά-2", "Ευαγγελία", "Ζωή",
    "Şükrü", "Işıl", "İpek", "Çağrı", "Gülşen", "Öykü_34", "ĞĞĞ",
])
def test_greek_and_turkish_names_are_good_names(name: str) -> None:
    assert check_name(name) == name


def test_a_name_is_kept_in_nfkc_without_spaces_around_it() -> None:
    assert check_name("  Amira  ") == "Amira"
    decomposed = unicodedata.normalize("NFD", "Zoë")
    assert decomposed != "Zoë" and check_name(decomposed) == "Zoë"
    assert check_name("ＡＭＩＲＡ") == "AMIRA"  # full-width letters
    assert check_name("\ufee3\ufeae\ufef4\ufee3") == "مريم"  # presentation forms


@pytest.mark.parametrize(("name", "said"), [
    ("ab", "has 2 characters; a name has 3 to 20"),
    ("", "has 0 characters"),
    ("   ", "has 0 characters"),
    ("a" * 21, "has 21 characters; a name has 3 to 20"),
    ("Omar Sharif", "has a space (U+0020)"),
    ("Ωmega", "mixes Greek and Latin letters"),
    ("Αlice", "mixes Greek and Latin letters"),
    ("Σάμιر", "mixes Greek and Arabic letters"),
    ("Иван", "'И' (cyrillic capital letter i)"),
    ("李小龍", "cjk unified ideograph"),
    ("amira!", "'!'"),
    ("a.b.c", "'.'"),
    ("سـامي", "(arabic tatweel)"),
    ("Lay\u200bla", "a zero width space (U+200B)"),
    ("Omar\u202e", "a right-to-left override (U+202E)"),
    ("a\tbc", "the control character U+0009"),
    ("عُمر", "(arabic damma)"),
    ("123", "has no letter"),
    ("__-", "has no letter"),
])
def test_bad_names_are_refused_naming_the_rule(name: str, said: str) -> None:
    with pytest.raises(BadNameError, match="the name") as refused:
        check_name(name)
    assert said in str(refused.value)
    assert refused.value.code == "bad_name"


@pytest.mark.parametrize("name", [
    "Computer", "computer1", "COMPUTER_x", "Computer-Expert", "computerwiz", "Compu_ter",
    "كمبيوتر", "الكمبيوتر_٢", "حاسوب", "الحاسوب",
])
def test_names_that_pass_for_the_computer_are_refused(name: str) -> None:
    with pytest.raises(BadNameError, match="kept for the computer players"):
        check_name(name)


@pytest.mark.parametrize("name", [
    *COMPUTER_NAMES, *BOT_LEVELS, "karim", "LAYLA", "Sami_2", "Nadia-1", "master99", "Ex_pert",
    "bot", "Bot7", "كريم", "ليلى", "ليلي", "نادية", "سامي", "عشوائي", "طماع", "خبير", "أستاذ",
    "استاذ", "کریم", "لیلا", "نادیا", "سامی", "تصادفی", "حریص", "خبره", "استاد",
])
def test_the_computer_players_names_and_levels_are_refused(name: str) -> None:
    with pytest.raises(BadNameError, match="is a computer player's name"):
        check_name(name)


@pytest.mark.parametrize("name", ["Guest", "guest1", "Guest_12", "GUEST-3", "ضيف", "ضيف٣", "مهمان",
                                  "مهمان۲"])
def test_guest_names_are_refused(name: str) -> None:
    with pytest.raises(BadNameError, match="how the server names guests"):
        check_name(name)


@pytest.mark.parametrize("name", ["Computer2", "الكمبيوتر_1", "رایانه۳"])
def test_names_starting_with_the_word_for_computer_are_refused(name: str) -> None:
    with pytest.raises(BadNameError, match="kept for the computer players"):
        check_name(name)


@pytest.mark.parametrize("name", ["admin", "Administrator", "moderator", "system_1"])
def test_staff_names_are_reserved(name: str) -> None:
    with pytest.raises(BadNameError, match="is reserved"):
        check_name(name)


@pytest.mark.parametrize("value", [None, 5, ["Amira"], {"name": "Amira"}])
def test_a_name_must_be_text(value: object) -> None:
    with pytest.raises(BadNameError, match="must be text"):
        check_name(value)


def test_the_name_rules_count_characters() -> None:
    fewest, most = NAME_LENGTH
    assert check_name("ع" * most) == "ع" * most
    assert check_name("x" * fewest) == "x" * fewest


# Name keys


@pytest.mark.parametrize(("one", "other"), [
    ("Amira", "AMIRA"), ("amira", "aMiRa"), ("Straße", "STRASSE"), ("Zoë", "ZOË"),
    ("Omar1", "omar١"), ("Omar1", "OMAR۱"), ("أحمد", "احمد"), ("إيمان", "ايمان"),
    ("آدم", "ادم"), ("ليلى", "ليلي"), ("کریم", "كريم"), ("ＡＭＩＲＡ", "amira"),
])
def test_names_that_read_the_same_have_one_key(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("Amira", "Amira2"), ("omar_1", "omar-1"), ("Zoe", "Zoë"), ("عمر", "عمرو"),
])
def test_different_names_have_different_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


def test_every_key_of_a_good_name_fits_its_column() -> None:
    from basra.store.schema import users_table

    widest = users_table.c.name_key.type.length
    for name in ("ß" * 20, "İ" * 20, "ﬀ" * 10, "Ɱ" * 20, "ꭂ" * 20):
        assert len(name_key(check_name(name))) <= widest


# Passwords


@pytest.mark.parametrize("password", ["b7#Kq" * 40, "كلمة سر طويلة", " spaces and more ",
                                      "correct horse battery"])
def test_good_passwords_pass(password: str) -> None:
    assert check_password(password, "Amira") == password


@pytest.mark.parametrize(("password", "hint"), [
    (" " * 8, "account_hint_blank"), ("\0" * 8, "account_hint_blank"),
    ("\t \n\r\x7f\u200b \x01", "account_hint_blank"), ("12345678", "account_hint_common"),
    ("password", "account_hint_common"), ("qwertyuiop", "account_hint_common"),
    ("abcdefgh", "account_hint_sequence"), ("a" * 200, "account_hint_repeats"),
    ("Amira2020", "account_hint_longer"), ("iloveyou1", "account_hint_common"),
])
def test_blank_and_common_passwords_are_refused_with_a_hint(password: str, hint: str) -> None:
    with pytest.raises(WeakPasswordError) as refused:
        check_password(password, "Amira")
    assert refused.value.code == "weak_password" and refused.value.hint == hint
    assert repr(password) not in str(refused.value)  # never quoted


@pytest.mark.parametrize(("password", "said"), [
    ("short", "has 5 characters; a password has 8 to 200"),
    ("", "has 0 characters"),
    ("x" * 201, "has 201 characters"),
    (None, "must be text"),
    (12345678, "must be text"),
])
def test_bad_passwords_are_refused_naming_the_rule(password: object, said: str) -> None:
    with pytest.raises(BadPasswordError) as refused:
        check_password(password)
    assert said in str(refused.value)
    assert refused.value.code == "bad_password"


def test_a_password_is_never_quoted_in_a_refusal() -> None:
    with pytest.raises(BadPasswordError) as refused:
        check_password("hunter2")
    assert "hunter2" not in str(refused.value)


def test_the_password_must_not_be_the_name() -> None:
    for password in ("Amira_1234", "AMIRA_1234", " amira_1234 "):
        with pytest.raises(BadPasswordError, match="must not be the name"):
            check_password(password, "Amira_1234")
    assert check_password("Amira_1234 and horses", "Amira_1234")


def test_the_password_rules_count_characters() -> None:
    fewest, most = PASSWORD_LENGTH
    letters = "جغيهنتذث" * 25
    assert check_password(letters[:fewest]) and check_password(letters[:most])


# Hashing


def test_a_hash_verifies_its_password_only() -> None:
    stored = CHEAP.hash("correct horse")
    assert stored.startswith("$argon2id$") and "correct horse" not in stored
    assert CHEAP.verify(stored, "correct horse")
    assert not CHEAP.verify(stored, "Correct horse")
    assert not CHEAP.verify(stored, "")
    assert CHEAP.hash("correct horse") != stored  # salted


def test_a_broken_or_missing_hash_verifies_nothing() -> None:
    assert not CHEAP.verify("not a hash", "whatever1")
    assert not CHEAP.verify(None, "whatever1")
    assert not CHEAP.verify(None, "")


def test_a_password_matches_in_any_unicode_form() -> None:
    stored = CHEAP.hash(unicodedata.normalize("NFC", "café-olé"))
    assert CHEAP.verify(stored, unicodedata.normalize("NFD", "café-olé"))


def test_the_default_parameters_are_argon2_cffis_recommended_ones() -> None:
    stored = Passwords().hash("correct horse")
    recommended = PasswordHasher()
    assert f"m={recommended.memory_cost},t={recommended.time_cost}," in stored
    assert not Passwords().needs_rehash(stored)


def test_a_hash_made_with_other_parameters_needs_rehashing() -> None:
    old = CHEAP.hash("correct horse")
    assert not CHEAP.needs_rehash(old)
    newer = Passwords(profiles.RFC_9106_LOW_MEMORY)
    assert newer.needs_rehash(old) and newer.verify(old, "correct horse")
    assert newer.needs_rehash("not a hash")


# Tokens


def test_tokens_are_long_random_and_url_safe() -> None:
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    for token in tokens:
        assert len(token) >= 43 and token.replace("-", "").replace("_", "").isalnum()


def test_a_token_is_stored_as_its_sha256() -> None:
    token = new_token()
    assert token_hash(token) == hashlib.sha256(token.encode()).hexdigest()
    assert len(token_hash(token)) == 64 and token not in token_hash(token)


def test_a_session_lasts_thirty_days() -> None:
    assert SESSION_SECONDS == 30 * 24 * 3600


# The pace of wrong passwords


def test_wrong_passwords_lock_for_longer_and_longer_up_to_a_ceiling() -> None:
    pace = LoginPace()
    locks = [pace.lock_seconds(failures) for failures in range(1, 20)]
    assert locks[:5] == [0.0] * 5
    assert locks[5:9] == [1.0, 2.0, 4.0, 8.0]
    assert locks == sorted(locks) and max(locks) == pace.longest_lock == 900.0
    assert pace.lock_seconds(10**6) == 900.0


def test_the_pace_can_be_set() -> None:
    pace = LoginPace(free_failures=2, first_lock=30, longest_lock=60)
    assert [pace.lock_seconds(n) for n in (1, 2, 3, 4, 5)] == [0.0, 0.0, 30.0, 60.0, 60.0]


def test_a_name_under_attack_brakes_every_address() -> None:
    pace = LoginPace()
    assert pace.brake_after == 50
    assert [pace.lock_seconds(n, braked=True) for n in (1, 2, 3, 5)] == [60, 120, 240, 900]
    assert pace.lock_seconds(0, braked=True) == 0.0  # an address that has not failed


def test_an_ipv6_client_is_counted_by_its_64_network() -> None:
    assert address_group("2001:db8:1:2:aaaa::1") == address_group("2001:db8:1:2:bbbb::9")
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:203.0.113.9") == "203.0.113.9"
    assert address_group("203.0.113.9") != address_group("203.0.113.10")
    assert address_group("testclient") == "testclient"


# Look-alike names (UTS #39 skeletons)


@pytest.mark.parametrize(("one", "other"), [
    ("Karım", "Karim"), ("ᴄomputer", "computer"), ("Admın", "Admin"), ("Gu3st", "Guest"),
    ("AIi", "Ali"), ("Ali", "ALI"), ("rnaria", "Maria"), ("0mar", "Omar"), ("Omar1", "Omarl"),
    ("Аmira", "Amira"), ("Ｏmar", "Omar"), ("Layla", "Lay1a"), ("Sami", "5ami"),
])
def test_look_alike_names_have_one_key(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("Αlice", "Alice"), ("ΑLICE", "alice"), ("ΤΟΜ", "Tom"), ("ΚΙΜ", "kim"), ("Νora", "Nora"),
    ("ΗΑΝΝΑ", "Hanna"), ("Ρaul", "Paul"), ("Βob", "Bob"), ("ΧΕΝΙΑ", "Xenia"),
    ("Οmar", "Omar"), ("Κarım", "Karim"),
])
def test_a_greek_letter_that_looks_latin_passes_for_it(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)
    assert name_key(other) in look_alike_keys(one)


def test_a_small_greek_letter_passes_for_the_latin_one_it_looks_like() -> None:
    assert name_key("vera") in look_alike_keys("νera")  # a small nu is a v
    assert name_key("Nera") in look_alike_keys("νera")  # and small for a capital N
    assert look_alike_keys("Vera") == {name_key("Vera")}


@pytest.mark.parametrize(("one", "other"), [
    ("Γιώργος", "ΓΙΩΡΓΟΣ"), ("Γιώργος", "γιωργος"), ("Νίκος", "ΝΙΚΟΣ"), ("Ζωή", "ΖΩΗ"),
    ("Μαΐρα", "ΜΑΙΡΑ"), ("Ελένη", "ελενη"),
])
def test_greek_names_are_the_same_whatever_their_case_and_accents(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("İpek", "ipek"), ("İPEK", "ipek"), ("Işıl", "IŞIL"), ("ışıl", "Isil".replace("s", "ş")),
    ("Şükrü", "şükrü"), ("ÇAĞRI", "çağrı"), ("Ipek", "ıpek"), ("ıpek", "ipek"),
])
def test_turkish_names_are_the_same_whatever_their_case_and_dots(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)


@pytest.mark.parametrize(("one", "other"), [
    ("Şükrü", "Sukru"), ("Gülşen", "Gulsen"), ("Γιώργος", "Γιάννης"), ("Νίκος", "Vikos"),
])
def test_greek_and_turkish_names_that_differ_have_different_keys(one: str, other: str) -> None:
    assert name_key(one) != name_key(other)


@pytest.mark.parametrize(("name", "why"), [
    ("Kerim", "computer"), ("Kerım", "computer"), ("ΚΑΡΙΜ", "computer"), ("Καρίμ", "computer"),
    ("Λέιλα", "computer"), ("Misafir", "guest"), ("Bilgisayar_2", "computer_prefix"),
    ("Υπολογιστής", "computer_prefix"), ("Επισκέπτης", "guest"), ("Γιώργος", None),
    ("Şükrü", None),
])
def test_the_turkish_and_greek_names_of_the_computer_and_guests_are_kept(
        name: str, why: str | None) -> None:
    assert reserved_as(name) == why


@pytest.mark.parametrize(("name", "why"), [
    ("Karım", "computer"), ("Kar1m", "computer"), ("ᴄomputer", "computer_prefix"),
    ("Admın", "staff"), ("Gu3st", "guest"), ("Nadia-1", "computer"), ("Layia", "computer"),
    ("Amira", None), ("Omar_7", None),
])
def test_look_alikes_of_the_kept_names_are_kept(name: str, why: str | None) -> None:
    assert reserved_as(name) == why
    if why is not None:
        with pytest.raises(BadNameError):
            check_name(name)
