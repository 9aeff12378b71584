"""Passkeys (WebAuthn, through the ``webauthn`` library): a player adds one on a device that holds
their key, and signs in with it on another device, which is then given a key of its own.

Each ceremony's challenge is kept by the store (single use, five minutes), not in a process's
memory: the answer may reach another server process. The passkeys are discoverable (resident), so
signing in needs no name: the authenticator says whose passkey it is.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from .model import PeopleError, Player
from .players import PlayerStore
from .signin import SignInStore

RP_NAME = "nimmt"


class PeopleStore(PlayerStore, SignInStore, Protocol):
    """What a passkey ceremony uses of the people stores: the players' passkeys and keys, and the
    ceremonies' challenges (the server's :class:`~nimmt.people.store.SqlPeopleStore` has both)."""


def _refused(error: Exception) -> PeopleError:
    return PeopleError("passkey_refused", f"the passkey was not accepted: {error}")


async def add_options(store: PeopleStore, player: Player, rp_id: str) -> tuple[str, dict[str, Any]]:
    """Start adding a passkey: a ceremony token and the options for ``navigator.credentials.create``."""
    known = await store.passkeys(player.id)
    options = generate_registration_options(
        rp_id=rp_id, rp_name=RP_NAME, user_name=player.name or player.id, user_id=player.id.encode(),
        user_display_name=player.name or player.id,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement.PREFERRED),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(passkey.credential_id))
                             for passkey in known])
    token = await store.put_challenge("passkey_add", player.id, {"challenge": bytes_to_base64url(options.challenge)})
    return token, json.loads(options_to_json(options))


async def add(store: PeopleStore, player: Player, token: str, credential: dict[str, Any], *, rp_id: str,
              origin: str) -> None:
    """Check the new passkey's answer against its ceremony and keep it."""
    player_id, data = await store.take_challenge("passkey_add", token)
    if player_id != player.id:
        raise PeopleError("code_unknown", "this ceremony was started by another player")
    try:
        verified = verify_registration_response(credential=credential,
                                                expected_challenge=base64url_to_bytes(data["challenge"]),
                                                expected_rp_id=rp_id, expected_origin=origin)
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise _refused(error) from None
    await store.add_passkey(player.id, bytes_to_base64url(verified.credential_id),
                            bytes_to_base64url(verified.credential_public_key), verified.sign_count)


async def sign_in_options(store: PeopleStore, rp_id: str) -> tuple[str, dict[str, Any]]:
    """Start signing in: a ceremony token and the options for ``navigator.credentials.get``."""
    options = generate_authentication_options(rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED)
    token = await store.put_challenge("passkey_in", None, {"challenge": bytes_to_base64url(options.challenge)})
    return token, json.loads(options_to_json(options))


async def sign_in(store: PeopleStore, token: str, credential: dict[str, Any], *, rp_id: str,
                  origin: str) -> tuple[Player, str]:
    """Check a sign-in's answer; the device is given a new key of the passkey's player."""
    _, data = await store.take_challenge("passkey_in", token)
    raw_id = credential.get("id") if isinstance(credential, dict) else None
    passkey = await store.passkey(raw_id) if isinstance(raw_id, str) else None
    if passkey is None:
        raise PeopleError("passkey_refused", "nimmt knows no such passkey (removed, or its player deleted)")
    try:
        verified = verify_authentication_response(
            credential=credential, expected_challenge=base64url_to_bytes(data["challenge"]), expected_rp_id=rp_id,
            expected_origin=origin, credential_public_key=base64url_to_bytes(passkey.public_key),
            credential_current_sign_count=passkey.sign_count)
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise _refused(error) from None
    await store.passkey_used(passkey.credential_id, verified.new_sign_count)
    key = await store.new_device_key(passkey.player_id, "passkey")
    player = await store.player(passkey.player_id)
    if player is None:
        raise PeopleError("unknown_player", "the passkey's player was deleted")
    return player, key
