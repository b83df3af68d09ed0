"""The names of a sitemap set's files: made here, and recognised here.

The encoder names shards and indexes with these functions, and publish finds the
files an earlier run left (to remove the stale ones, to refuse a report file that
would take such a name) with :func:`own_file_pattern`, built from the same
pieces, so a name one makes is a name the other knows.

* A shard: ``<stem>-<first URL's digest><content's crc32>.<ext>[.gz]``. Named by
  its first URL, not its position: a shard split elsewhere in the site does not
  rename (and so re-send) every shard after it. And by its content: new bytes
  always get a new name, so writing a shard never changes a file the published
  index names (publish switches the index last); unchanged shards keep their
  names and bytes.
* The entry point's index: the entry point itself (``sitemap.xml``); a text
  sitemap (``sitemap.txt``) that needs one gets ``<stem>.xml``, since an index
  is XML. Further indexes (an index may not list indexes, so each is an entry
  point of its own): ``<stem>-index-<n>.xml``, or ``<stem>-index-<digest>.xml``
  named by their content where robots.txt names them all.
"""

from __future__ import annotations

import re

try:
    # CPython's own BLAKE2, without hashlib's loading of OpenSSL, which costs
    # more than naming a small site's files does.
    from _blake2 import blake2b
except ImportError:  # another Python
    from hashlib import blake2b

#: Bytes of the digest of a shard's first URL in its name (hex: twice as many digits).
SHARD_URL_DIGEST_BYTES = 5
#: Hex digits of a shard's content crc32 in its name.
SHARD_CRC_DIGITS = 8
#: Bytes of the digest of an index's content in its name, where indexes are named so.
INDEX_DIGEST_BYTES = 8
#: The extensions a shard's name may end in (either format, compressed or not).
SHARD_EXTENSIONS = (".xml", ".txt")
GZIP_EXTENSION = ".gz"
_INDEX_MARK = "-index-"


def stem(filename: str) -> str:
    """The entry point's name without its extension: what every other name starts with."""
    return filename.rpartition(".")[0]


def shard_name(filename: str, first_loc: bytes, crc: int, *, gzip: bool) -> str:
    """The name of a shard of the set whose entry point is ``filename``, holding
    ``first_loc`` (its first URL, as written) first and bytes whose crc32 is ``crc``."""
    digest = blake2b(first_loc, digest_size=SHARD_URL_DIGEST_BYTES).hexdigest()
    extension = "." + filename.rpartition(".")[2] + (GZIP_EXTENSION if gzip else "")
    return f"{stem(filename)}-{digest}{crc:0{SHARD_CRC_DIGITS}x}{extension}"


def index_name(filename: str, number: int) -> str:
    """The name of the ``number``-th index (from 1) of the set whose entry point is
    ``filename``: the entry point itself first (``<stem>.xml`` for a text sitemap),
    then ``<stem>-index-<number>.xml``."""
    if number == 1:
        return filename if filename.endswith(".xml") else stem(filename) + ".xml"
    return f"{stem(filename)}{_INDEX_MARK}{number}.xml"


def content_index_name(filename: str, data: bytes) -> str:
    """An index named by its content ``data``, for sets of several indexes that
    robots.txt names (see publish's ``finish``)."""
    return f"{stem(filename)}{_INDEX_MARK}{blake2b(data, digest_size=INDEX_DIGEST_BYTES).hexdigest()}.xml"


def own_file_pattern(filename: str) -> re.Pattern[str]:
    """The names :func:`shard_name`, :func:`index_name` (after the first) and
    :func:`content_index_name` make for the entry point ``filename``, in either
    format. Earlier versions named a shard by the first URL's digest alone, with
    ``-<n>`` after it for a second shard starting with the same URL: those names
    are recognised too, so an upgrade removes them when they are stale."""
    prefix = re.escape(stem(filename))
    url_digest = f"[0-9a-f]{{{2 * SHARD_URL_DIGEST_BYTES}}}"
    crc = f"[0-9a-f]{{{SHARD_CRC_DIGITS}}}"
    extensions = "|".join(re.escape(extension) for extension in SHARD_EXTENSIONS)
    index = re.escape(_INDEX_MARK)
    return re.compile(
        rf"{prefix}-{url_digest}(?:{crc})?(?:-\d+)?(?:{extensions})(?:{re.escape(GZIP_EXTENSION)})?\Z"
        rf"|{prefix}{index}(?:\d+|[0-9a-f]{{{2 * INDEX_DIGEST_BYTES}}})\.xml\Z"
    )


def content_named_pattern(filename: str) -> re.Pattern[str]:
    """The shards :func:`shard_name` names by their content as well as their first
    URL (one name, one content): a shard of this name that two sets both name
    holds the same bytes in both."""
    prefix = re.escape(stem(filename))
    digits = 2 * SHARD_URL_DIGEST_BYTES + SHARD_CRC_DIGITS
    extensions = "|".join(re.escape(extension) for extension in SHARD_EXTENSIONS)
    return re.compile(rf"{prefix}-[0-9a-f]{{{digits}}}(?:-\d+)?(?:{extensions})(?:{re.escape(GZIP_EXTENSION)})?\Z")
