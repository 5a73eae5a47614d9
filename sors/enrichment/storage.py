"""Where downloaded post media live: one small interface, two implementations.

`LocalMediaStore` keeps files under `settings.media_dir` and hands out links to this
service's own `GET /media/{token}`: the token is signed (one salt for this purpose) and
carries the file's key, its content type and an expiry, so serving a file needs neither an
API key nor a database lookup, and a link cannot be bent to another file or kept alive.

`S3MediaStore` keeps them in an S3-compatible bucket (AWS, MinIO, R2, …; boto3 with the
usual credential chain, `SORS_S3_ENDPOINT_URL` for non-AWS) and hands out presigned GET
URLs that expire at the same moment.

Link expiry is on the service clock (the runtime's, handed in as `now`): in the demo that is
the simulated clock, so a link's `expiresAt` agrees with every other time the demo shows and
expires when simulated time passes it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from sors.config import Settings
from sors.kit.security import Signer, TokenError

TOKEN_PURPOSE = "media"  # noqa: S105 - a signing salt, not a secret


class MediaStore(Protocol):
    name: str

    async def put(self, key: str, src: Path, content_type: str) -> int:
        """Store the file `src` under `key`; returns its size in bytes."""
        ...

    async def exists(self, key: str) -> bool: ...

    async def fetch(self, key: str, dest_dir: Path) -> Path:
        """A local path holding the object's bytes (a copy in `dest_dir` when remote)."""
        ...

    async def delete(self, key: str) -> None: ...

    def url(self, key: str, *, content_type: str, expires_at: datetime, now: datetime) -> str:
        """A link anyone can GET until `expires_at` (`now`: the service clock's time)."""
        ...


def check_key(key: str) -> str:
    """Keys are relative POSIX paths we build ourselves; anything else is a bug or an attack."""
    p = PurePosixPath(key)
    if not key or p.is_absolute() or any(part in ("", ".", "..") for part in key.split("/")):
        raise ValueError(f"bad media key {key!r}")
    return key


# ---- local files -------------------------------------------------------------------------


@dataclass(frozen=True)
class MediaToken:
    key: str
    content_type: str
    expires_at: datetime


class LocalMediaStore:
    name = "local"

    def __init__(self, root: Path, *, base_url: str, signer: Signer, max_ttl: int) -> None:
        self.root = root
        self.base_url = base_url.rstrip("/")
        self.signer = signer
        self.max_ttl = max_ttl

    def path(self, key: str) -> Path:
        return self.root / check_key(key)

    async def put(self, key: str, src: Path, content_type: str) -> int:
        return await asyncio.to_thread(self._put, self.path(key), src)

    @staticmethod
    def _put(dest: Path, src: Path) -> int:
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f".{dest.name}.part")
        shutil.copyfile(src, part)
        os.replace(part, dest)  # readers never see a half-written file
        return dest.stat().st_size

    async def exists(self, key: str) -> bool:
        return await asyncio.to_thread(self.path(key).is_file)

    async def fetch(self, key: str, dest_dir: Path) -> Path:
        path = self.path(key)
        if not await asyncio.to_thread(path.is_file):
            raise FileNotFoundError(key)
        return path

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self.path(key).unlink, missing_ok=True)

    def url(self, key: str, *, content_type: str, expires_at: datetime, now: datetime) -> str:
        return f"{self.base_url}/media/{self.token(key, content_type, expires_at)}"

    def token(self, key: str, content_type: str, expires_at: datetime) -> str:
        payload = {"k": check_key(key), "t": content_type, "e": int(expires_at.timestamp())}
        return self.signer.sign(TOKEN_PURPOSE, payload)

    def read_token(self, token: str, now: datetime) -> MediaToken:
        """The token's content, or TokenError("invalid" | "expired") at `now`."""
        # The expiry inside the signed payload is the bound; no wall-clock age bound on the
        # signature, which would disagree with a simulated clock.
        data: Any = self.signer.verify(TOKEN_PURPOSE, token, max_age=None)
        if not isinstance(data, dict) or not {"k", "t", "e"} <= data.keys():
            raise TokenError("invalid")
        try:
            key = check_key(str(data["k"]))
            expires = int(data["e"])
        except (TypeError, ValueError) as exc:
            raise TokenError("invalid") from exc
        if expires <= now.timestamp():
            raise TokenError("expired")
        return MediaToken(key, str(data["t"]), datetime.fromtimestamp(expires, UTC))


# ---- S3-compatible buckets ---------------------------------------------------------------


class S3MediaStore:
    name = "s3"

    def __init__(
        self, bucket: str, *, prefix: str = "", endpoint_url: str | None = None, client: Any = None
    ) -> None:
        if client is None:
            try:
                import boto3
            except ImportError as exc:  # pragma: no cover - depends on the installation
                raise RuntimeError("SORS_MEDIA_STORE=s3 needs the boto3 package") from exc
            client = boto3.client("s3", endpoint_url=endpoint_url)
        self.client = client
        self.bucket = bucket
        self.prefix = prefix

    def _key(self, key: str) -> str:
        return f"{self.prefix}{check_key(key)}"

    async def put(self, key: str, src: Path, content_type: str) -> int:
        await asyncio.to_thread(
            self.client.upload_file,
            str(src),
            self.bucket,
            self._key(key),
            ExtraArgs={"ContentType": content_type},
        )
        return (await asyncio.to_thread(src.stat)).st_size

    async def exists(self, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            await asyncio.to_thread(self.client.head_object, Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise
        return True

    async def fetch(self, key: str, dest_dir: Path) -> Path:
        dest = dest_dir / PurePosixPath(key).name
        await asyncio.to_thread(dest_dir.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(self.client.download_file, self.bucket, self._key(key), str(dest))
        return dest

    async def delete(self, key: str) -> None:
        await asyncio.to_thread(self.client.delete_object, Bucket=self.bucket, Key=self._key(key))

    def url(self, key: str, *, content_type: str, expires_at: datetime, now: datetime) -> str:
        seconds = max(1, int((expires_at - now).total_seconds()))
        # Presigning is a local computation (no request), so it is fine on the event loop.
        url: str = self.client.generate_presigned_url(
            "get_object",
            Params={
                "Bucket": self.bucket,
                "Key": self._key(key),
                "ResponseContentType": content_type,
            },
            ExpiresIn=seconds,
        )
        return url


def get_media_store(settings: Settings, signer: Signer | None = None) -> MediaStore:
    """The configured store (`SORS_MEDIA_STORE`: local | s3)."""
    if settings.media.store == "s3":
        if not settings.media.s3_bucket:
            raise RuntimeError("SORS_MEDIA_STORE=s3 needs SORS_S3_BUCKET")
        return S3MediaStore(
            settings.media.s3_bucket, prefix=settings.media.s3_prefix,
            endpoint_url=settings.media.s3_endpoint_url,
        )
    return LocalMediaStore(
        settings.media_dir,
        base_url=settings.base_url,
        signer=signer or Signer(settings.resolved_secret_key),
        max_ttl=settings.media.url_ttl_seconds,
    )
